#include "macro/driver/results/load_merge.hpp"

#include <algorithm>
#include <cmath>
#include <map>

#include "macro/driver/results/load_result.hpp"

namespace gatebench::macro {

using nlohmann::json;

namespace {

double num(const json& j, const char* key, double fallback = 0) {
  if (!j.is_object() || !j.contains(key) || !j[key].is_number()) return fallback;
  return j[key].get<double>();
}

uint64_t count(const json& j, const char* key) {
  if (!j.is_object() || !j.contains(key) || !j[key].is_number()) return 0;
  return j[key].is_number_unsigned() ? j[key].get<uint64_t>()
                                     : static_cast<uint64_t>(std::llround(j[key].get<double>()));
}

// Members that are counts in every part (status codes, error classes, h2 codes): summed.
json sum_objects(const std::vector<const json*>& objects) {
  json out = json::object();
  for (const json* o : objects) {
    if (o == nullptr || !o->is_object()) continue;
    for (const auto& [k, v] : o->items())
      if (v.is_number()) out[k] = count(out, k.c_str()) + count(*o, k.c_str());
  }
  return out;
}

// A member, or null when absent (operator[] of a const json must not be asked for one).
const json& at(const json& doc, const char* key) {
  static const json kNull;
  return doc.is_object() && doc.contains(key) ? doc[key] : kNull;
}

std::vector<const json*> member_of(const std::vector<LoadPart>& parts, const char* key) {
  std::vector<const json*> out;
  for (const auto& p : parts) out.push_back(&at(p.doc, key));
  return out;
}

json max_of_percentiles(const std::vector<const json*>& objects) {
  // A part reports only percentiles here (no histogram): the largest of them, never a mean.
  json out = nullptr;
  for (const json* o : objects) {
    if (o == nullptr || !o->is_object()) continue;
    if (out.is_null()) out = json::object();
    for (const auto& [k, v] : o->items())
      if (v.is_number()) out[k] = std::max(num(out, k.c_str(), 0), v.get<double>());
  }
  return out;
}

}  // namespace

uint64_t histogram_percentile(const std::vector<Bucket>& buckets, double p, uint64_t min_ns,
                              uint64_t max_ns) {
  uint64_t total = 0;
  for (const auto& b : buckets) total += b.count;
  if (total == 0) return 0;
  p = std::clamp(p, 0.0, 100.0);
  auto rank = static_cast<uint64_t>(std::ceil(p / 100.0 * static_cast<double>(total)));
  rank = std::clamp<uint64_t>(rank, 1, total);
  uint64_t seen = 0;
  for (const auto& b : buckets) {
    seen += b.count;
    if (seen >= rank) {
      const uint64_t mid = b.lower + (b.upper - b.lower - 1) / 2;
      return std::clamp(mid, min_ns, std::max(min_ns, max_ns));
    }
  }
  return max_ns;
}

json merge_load_results(const std::vector<LoadPart>& parts) {
  if (parts.empty()) throw LoadParseError("no load results to merge");
  for (const auto& p : parts)
    if (!p.doc.is_object() || p.doc.value("schema", "") != "gatebench.load/1")
      throw LoadParseError(p.host + ": not a gatebench.load/1 result");
  if (parts.size() == 1) return parts.front().doc;

  json out = parts.front().doc;
  json hosts = json::array();
  bool valid = true;
  json reasons = json::array();
  double elapsed = 0, rps = 0;
  uint64_t requests = 0, issued = 0, missed = 0, opened = 0;
  std::map<std::pair<uint64_t, uint64_t>, uint64_t> bins;
  uint64_t hist_count = 0;
  int sub_bits = -1;
  double min_us = -1, max_us = 0, sum_us = 0;
  // Pooled variance: each part's stdev and mean around the merged mean.
  double sum_sq = 0;
  for (const auto& p : parts) {
    const json& d = p.doc;
    const uint64_t n = count(d, "requests");
    hosts.push_back({{"host", p.host},
                     {"requests", n},
                     {"requests_per_s", num(d, "requests_per_s")},
                     {"elapsed_s", num(d, "elapsed_s")},
                     {"valid", d.value("valid", true)}});
    if (!d.value("valid", true)) valid = false;
    if (d.contains("invalid_reasons") && d["invalid_reasons"].is_array())
      for (const auto& r : d["invalid_reasons"])
        if (r.is_string()) reasons.push_back(p.host + ": " + r.get<std::string>());
    elapsed = std::max(elapsed, num(d, "elapsed_s"));
    rps += num(d, "requests_per_s");
    requests += n;
    issued += count(d, "issued");
    missed += count(d, "missed");
    opened += count(d, "connections_opened");
    const json& lat = at(d, "latency_us");
    if (n > 0 && lat.is_object()) {
      const double mean = num(lat, "mean");
      min_us = min_us < 0 ? num(lat, "min") : std::min(min_us, num(lat, "min"));
      max_us = std::max(max_us, num(lat, "max"));
      sum_us += mean * static_cast<double>(n);
    }
    const json& h = at(d, "latency_histogram");
    if (!h.is_object()) throw LoadParseError(p.host + ": no latency_histogram to merge");
    const int bits = static_cast<int>(num(h, "sub_bucket_bits", -1));
    if (sub_bits >= 0 && bits != sub_bits)
      throw LoadParseError(p.host + ": latency_histogram.sub_bucket_bits " + std::to_string(bits) +
                           ", the other hosts' " + std::to_string(sub_bits));
    sub_bits = bits;
    hist_count += count(h, "count");
    if (h.contains("buckets") && h["buckets"].is_array())
      for (const auto& b : h["buckets"]) {
        if (!b.is_array() || b.size() != 3 || !b[0].is_number_unsigned() ||
            !b[1].is_number_unsigned() || !b[2].is_number_unsigned() ||
            b[1].get<uint64_t>() <= b[0].get<uint64_t>())
          throw LoadParseError(p.host + ": latency_histogram.buckets: expected [lower, upper, n]");
        bins[{b[0].get<uint64_t>(), b[1].get<uint64_t>()}] += b[2].get<uint64_t>();
      }
  }
  const double mean_us = requests > 0 ? sum_us / static_cast<double>(requests) : 0;
  for (const auto& p : parts) {
    const uint64_t n = count(p.doc, "requests");
    const json& lat = at(p.doc, "latency_us");
    if (n == 0 || !lat.is_object()) continue;
    const double sd = num(lat, "stdev"), m = num(lat, "mean");
    sum_sq += static_cast<double>(n) * (sd * sd + (m - mean_us) * (m - mean_us));
  }

  std::vector<Bucket> buckets;
  json bucket_json = json::array();
  for (const auto& [bounds, n] : bins) {
    buckets.push_back({bounds.first, bounds.second, n});
    bucket_json.push_back({bounds.first, bounds.second, n});
  }
  const auto min_ns = static_cast<uint64_t>(std::llround(std::max(0.0, min_us) * 1e3));
  const auto max_ns = static_cast<uint64_t>(std::llround(max_us * 1e3));
  json lat = {{"min", std::max(0.0, min_us)},
              {"mean", mean_us},
              {"stdev", requests > 0 ? std::sqrt(sum_sq / static_cast<double>(requests)) : 0.0},
              {"max", max_us}};
  for (const auto& [key, p] : std::vector<std::pair<const char*, double>>{
           {"p50", 50}, {"p75", 75}, {"p90", 90}, {"p99", 99}, {"p999", 99.9}, {"p9999", 99.99}})
    lat[key] = static_cast<double>(histogram_percentile(buckets, p, min_ns, max_ns)) / 1e3;

  out["valid"] = valid;
  out["invalid_reasons"] = reasons;
  out["elapsed_s"] = elapsed;
  // Each host's window is on its own monotonic clock: the driver places the merged one.
  out["window"] = nullptr;
  out["requests"] = requests;
  out["issued"] = issued;
  out["requests_per_s"] = rps;
  out["missed"] = missed;
  out["connections_opened"] = opened;
  out["latency_us"] = lat;
  out["latency_histogram"] = {{"unit", "ns"},
                              {"sub_bucket_bits", sub_bits},
                              {"count", hist_count},
                              {"buckets", bucket_json}};
  out["status"] = sum_objects(member_of(parts, "status"));
  out["errors"] = sum_objects(member_of(parts, "errors"));
  json bytes = sum_objects(member_of(parts, "bytes"));
  if (!bytes.empty()) out["bytes"] = bytes;
  json handshakes = sum_objects(member_of(parts, "handshakes"));
  if (!handshakes.empty()) out["handshakes"] = handshakes;
  if (!out["offered_rate"].is_null()) {
    double offered = 0, achieved = 0, lag_max = 0;
    for (const auto& p : parts) {
      offered += num(p.doc, "offered_rate");
      achieved += num(p.doc, "achieved_rate");
      lag_max = std::max(lag_max, num(p.doc, "max_send_lag_us"));
    }
    out["offered_rate"] = offered;
    out["achieved_rate"] = achieved;
    out["max_send_lag_us"] = lag_max;
    out["send_lag_us"] = max_of_percentiles(member_of(parts, "send_lag_us"));
    out["service_time_us"] = max_of_percentiles(member_of(parts, "service_time_us"));
  }
  // Seconds since each host's synchronised start: second t of every host is the same second.
  std::map<uint64_t, json> seconds;
  for (const auto& p : parts) {
    if (!at(p.doc, "series").is_array()) continue;
    for (const auto& s : at(p.doc, "series")) {
      const auto t = count(s, "t");
      json& m = seconds[t];
      if (m.is_null())
        m = {{"t", t},      {"requests", 0},   {"rps", 0.0},
             {"errors", 0}, {"handshakes", 0}, {"p99_us", 0.0}};
      m["requests"] = count(m, "requests") + count(s, "requests");
      m["rps"] = num(m, "rps") + num(s, "rps");
      m["errors"] = count(m, "errors") + count(s, "errors");
      m["handshakes"] = count(m, "handshakes") + count(s, "handshakes");
      // No per-second histograms in the results: the slowest host's p99 of that second.
      m["p99_us"] = std::max(num(m, "p99_us"), num(s, "p99_us"));
    }
  }
  json series = json::array();
  for (auto& [t, s] : seconds) series.push_back(std::move(s));
  out["series"] = series;
  // Templates in the same order on every host (the same request mix).
  if (out.contains("templates") && out["templates"].is_array()) {
    json& templates = out["templates"];
    for (std::size_t i = 0; i < templates.size(); ++i) {
      json& t = templates[i];
      std::vector<const json*> statuses;
      for (const char* key : {"responses", "as_expected", "unexpected", "errors"}) t[key] = 0;
      for (const auto& p : parts) {
        const json& pt = at(p.doc, "templates");
        if (!pt.is_array() || i >= pt.size() || pt[i].value("name", "") != t.value("name", ""))
          throw LoadParseError(p.host + ": templates differ from the other hosts'");
        for (const char* key : {"responses", "as_expected", "unexpected", "errors"})
          t[key] = count(t, key) + count(pt[i], key);
        statuses.push_back(&at(pt[i], "status"));
      }
      t["status"] = sum_objects(statuses);
    }
  }
  if (out.contains("h2") && out["h2"].is_object()) {
    json& h2 = out["h2"];
    std::vector<const json*> all;
    for (const auto& p : parts) all.push_back(&at(p.doc, "h2"));
    for (const char* key : {"streams", "retried", "nghttp2_allocations"}) {
      uint64_t total = 0;
      for (const json* h : all) total += h != nullptr ? count(*h, key) : 0;
      h2[key] = total;
    }
    for (const char* key : {"rst_stream", "goaway"}) {
      std::vector<const json*> objects;
      for (const json* h : all) objects.push_back(h != nullptr ? &at(*h, key) : nullptr);
      h2[key] = sum_objects(objects);
    }
  }
  // --count-header: each header's values summed over the hosts.
  if (out.contains("header_counts") && out["header_counts"].is_object()) {
    json merged = json::object();
    for (const auto& [name, values] : out["header_counts"].items()) {
      std::vector<const json*> objects;
      for (const auto& p : parts) {
        const json& counts = at(p.doc, "header_counts");
        objects.push_back(counts.is_object() && counts.contains(name) ? &counts[name] : nullptr);
      }
      merged[name] = sum_objects(objects);
    }
    out["header_counts"] = merged;
  }
  if (out.contains("config") && out["config"].is_object()) {
    int threads = 0, connections = 0;
    for (const auto& p : parts) {
      threads += static_cast<int>(num(at(p.doc, "config"), "threads"));
      connections += static_cast<int>(num(at(p.doc, "config"), "connections"));
    }
    out["config"]["threads"] = threads;
    out["config"]["connections"] = connections;
    if (!out["config"]["rate"].is_null()) out["config"]["rate"] = out["offered_rate"];
  }
  out["merged_from"] = hosts;
  return out;
}

}  // namespace gatebench::macro
