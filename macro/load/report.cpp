#include "macro/load/report.hpp"

#include <cstdio>
#include <string>

#include "macro/common/build_info.hpp"

namespace gatebench::load {
namespace {

// Ordered, so the file reads in the order docs/load.md documents.

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

common::Counts status_counts(const std::uint64_t* counts, int slots) {
  common::Counts out;
  for (int s = 0; s < slots; ++s)
    if (counts[s]) out.emplace_back(std::to_string(s), counts[s]);
  return out;
}

const char* protocol_name(const Options& options) {
  if (!options.h2) return "http/1.1";
  return options.url.starts_with("https://") ? "h2" : "h2c";
}

common::Counts code_counts(const std::array<std::uint64_t, kH2ErrorCodes>& counts) {
  common::Counts out;
  for (int i = 0; i < kH2ErrorCodes; ++i)
    if (counts[i]) out.emplace_back(std::string(kH2ErrorCodeNames[i]), counts[i]);
  return out;
}

std::uint64_t sum(const std::array<std::uint64_t, kH2ErrorCodes>& counts) {
  std::uint64_t total = 0;
  for (std::uint64_t n : counts) total += n;
  return total;
}

common::H2Report h2_report(const Options& options, const H2Stats& h2) {
  common::H2Report r;
  r.streams_per_connection = options.streams;
  if (h2.server_max_streams) r.server_max_concurrent_streams = h2.server_max_streams;
  r.max_concurrent_streams = h2.max_concurrent;
  r.streams = h2.streams;
  r.retried = h2.retried;
  r.rst_stream = code_counts(h2.rst_stream);
  r.goaway = code_counts(h2.goaway);
  r.nghttp2_allocations = h2.nghttp2_allocations;
  r.nghttp2_allocations_per_stream =
      h2.streams ? static_cast<double>(h2.nghttp2_allocations) / h2.streams : 0.0;
  if (!h2.not_h2.empty()) r.not_h2 = h2.not_h2;
  return r;
}

// {"<value>": n, ..., "(other)": n, "(absent)": n}: values in the order they first came;
// "(other)" only when more than HeaderCounts::kMaxValues distinct values came.
common::Counts header_values(const HeaderCounts& counts) {
  common::Counts values;
  for (int i = 0; i < counts.values(); ++i)
    if (counts.count_of(i) > 0) values.emplace_back(counts.value(i), counts.count_of(i));
  if (counts.count_of(HeaderCounts::kOther) > 0)
    values.emplace_back("(other)", counts.count_of(HeaderCounts::kOther));
  values.emplace_back("(absent)", counts.count_of(HeaderCounts::kAbsent));
  return values;
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

common::LoadReport load_report(const Options& options, const RequestSet& requests,
                               const RunResult& result) {
  const Stats& s = result.stats;
  const double secs = result.elapsed_s;
  const Verdict verdict = judge(options, result);
  common::LoadReport r;
  r.tool_version = std::string(build_version());
  common::LoadConfig& c = r.config;
  c.url = options.url;
  c.threads = options.threads;
  c.connections = options.connections;
  c.duration_s = options.duration_ns / 1e9;
  c.warmup_s = options.warmup_ns / 1e9;
  c.mode = options.rate > 0 ? "open" : "closed";
  if (options.rate > 0) c.rate = options.rate;
  if (options.requests_total > 0) c.requests_total = options.requests_total;
  c.close = options.close;
  c.timeout_s = options.timeout_ns / 1e9;
  c.tls = options.url.starts_with("https://");
  c.protocol = protocol_name(options);
  c.streams = options.streams;
  c.tls_resume = options.tls_resume;
  c.io = result.io;
  c.spin_us = result.spin_ns / 1e3;
  c.spin_auto = options.spin_auto;
  c.sched = result.sched;
  c.sched_auto = options.sched == "auto";
  c.headers = options.headers;
  if (!options.requests_path.empty()) c.requests_file = options.requests_path;
  if (options.start_at_unix_ms > 0) c.start_at_unix_ms = options.start_at_unix_ms;
  r.valid = verdict.valid;
  r.invalid_reasons = verdict.reasons;
  r.elapsed_s = secs;
  r.window = common::LoadWindow{result.window_start_ns, result.window_end_ns};
  r.requests = s.responses;
  r.issued = s.issued;
  r.requests_per_s = rate(s.responses, secs);
  if (options.rate > 0) {
    r.missed = s.missed;
    r.open_loop = common::OpenLoopReport{options.rate,
                                         rate(s.responses, secs),
                                         us(s.send_lag.max()),
                                         {{"p50", us(s.send_lag.percentile(50))},
                                          {"p99", us(s.send_lag.percentile(99))},
                                          {"max", us(s.send_lag.max())}},
                                         {{"p50", us(s.service.percentile(50))},
                                          {"p90", us(s.service.percentile(90))},
                                          {"p99", us(s.service.percentile(99))},
                                          {"p999", us(s.service.percentile(99.9))},
                                          {"max", us(s.service.max())}}};
  }
  r.bytes_read = s.bytes_read;
  r.bytes_written = s.bytes_written;
  r.bytes_read_per_s = rate(s.bytes_read, secs);
  r.connections_opened = s.connects;
  r.handshakes = common::HandshakeCounts{s.handshakes_full, s.handshakes_resumed,
                                         rate(s.handshakes_full + s.handshakes_resumed, secs)};
  r.latency_us = {us(s.latency.min()),
                  s.latency.mean() / 1e3,
                  s.latency.stdev() / 1e3,
                  us(s.latency.max()),
                  {}};
  for (const auto& p : kPercentiles)
    r.latency_us.percentiles.emplace_back(p.key, us(s.latency.percentile(p.p)));
  r.latency_histogram.sub_bucket_bits = Histogram::kSubBits;
  r.latency_histogram.count = s.latency.count();
  for (std::size_t i = 0; i < s.latency.bucket_count(); ++i)
    if (s.latency.bucket(i) != 0)
      r.latency_histogram.buckets.push_back({Histogram::lower_bound(i),
                                             Histogram::lower_bound(i) + Histogram::width(i),
                                             s.latency.bucket(i)});
  r.status = status_counts(s.status.data(), kStatusSlots);
  for (int e = 0; e < kErrorClassCount; ++e)
    r.errors.emplace_back(std::string(kErrorClassNames[e]), s.errors[e]);
  r.errors_total = s.error_total();
  for (std::size_t i = 0; i < s.series.size(); ++i) {
    const SecondStats& sec = s.series[i];
    r.series.push_back({i, sec.requests, static_cast<double>(sec.requests),
                        us(sec.latency.percentile(99)), sec.errors, sec.handshakes});
  }
  const auto tmpls = requests.templates();
  for (std::size_t i = 0; i < tmpls.size(); ++i) {
    const TemplateStats& t = i < s.templates.size() ? s.templates[i] : TemplateStats{};
    common::TemplateReport tr;
    tr.name = tmpls[i].name;
    tr.weight = tmpls[i].weight;
    tr.method = tmpls[i].method;
    tr.target = tmpls[i].target;
    if (tmpls[i].expect_status) tr.expect_status = tmpls[i].expect_status;
    tr.responses = t.responses;
    tr.as_expected = t.as_expected;
    tr.unexpected = t.unexpected;
    tr.errors = t.errors;
    tr.status = status_counts(t.status.data(), kStatusSlots);
    r.templates.push_back(std::move(tr));
  }
  if (options.h2) r.h2 = h2_report(options, s.h2);
  if (!options.count_header.empty())
    r.header_counts.emplace_back(options.count_header, header_values(s.header_counts));
  return r;
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
