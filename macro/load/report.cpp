#include "macro/load/report.hpp"

#include <cstdio>
#include <string>

#include "macro/common/build_info.hpp"

namespace gatebench::load {
namespace {

// Ordered, so the file reads in the order docs/load.md documents.
using json = nlohmann::ordered_json;

constexpr double kRateTolerance = 0.99;  // an open-loop run must achieve 99% of its rate
// Generators on several hosts started further apart than this did not load the target together.
constexpr std::uint64_t kStartLateNs = 50'000'000;

struct Percentile {
  const char* key;
  const char* label;
  double p;
};
constexpr Percentile kPercentiles[] = {{"p50", "50%", 50},      {"p75", "75%", 75},
                                       {"p90", "90%", 90},      {"p99", "99%", 99},
                                       {"p999", "99.9%", 99.9}, {"p9999", "99.99%", 99.99}};

double us(std::uint64_t ns) {
  return static_cast<double>(ns) / 1e3;
}

std::string format_duration_ns(double ns) {
  char buf[32];
  if (ns < 1e3)
    std::snprintf(buf, sizeof buf, "%.0fns", ns);
  else if (ns < 1e6)
    std::snprintf(buf, sizeof buf, "%.2fus", ns / 1e3);
  else if (ns < 1e9)
    std::snprintf(buf, sizeof buf, "%.2fms", ns / 1e6);
  else
    std::snprintf(buf, sizeof buf, "%.2fs", ns / 1e9);
  return buf;
}

std::string format_bytes(double b) {
  const char* units[] = {"B", "KB", "MB", "GB", "TB"};
  int u = 0;
  while (b >= 1024 && u < 4) {
    b /= 1024;
    ++u;
  }
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f%s", b, units[u]);
  return buf;
}

double rate(std::uint64_t n, double seconds) {
  return seconds > 0 ? static_cast<double>(n) / seconds : 0;
}

json status_counts(const std::uint64_t* counts, int slots) {
  json out = json::object();
  for (int s = 0; s < slots; ++s)
    if (counts[s]) out[std::to_string(s)] = counts[s];
  return out;
}

const char* protocol_name(const Options& options) {
  if (!options.h2) return "http/1.1";
  return options.url.starts_with("https://") ? "h2" : "h2c";
}

json code_counts(const std::array<std::uint64_t, kH2ErrorCodes>& counts) {
  json out = json::object();
  for (int i = 0; i < kH2ErrorCodes; ++i)
    if (counts[i]) out[std::string(kH2ErrorCodeNames[i])] = counts[i];
  return out;
}

std::uint64_t sum(const std::array<std::uint64_t, kH2ErrorCodes>& counts) {
  std::uint64_t total = 0;
  for (std::uint64_t n : counts) total += n;
  return total;
}

json h2_json(const Options& options, const H2Stats& h2) {
  if (!options.h2) return nullptr;
  return {{"streams_per_connection", options.streams},
          {"server_max_concurrent_streams",
           h2.server_max_streams ? json(h2.server_max_streams) : json(nullptr)},
          {"max_concurrent_streams", h2.max_concurrent},
          {"streams", h2.streams},
          {"retried", h2.retried},
          {"rst_stream", code_counts(h2.rst_stream)},
          {"goaway", code_counts(h2.goaway)},
          {"nghttp2_allocations", h2.nghttp2_allocations},
          {"nghttp2_allocations_per_stream",
           h2.streams ? static_cast<double>(h2.nghttp2_allocations) / h2.streams : 0.0},
          {"not_h2", h2.not_h2.empty() ? json(nullptr) : json(h2.not_h2)}};
}

// {"<name>": {"<value>": n, ..., "(other)": n, "(absent)": n}}: values in the order they first
// came; "(other)" only when more than HeaderCounts::kMaxValues distinct values came.
json header_counts_json(const Options& options, const HeaderCounts& counts) {
  json out = json::object();
  if (options.count_header.empty()) return out;
  json values = json::object();
  for (int i = 0; i < counts.values(); ++i)
    if (counts.count_of(i) > 0) values[counts.value(i)] = counts.count_of(i);
  if (counts.count_of(HeaderCounts::kOther) > 0)
    values["(other)"] = counts.count_of(HeaderCounts::kOther);
  values["(absent)"] = counts.count_of(HeaderCounts::kAbsent);
  out[options.count_header] = values;
  return out;
}

}  // namespace

Verdict judge(const Options& options, const RunResult& result) {
  Verdict v;
  const Stats& s = result.stats;
  if (result.interrupted) {
    v.valid = false;
    v.reasons.push_back("interrupted before the end of the run");
  }
  if (!s.h2.not_h2.empty()) {
    v.valid = false;
    v.reasons.push_back(s.h2.not_h2);
  }
  if (options.start_at_unix_ms > 0 && result.start_late_ns > kStartLateNs) {
    v.valid = false;
    char buf[96];
    std::snprintf(buf, sizeof buf, "started %.1f ms after --start-at",
                  static_cast<double>(result.start_late_ns) / 1e6);
    v.reasons.push_back(buf);
  }
  if (s.responses == 0) {
    v.valid = false;
    v.reasons.push_back("no responses");
  }
  if (options.rate > 0 && options.requests_total == 0) {
    const double achieved = rate(s.responses, result.elapsed_s);
    if (achieved < kRateTolerance * options.rate) {
      v.valid = false;
      char buf[160];
      std::snprintf(buf, sizeof buf,
                    "achieved %.1f req/s, below 99%% of the offered %.1f req/s (%llu scheduled "
                    "requests never sent)",
                    achieved, options.rate, static_cast<unsigned long long>(s.missed));
      v.reasons.push_back(buf);
    }
  }
  return v;
}

json to_json(const Options& options, const RequestSet& requests, const RunResult& result) {
  const Stats& s = result.stats;
  const double secs = result.elapsed_s;
  const Verdict verdict = judge(options, result);
  json j;
  j["schema"] = "gatebench.load/1";
  j["tool"] = {{"name", "gatebench-load"}, {"version", std::string(build_version())}};
  j["config"] = {
      {"url", options.url},
      {"threads", options.threads},
      {"connections", options.connections},
      {"duration_s", options.duration_ns / 1e9},
      {"warmup_s", options.warmup_ns / 1e9},
      {"mode", options.rate > 0 ? "open" : "closed"},
      {"rate", options.rate > 0 ? json(options.rate) : json(nullptr)},
      {"requests_total", options.requests_total > 0 ? json(options.requests_total) : json(nullptr)},
      {"close", options.close},
      {"timeout_s", options.timeout_ns / 1e9},
      {"tls", options.url.starts_with("https://")},
      {"protocol", protocol_name(options)},
      {"streams", options.streams},
      {"tls_resume", options.tls_resume},
      {"io", result.io},
      {"spin_us", result.spin_ns / 1e3},
      {"spin_auto", options.spin_auto},
      {"sched", result.sched},
      {"sched_auto", options.sched == "auto"},
      {"headers", options.headers},
      {"requests_file",
       options.requests_path.empty() ? json(nullptr) : json(options.requests_path)},
      {"start_at_unix_ms",
       options.start_at_unix_ms > 0 ? json(options.start_at_unix_ms) : json(nullptr)}};
  j["valid"] = verdict.valid;
  j["invalid_reasons"] = verdict.reasons;
  j["elapsed_s"] = secs;
  j["window"] = {{"clock", "CLOCK_MONOTONIC"},
                 {"start_ns", result.window_start_ns},
                 {"end_ns", result.window_end_ns}};
  j["requests"] = s.responses;
  j["issued"] = s.issued;
  j["requests_per_s"] = rate(s.responses, secs);
  if (options.rate > 0) {
    j["offered_rate"] = options.rate;
    j["achieved_rate"] = rate(s.responses, secs);
    j["missed"] = s.missed;
    j["max_send_lag_us"] = us(s.send_lag.max());
    j["send_lag_us"] = {{"p50", us(s.send_lag.percentile(50))},
                        {"p99", us(s.send_lag.percentile(99))},
                        {"max", us(s.send_lag.max())}};
    j["service_time_us"] = {{"p50", us(s.service.percentile(50))},
                            {"p90", us(s.service.percentile(90))},
                            {"p99", us(s.service.percentile(99))},
                            {"p999", us(s.service.percentile(99.9))},
                            {"max", us(s.service.max())}};
  } else {
    j["offered_rate"] = nullptr;
    j["achieved_rate"] = nullptr;
    j["missed"] = 0;
    j["max_send_lag_us"] = nullptr;
    j["send_lag_us"] = nullptr;
    j["service_time_us"] = nullptr;
  }
  j["bytes"] = {{"read", s.bytes_read},
                {"written", s.bytes_written},
                {"read_per_s", rate(s.bytes_read, secs)}};
  j["connections_opened"] = s.connects;
  j["handshakes"] = {{"full", s.handshakes_full},
                     {"resumed", s.handshakes_resumed},
                     {"per_s", rate(s.handshakes_full + s.handshakes_resumed, secs)}};
  json lat = {{"min", us(s.latency.min())},
              {"mean", s.latency.mean() / 1e3},
              {"stdev", s.latency.stdev() / 1e3},
              {"max", us(s.latency.max())}};
  for (const auto& p : kPercentiles) lat[p.key] = us(s.latency.percentile(p.p));
  j["latency_us"] = lat;
  json buckets = json::array();
  for (std::size_t i = 0; i < s.latency.bucket_count(); ++i) {
    if (s.latency.bucket(i) == 0) continue;
    buckets.push_back({Histogram::lower_bound(i), Histogram::lower_bound(i) + Histogram::width(i),
                       s.latency.bucket(i)});
  }
  j["latency_histogram"] = {{"unit", "ns"},
                            {"sub_bucket_bits", Histogram::kSubBits},
                            {"count", s.latency.count()},
                            {"buckets", buckets}};
  j["status"] = status_counts(s.status.data(), kStatusSlots);
  json errors = json::object();
  for (int e = 0; e < kErrorClassCount; ++e) errors[std::string(kErrorClassNames[e])] = s.errors[e];
  errors["total"] = s.error_total();
  j["errors"] = errors;
  json series = json::array();
  for (std::size_t i = 0; i < s.series.size(); ++i) {
    const SecondStats& sec = s.series[i];
    series.push_back({{"t", i},
                      {"requests", sec.requests},
                      {"rps", static_cast<double>(sec.requests)},
                      {"p99_us", us(sec.latency.percentile(99))},
                      {"errors", sec.errors},
                      {"handshakes", sec.handshakes}});
  }
  j["series"] = series;
  json templates = json::array();
  const auto tmpls = requests.templates();
  for (std::size_t i = 0; i < tmpls.size(); ++i) {
    const TemplateStats& t = i < s.templates.size() ? s.templates[i] : TemplateStats{};
    templates.push_back(
        {{"name", tmpls[i].name},
         {"weight", tmpls[i].weight},
         {"method", tmpls[i].method},
         {"target", tmpls[i].target},
         {"expect_status", tmpls[i].expect_status ? json(tmpls[i].expect_status) : json(nullptr)},
         {"responses", t.responses},
         {"as_expected", t.as_expected},
         {"unexpected", t.unexpected},
         {"errors", t.errors},
         {"status", status_counts(t.status.data(), kStatusSlots)}});
  }
  j["templates"] = templates;
  j["h2"] = h2_json(options, s.h2);
  j["header_counts"] = header_counts_json(options, s.header_counts);
  return j;
}

std::string console_summary(const Options& options, const RequestSet& requests,
                            const RunResult& result) {
  const Stats& s = result.stats;
  const double secs = result.elapsed_s;
  std::string out;
  char line[256];
  std::snprintf(line, sizeof line, "Running %s test @ %s\n",
                format_duration_ns(options.duration_ns).c_str(), options.url.c_str());
  out += line;
  std::snprintf(
      line, sizeof line, "  %d threads and %d connections, %s%s loop, %s%s%s\n", options.threads,
      options.connections,
      options.h2 ? (std::string(protocol_name(options)) + " with " +
                    std::to_string(options.streams) + " streams each, ")
                       .c_str()
                 : "",
      options.rate > 0 ? "open" : "closed", result.io,
      options.close ? ", new connection per request" : "",
      options.warmup_ns ? (", warm-up " + format_duration_ns(options.warmup_ns)).c_str() : "");
  out += line;
  std::snprintf(line, sizeof line, "  Latency     mean %s  stdev %s  max %s\n",
                format_duration_ns(s.latency.mean()).c_str(),
                format_duration_ns(s.latency.stdev()).c_str(),
                format_duration_ns(static_cast<double>(s.latency.max())).c_str());
  out += line;
  out += "  Latency distribution\n";
  for (const auto& p : kPercentiles) {
    std::snprintf(line, sizeof line, "    %7s  %s\n", p.label,
                  format_duration_ns(static_cast<double>(s.latency.percentile(p.p))).c_str());
    out += line;
  }
  std::snprintf(line, sizeof line, "  %llu requests in %.2fs, %s read\n",
                static_cast<unsigned long long>(s.responses), secs,
                format_bytes(static_cast<double>(s.bytes_read)).c_str());
  out += line;
  if (s.error_total() > 0) {
    out += "  Errors:";
    for (int e = 0; e < kErrorClassCount; ++e) {
      std::snprintf(line, sizeof line, " %s %llu", std::string(kErrorClassNames[e]).c_str(),
                    static_cast<unsigned long long>(s.errors[e]));
      out += line;
    }
    out += "\n";
  }
  std::uint64_t non_2xx = 0;
  for (int c = 0; c < kStatusSlots; ++c)
    if (c < 200 || c >= 400) non_2xx += s.status[c];
  if (non_2xx) {
    std::snprintf(line, sizeof line, "  Non-2xx or 3xx responses: %llu\n",
                  static_cast<unsigned long long>(non_2xx));
    out += line;
  }
  if (s.handshakes_full + s.handshakes_resumed > 0) {
    std::snprintf(line, sizeof line, "  TLS handshakes: %llu full, %llu resumed (%.1f/s)\n",
                  static_cast<unsigned long long>(s.handshakes_full),
                  static_cast<unsigned long long>(s.handshakes_resumed),
                  rate(s.handshakes_full + s.handshakes_resumed, secs));
    out += line;
  }
  if (options.h2) {
    std::snprintf(
        line, sizeof line,
        "  HTTP/2: %llu streams, at most %u at once on a connection (server allows %s), "
        "%llu sent again, %llu RST_STREAM, %llu GOAWAY received\n",
        static_cast<unsigned long long>(s.h2.streams), s.h2.max_concurrent,
        s.h2.server_max_streams ? std::to_string(s.h2.server_max_streams).c_str() : "any number",
        static_cast<unsigned long long>(s.h2.retried),
        static_cast<unsigned long long>(sum(s.h2.rst_stream)),
        static_cast<unsigned long long>(sum(s.h2.goaway)));
    out += line;
  }
  if (!options.count_header.empty()) {
    out += "  " + options.count_header + ":";
    const HeaderCounts& hc = s.header_counts;
    for (int i = 0; i < hc.values(); ++i) {
      if (hc.count_of(i) == 0) continue;
      std::snprintf(line, sizeof line, " %llu %s,", static_cast<unsigned long long>(hc.count_of(i)),
                    hc.value(i).c_str());
      out += line;
    }
    if (hc.count_of(HeaderCounts::kOther) > 0) {
      std::snprintf(line, sizeof line, " %llu other values,",
                    static_cast<unsigned long long>(hc.count_of(HeaderCounts::kOther)));
      out += line;
    }
    std::snprintf(line, sizeof line, " %llu without it\n",
                  static_cast<unsigned long long>(hc.count_of(HeaderCounts::kAbsent)));
    out += line;
  }
  const auto tmpls = requests.templates();
  if (tmpls.size() > 1 || tmpls[0].expect_status) {
    for (std::size_t i = 0; i < tmpls.size(); ++i) {
      const TemplateStats& t = s.templates[i];
      std::snprintf(
          line, sizeof line,
          "  %-20s %10llu responses  %10llu as expected  %8llu unexpected  %6llu errors\n",
          tmpls[i].name.c_str(), static_cast<unsigned long long>(t.responses),
          static_cast<unsigned long long>(t.as_expected),
          static_cast<unsigned long long>(t.unexpected), static_cast<unsigned long long>(t.errors));
      out += line;
    }
  }
  std::snprintf(line, sizeof line, "Requests/sec: %12.2f\n", rate(s.responses, secs));
  out += line;
  if (options.rate > 0) {
    std::snprintf(line, sizeof line, "Offered rate: %12.2f  (send lag p50 %s, p99 %s, max %s)\n",
                  options.rate,
                  format_duration_ns(static_cast<double>(s.send_lag.percentile(50))).c_str(),
                  format_duration_ns(static_cast<double>(s.send_lag.percentile(99))).c_str(),
                  format_duration_ns(static_cast<double>(s.send_lag.max())).c_str());
    out += line;
    std::snprintf(line, sizeof line, "Service time: p50 %s, p99 %s (from the actual send)\n",
                  format_duration_ns(static_cast<double>(s.service.percentile(50))).c_str(),
                  format_duration_ns(static_cast<double>(s.service.percentile(99))).c_str());
    out += line;
  }
  std::snprintf(line, sizeof line, "Transfer/sec: %12s\n",
                format_bytes(rate(s.bytes_read, secs)).c_str());
  out += line;
  const Verdict v = judge(options, result);
  for (const std::string& r : v.reasons) out += "INVALID: " + r + "\n";
  return out;
}

}  // namespace gatebench::load
