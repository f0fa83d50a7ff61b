#include "macro/common/load_report.hpp"

#include <limits>

#include "macro/common/json_field.hpp"
#include "macro/common/usage_error.hpp"

namespace gatebench::common {

using json = nlohmann::ordered_json;
using Field = OrderedJsonField;

void add_count(Counts& counts, std::string_view name, std::uint64_t n) {
  for (auto& [key, value] : counts)
    if (key == name) {
      value += n;
      return;
    }
  counts.emplace_back(std::string(name), n);
}

void add_counts(Counts& counts, const Counts& other) {
  for (const auto& [name, n] : other) add_count(counts, name, n);
}

std::uint64_t count_of(const Counts& counts, std::string_view name) {
  for (const auto& [key, value] : counts)
    if (key == name) return value;
  return 0;
}

std::optional<double> LatencySummary::percentile(std::string_view key) const {
  for (const auto& [name, value] : percentiles)
    if (name == key) return value;
  return std::nullopt;
}

namespace {

template <class T>
json optional_json(const std::optional<T>& v) {
  return v ? json(*v) : json(nullptr);
}

json counts_json(const Counts& counts) {
  json out = json::object();
  for (const auto& [name, n] : counts) out[name] = n;
  return out;
}

json latencies_json(const Latencies& values) {
  json out = json::object();
  for (const auto& [name, v] : values) out[name] = v;
  return out;
}

json config_json(const LoadConfig& c) {
  return {{"url", c.url},
          {"threads", c.threads},
          {"connections", c.connections},
          {"duration_s", c.duration_s},
          {"warmup_s", c.warmup_s},
          {"mode", c.mode},
          {"rate", optional_json(c.rate)},
          {"requests_total", optional_json(c.requests_total)},
          {"close", c.close},
          {"timeout_s", c.timeout_s},
          {"tls", c.tls},
          {"protocol", c.protocol},
          {"streams", c.streams},
          {"tls_resume", c.tls_resume},
          {"io", c.io},
          {"spin_us", c.spin_us},
          {"spin_auto", c.spin_auto},
          {"sched", c.sched},
          {"sched_auto", c.sched_auto},
          {"headers", c.headers},
          {"requests_file", optional_json(c.requests_file)},
          {"start_at_unix_ms", optional_json(c.start_at_unix_ms)}};
}

json latency_json(const LatencySummary& l) {
  json out = {{"min", l.min}, {"mean", l.mean}, {"stdev", l.stdev}, {"max", l.max}};
  for (const auto& [name, v] : l.percentiles) out[name] = v;
  return out;
}

json histogram_json(const LatencyHistogram& h) {
  json buckets = json::array();
  for (const auto& b : h.buckets) buckets.push_back({b.lower_ns, b.upper_ns, b.count});
  return {{"unit", "ns"},
          {"sub_bucket_bits", h.sub_bucket_bits},
          {"count", h.count},
          {"buckets", buckets}};
}

json template_json(const TemplateReport& t) {
  return {{"name", t.name},
          {"weight", t.weight},
          {"method", t.method},
          {"target", t.target},
          {"expect_status", optional_json(t.expect_status)},
          {"responses", t.responses},
          {"as_expected", t.as_expected},
          {"unexpected", t.unexpected},
          {"errors", t.errors},
          {"status", counts_json(t.status)}};
}

json h2_json(const H2Report& h2) {
  return {{"streams_per_connection", h2.streams_per_connection},
          {"server_max_concurrent_streams", optional_json(h2.server_max_concurrent_streams)},
          {"max_concurrent_streams", h2.max_concurrent_streams},
          {"streams", h2.streams},
          {"retried", h2.retried},
          {"rst_stream", counts_json(h2.rst_stream)},
          {"goaway", counts_json(h2.goaway)},
          {"nghttp2_allocations", h2.nghttp2_allocations},
          {"nghttp2_allocations_per_stream", h2.nghttp2_allocations_per_stream},
          {"not_h2", optional_json(h2.not_h2)}};
}

// Readers. A member a file leaves out (or null) keeps the type's default (JsonField's
// *_or_default), so that a file of an older generator, or one a test writes by hand, reads; a
// member of the wrong type is an error naming its pointer.
constexpr long kMaxCount = std::numeric_limits<long>::max();

Counts read_counts(const Field& f) {
  Counts out;
  if (f.object_if_present())
    for (const std::string& key : f.keys()) out.emplace_back(key, f.child(key).count_or_default());
  return out;
}

Latencies read_latencies(const Field& f) {
  Latencies out;
  if (f.object_if_present())
    for (const std::string& key : f.keys()) out.emplace_back(key, f.child(key).number());
  return out;
}

LoadConfig read_config(const Field& f) {
  LoadConfig c;
  if (!f.object_if_present()) return c;
  c.url = f.child("url").string_or_default();
  c.threads = static_cast<int>(f.child("threads").integer_or_default(0, 0, 1 << 20));
  c.connections = static_cast<int>(f.child("connections").integer_or_default(0, 0, 1 << 30));
  c.duration_s = f.child("duration_s").number_or_default();
  c.warmup_s = f.child("warmup_s").number_or_default();
  c.mode = f.child("mode").string_or_default("closed");
  if (c.mode != "closed" && c.mode != "open") f.child("mode").fail("expected closed or open");
  c.rate = f.child("rate").optional_number();
  if (!f.child("requests_total").is_null())
    c.requests_total = f.child("requests_total").count_or_default();
  c.close = f.child("close").boolean_or_default(false);
  c.timeout_s = f.child("timeout_s").number_or_default();
  c.tls = f.child("tls").boolean_or_default(false);
  c.protocol = f.child("protocol").string_or_default("http/1.1");
  c.streams = static_cast<int>(f.child("streams").integer_or_default(1, 1, 1 << 20));
  c.tls_resume = f.child("tls_resume").boolean_or_default(true);
  c.io = f.child("io").string_or_default();
  c.spin_us = f.child("spin_us").number_or_default();
  c.spin_auto = f.child("spin_auto").boolean_or_default(false);
  c.sched = f.child("sched").string_or_default();
  c.sched_auto = f.child("sched_auto").boolean_or_default(false);
  c.headers = f.child("headers").strings();
  c.requests_file = f.child("requests_file").optional_string();
  if (!f.child("start_at_unix_ms").is_null())
    c.start_at_unix_ms = f.child("start_at_unix_ms").integer(0, kMaxCount);
  return c;
}

LatencySummary read_latency(const Field& f) {
  LatencySummary l;
  if (!f.object_if_present()) return l;
  for (const std::string& key : f.keys()) {
    const Field v = f.child(key);
    if (key == "min")
      l.min = v.number();
    else if (key == "mean")
      l.mean = v.number();
    else if (key == "stdev")
      l.stdev = v.number();
    else if (key == "max")
      l.max = v.number();
    else if (!v.is_null())
      l.percentiles.emplace_back(key, v.number());
  }
  return l;
}

LatencyHistogram read_histogram(const Field& f) {
  LatencyHistogram h;
  if (!f.object_if_present()) return h;
  if (f.child("unit").string_or_default("ns") != "ns") f.child("unit").fail("expected ns");
  h.sub_bucket_bits = static_cast<int>(f.child("sub_bucket_bits").integer_or_default(0, 0, 30));
  h.count = f.child("count").count_or_default();
  const Field buckets = f.child("buckets");
  if (!buckets.array_if_present()) return h;
  for (std::size_t i = 0; i < buckets.size(); ++i) {
    const Field b = buckets.at(i);
    b.expect_array();
    if (b.size() != 3) b.fail("expected [lower_ns, upper_ns, count]");
    HistogramBucket bucket{b.at(0).count_or_default(), b.at(1).count_or_default(),
                           b.at(2).count_or_default()};
    if (bucket.upper_ns <= bucket.lower_ns) b.fail("expected upper_ns above lower_ns");
    h.buckets.push_back(bucket);
  }
  return h;
}

TemplateReport read_template(const Field& f) {
  f.expect_object();
  TemplateReport t;
  t.name = f.child("name").string_or_default("request");
  t.weight = f.child("weight").number_or_default(1);
  t.method = f.child("method").string_or_default();
  t.target = f.child("target").string_or_default();
  if (!f.child("expect_status").is_null())
    t.expect_status = static_cast<int>(f.child("expect_status").integer(100, 999));
  t.responses = f.child("responses").count_or_default();
  t.as_expected = f.child("as_expected").count_or_default();
  t.unexpected = f.child("unexpected").count_or_default();
  t.errors = f.child("errors").count_or_default();
  t.status = read_counts(f.child("status"));
  return t;
}

H2Report read_h2(const Field& f) {
  H2Report h2;
  h2.streams_per_connection =
      static_cast<int>(f.child("streams_per_connection").integer_or_default(1, 1, 1 << 20));
  if (!f.child("server_max_concurrent_streams").is_null())
    h2.server_max_concurrent_streams = f.child("server_max_concurrent_streams").count_or_default();
  h2.max_concurrent_streams = f.child("max_concurrent_streams").count_or_default();
  h2.streams = f.child("streams").count_or_default();
  h2.retried = f.child("retried").count_or_default();
  h2.rst_stream = read_counts(f.child("rst_stream"));
  h2.goaway = read_counts(f.child("goaway"));
  h2.nghttp2_allocations = f.child("nghttp2_allocations").count_or_default();
  h2.nghttp2_allocations_per_stream = f.child("nghttp2_allocations_per_stream").number_or_default();
  h2.not_h2 = f.child("not_h2").optional_string();
  return h2;
}

}  // namespace

json to_json(const LoadReport& r) {
  json j;
  j["schema"] = kLoadSchema;
  j["tool"] = {{"name", r.tool_name}, {"version", r.tool_version}};
  j["config"] = config_json(r.config);
  j["valid"] = r.valid;
  j["invalid_reasons"] = r.invalid_reasons;
  j["elapsed_s"] = r.elapsed_s;
  j["window"] = r.window ? json{{"clock", "CLOCK_MONOTONIC"},
                                {"start_ns", r.window->start_ns},
                                {"end_ns", r.window->end_ns}}
                         : json(nullptr);
  j["requests"] = r.requests;
  j["issued"] = r.issued;
  j["requests_per_s"] = r.requests_per_s;
  const OpenLoopReport* open = r.open_loop ? &*r.open_loop : nullptr;
  j["offered_rate"] = open ? json(open->offered_rate) : json(nullptr);
  j["achieved_rate"] = open ? json(open->achieved_rate) : json(nullptr);
  j["missed"] = r.missed;
  j["max_send_lag_us"] = open ? json(open->max_send_lag_us) : json(nullptr);
  j["send_lag_us"] = open ? latencies_json(open->send_lag_us) : json(nullptr);
  j["service_time_us"] = open ? latencies_json(open->service_time_us) : json(nullptr);
  j["bytes"] = {
      {"read", r.bytes_read}, {"written", r.bytes_written}, {"read_per_s", r.bytes_read_per_s}};
  j["connections_opened"] = r.connections_opened;
  j["handshakes"] = r.handshakes ? json{{"full", r.handshakes->full},
                                        {"resumed", r.handshakes->resumed},
                                        {"per_s", r.handshakes->per_s}}
                                 : json(nullptr);
  j["latency_us"] = latency_json(r.latency_us);
  j["latency_histogram"] = histogram_json(r.latency_histogram);
  j["status"] = counts_json(r.status);
  json errors = counts_json(r.errors);
  errors["total"] = r.errors_total;
  j["errors"] = errors;
  json series = json::array();
  for (const auto& s : r.series)
    series.push_back({{"t", s.t},
                      {"requests", s.requests},
                      {"rps", s.rps},
                      {"p99_us", optional_json(s.p99_us)},
                      {"errors", s.errors},
                      {"handshakes", s.handshakes}});
  j["series"] = series;
  json templates = json::array();
  for (const auto& t : r.templates) templates.push_back(template_json(t));
  j["templates"] = templates;
  j["h2"] = r.h2 ? h2_json(*r.h2) : json(nullptr);
  json headers = json::object();
  for (const auto& [name, values] : r.header_counts) headers[name] = counts_json(values);
  j["header_counts"] = headers;
  if (!r.merged_from.empty()) {
    json hosts = json::array();
    for (const auto& h : r.merged_from)
      hosts.push_back({{"host", h.host},
                       {"requests", h.requests},
                       {"requests_per_s", h.requests_per_s},
                       {"elapsed_s", h.elapsed_s},
                       {"valid", h.valid}});
    j["merged_from"] = hosts;
  }
  return j;
}

LoadReport load_report_from_json(const json& doc, const std::string& source) {
  const Field root(doc, source);
  if (!doc.is_object() || !root.has("schema") || !root.child("schema").json().is_string() ||
      root.child("schema").string() != kLoadSchema)
    root.child("schema").fail("expected " + std::string(kLoadSchema));
  LoadReport r;
  if (const Field tool = root.child("tool"); tool.object_if_present()) {
    r.tool_name = tool.child("name").string_or_default(r.tool_name);
    r.tool_version = tool.child("version").string_or_default();
  }
  r.config = read_config(root.child("config"));
  r.valid = root.child("valid").boolean_or_default(true);
  r.invalid_reasons = root.child("invalid_reasons").strings();
  // What every run has: the measured interval and what completed in it.
  r.elapsed_s = root.child("elapsed_s").number(0, 1e9);
  r.requests = static_cast<std::uint64_t>(root.child("requests").integer(0, kMaxCount));
  r.requests_per_s = root.child("requests_per_s").number();
  if (const Field w = root.child("window"); w.object_if_present()) {
    if (w.child("clock").string_or_default("CLOCK_MONOTONIC") != "CLOCK_MONOTONIC")
      w.child("clock").fail("expected CLOCK_MONOTONIC");
    r.window =
        LoadWindow{w.child("start_ns").count_or_default(), w.child("end_ns").count_or_default()};
    if (r.window->end_ns < r.window->start_ns) w.child("end_ns").fail("expected >= start_ns");
  }
  r.issued = root.child("issued").count_or_default();
  r.missed = root.child("missed").count_or_default();
  if (!root.child("offered_rate").is_null()) {
    OpenLoopReport open;
    open.offered_rate = root.child("offered_rate").number();
    open.achieved_rate = root.child("achieved_rate").number_or_default();
    open.max_send_lag_us = root.child("max_send_lag_us").number_or_default();
    open.send_lag_us = read_latencies(root.child("send_lag_us"));
    open.service_time_us = read_latencies(root.child("service_time_us"));
    r.open_loop = std::move(open);
  }
  if (const Field bytes = root.child("bytes"); bytes.object_if_present()) {
    r.bytes_read = bytes.child("read").count_or_default();
    r.bytes_written = bytes.child("written").count_or_default();
    r.bytes_read_per_s = bytes.child("read_per_s").number_or_default();
  }
  r.connections_opened = root.child("connections_opened").count_or_default();
  if (const Field handshakes = root.child("handshakes"); handshakes.object_if_present())
    r.handshakes = HandshakeCounts{handshakes.child("full").count_or_default(),
                                   handshakes.child("resumed").count_or_default(),
                                   handshakes.child("per_s").number_or_default()};
  r.latency_us = read_latency(root.child("latency_us"));
  r.latency_histogram = read_histogram(root.child("latency_histogram"));
  r.status = read_counts(root.child("status"));
  if (const Field errors = root.child("errors"); errors.object_if_present()) {
    for (const std::string& key : errors.keys())
      if (key != "total") r.errors.emplace_back(key, errors.child(key).count_or_default());
    r.errors_total = errors.child("total").count_or_default();
  }
  if (const Field series = root.child("series"); series.array_if_present()) {
    for (std::size_t i = 0; i < series.size(); ++i) {
      const Field s = series.at(i);
      s.expect_object();
      // t and rps are what a second is; the rest may be left out.
      r.series.push_back({static_cast<std::uint64_t>(s.child("t").integer(0, kMaxCount)),
                          s.child("requests").count_or_default(), s.child("rps").number(),
                          s.child("p99_us").optional_number(), s.child("errors").count_or_default(),
                          s.child("handshakes").count_or_default()});
    }
  }
  if (const Field templates = root.child("templates"); templates.array_if_present())
    for (std::size_t i = 0; i < templates.size(); ++i)
      r.templates.push_back(read_template(templates.at(i)));
  if (const Field h2 = root.child("h2"); h2.object_if_present()) r.h2 = read_h2(h2);
  if (const Field headers = root.child("header_counts"); headers.object_if_present())
    for (const std::string& name : headers.keys())
      r.header_counts.emplace_back(name, read_counts(headers.child(name)));
  if (const Field hosts = root.child("merged_from"); hosts.array_if_present()) {
    for (std::size_t i = 0; i < hosts.size(); ++i) {
      const Field h = hosts.at(i);
      h.expect_object();
      r.merged_from.push_back(
          {h.child("host").string_or_default(), h.child("requests").count_or_default(),
           h.child("requests_per_s").number_or_default(), h.child("elapsed_s").number_or_default(),
           h.child("valid").boolean_or_default(true)});
    }
  }
  return r;
}

LoadReport parse_load_report(const std::string& text, const std::string& source) {
  return load_report_from_json(parse_json_text<json>(text, source), source);
}

}  // namespace gatebench::common
