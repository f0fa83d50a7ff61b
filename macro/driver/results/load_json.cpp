#include "macro/driver/results/load_json.hpp"

#include <algorithm>
#include <cstdlib>

#include "macro/common/load_report.hpp"
#include "macro/common/usage_error.hpp"

namespace gatebench::macro {

namespace {

uint64_t error_statuses(const common::Counts& status) {
  uint64_t n = 0;
  for (const auto& [code, count] : status)
    if (std::atoi(code.c_str()) >= 400) n += count;
  return n;
}

uint64_t total(const common::Counts& counts) {
  uint64_t n = 0;
  for (const auto& [name, count] : counts) n += count;
  return n;
}

bool has(const common::Counts& counts, std::string_view name) {
  for (const auto& [key, count] : counts)
    if (key == name) return true;
  return false;
}

LoadResult load_result(const common::LoadReport& report, std::string* invalid_reasons) {
  LoadResult r;
  r.rps = report.requests_per_s;
  r.duration_s = report.elapsed_s;
  r.requests = report.requests;
  const common::LatencySummary& lat = report.latency_us;
  r.p50_us = lat.percentile("p50");
  r.p90_us = lat.percentile("p90");
  r.p99_us = lat.percentile("p99");
  r.p999_us = lat.percentile("p999");
  if (!lat.percentiles.empty()) r.mean_us = lat.mean;
  r.errors = report.errors_total;
  for (const common::TemplateReport& t : report.templates) {
    uint64_t unexpected = t.unexpected;
    uint64_t as_expected = t.as_expected;
    if (!t.expect_status) {
      const uint64_t bad = error_statuses(t.status);
      unexpected += bad;
      as_expected -= std::min(as_expected, bad);
    }
    r.errors += unexpected;
    r.counts[t.name + ".as_expected"] = static_cast<double>(as_expected);
    r.counts[t.name + ".unexpected"] = static_cast<double>(unexpected);
  }
  if (report.handshakes) {
    r.counts["handshakes_per_s"] = report.handshakes->per_s;
    r.handshakes_full = report.handshakes->full;
    r.handshakes_resumed = report.handshakes->resumed;
    r.counts["handshakes_full"] = static_cast<double>(report.handshakes->full);
    r.counts["handshakes_resumed"] = static_cast<double>(report.handshakes->resumed);
  }
  if (report.config.threads >= 1) r.threads = report.config.threads;
  r.closed_loop = report.config.mode != "open";
  r.new_connections = report.config.close;
  r.counts["connections_opened"] = static_cast<double>(report.connections_opened);
  r.counts["missed"] = static_cast<double>(report.missed);
  // HTTP/2 runs (gatebench-load --h2): streams reset by the server, GOAWAY frames and refused
  // requests sent again, as counts, which macro.json adds up over rounds with the others.
  if (report.h2) {
    r.counts["h2_rst_stream"] = static_cast<double>(total(report.h2->rst_stream));
    r.counts["h2_goaway"] = static_cast<double>(total(report.h2->goaway));
    r.counts["h2_retried"] = static_cast<double>(report.h2->retried);
    if (has(report.errors, "stream"))
      r.counts["h2_stream_errors"] = static_cast<double>(common::count_of(report.errors, "stream"));
  }
  for (const auto& [name, values] : report.header_counts)
    for (const auto& [value, count] : values) r.header_counts[name][value] = count;
  if (report.open_loop) r.counts["offered_rate"] = report.open_loop->offered_rate;
  if (report.window) {
    r.window_start_ns = report.window->start_ns;
    r.window_end_ns = report.window->end_ns;
  }
  for (const common::SecondReport& s : report.series)
    r.per_second.push_back(
        {static_cast<double>(s.t), s.rps, s.p99_us, static_cast<double>(s.errors)});
  if (!report.valid) {
    r.counts["invalid"] = 1;
    if (invalid_reasons != nullptr)
      for (const std::string& reason : report.invalid_reasons) {
        if (!invalid_reasons->empty()) *invalid_reasons += "; ";
        *invalid_reasons += reason;
      }
  }
  return r;
}

}  // namespace

LoadResult parse_load_json(const std::string& text, const std::string& source,
                           std::string* invalid_reasons) {
  // Output of the load generator, not the user's input: a scenario failure, not exit 2.
  try {
    return load_result(common::parse_load_report(text, source), invalid_reasons);
  } catch (const common::UsageError& e) {
    throw LoadParseError(e.what());
  }
}

}  // namespace gatebench::macro
