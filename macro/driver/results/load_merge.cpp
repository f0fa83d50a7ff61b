#include "macro/driver/results/load_merge.hpp"

#include <algorithm>
#include <cmath>
#include <map>

#include "macro/driver/results/load_result.hpp"

namespace gatebench::macro {

namespace {

using common::Counts;
using common::LoadReport;

// A part reports only percentiles here (no histogram): the largest of them, never a mean.
void max_of(common::Latencies& into, const common::Latencies& part) {
  // Not a structured binding: clang 14 (the fuzz build) cannot capture one in a lambda.
  for (const auto& entry : part) {
    const auto& key = entry.first;
    auto it = std::find_if(into.begin(), into.end(), [&](const auto& e) { return e.first == key; });
    if (it == into.end())
      into.emplace_back(key, entry.second);
    else
      it->second = std::max(it->second, entry.second);
  }
}

void merge_latency(LoadReport& out, const std::vector<LoadPart>& parts) {
  std::map<std::pair<uint64_t, uint64_t>, uint64_t> bins;
  uint64_t hist_count = 0;
  int sub_bits = -1;
  double min_us = -1, max_us = 0, sum_us = 0;
  for (const auto& p : parts) {
    const LoadReport& d = p.report;
    if (d.requests > 0) {
      min_us = min_us < 0 ? d.latency_us.min : std::min(min_us, d.latency_us.min);
      max_us = std::max(max_us, d.latency_us.max);
      sum_us += d.latency_us.mean * static_cast<double>(d.requests);
    }
    const int bits = d.latency_histogram.sub_bucket_bits;
    if (sub_bits >= 0 && bits != sub_bits)
      throw LoadParseError(p.host + ": latency_histogram.sub_bucket_bits " + std::to_string(bits) +
                           ", the other hosts' " + std::to_string(sub_bits));
    sub_bits = bits;
    hist_count += d.latency_histogram.count;
    for (const auto& b : d.latency_histogram.buckets) bins[{b.lower_ns, b.upper_ns}] += b.count;
  }
  const double mean_us = out.requests > 0 ? sum_us / static_cast<double>(out.requests) : 0;
  // Pooled variance: each part's stdev and mean around the merged mean.
  double sum_sq = 0;
  for (const auto& p : parts) {
    const LoadReport& d = p.report;
    if (d.requests == 0) continue;
    const double sd = d.latency_us.stdev, m = d.latency_us.mean;
    sum_sq += static_cast<double>(d.requests) * (sd * sd + (m - mean_us) * (m - mean_us));
  }
  out.latency_histogram.sub_bucket_bits = sub_bits;
  out.latency_histogram.count = hist_count;
  out.latency_histogram.buckets.clear();
  for (const auto& [bounds, n] : bins)
    out.latency_histogram.buckets.push_back({bounds.first, bounds.second, n});
  const std::vector<Bucket>& buckets = out.latency_histogram.buckets;
  const auto min_ns = static_cast<uint64_t>(std::llround(std::max(0.0, min_us) * 1e3));
  const auto max_ns = static_cast<uint64_t>(std::llround(max_us * 1e3));
  out.latency_us = {std::max(0.0, min_us),
                    mean_us,
                    out.requests > 0 ? std::sqrt(sum_sq / static_cast<double>(out.requests)) : 0.0,
                    max_us,
                    {}};
  for (const auto& [key, p] : std::vector<std::pair<const char*, double>>{
           {"p50", 50}, {"p75", 75}, {"p90", 90}, {"p99", 99}, {"p999", 99.9}, {"p9999", 99.99}})
    out.latency_us.percentiles.emplace_back(
        key, static_cast<double>(histogram_percentile(buckets, p, min_ns, max_ns)) / 1e3);
}

// Seconds since each host's synchronised start: second t of every host is the same second.
std::vector<common::SecondReport> merge_series(const std::vector<LoadPart>& parts) {
  std::map<uint64_t, common::SecondReport> seconds;
  for (const auto& p : parts)
    for (const auto& s : p.report.series) {
      common::SecondReport& m = seconds[s.t];
      m.t = s.t;
      m.requests += s.requests;
      m.rps += s.rps;
      m.errors += s.errors;
      m.handshakes += s.handshakes;
      // No per-second histograms in the results: the slowest host's p99 of that second.
      if (s.p99_us) m.p99_us = std::max(m.p99_us.value_or(0), *s.p99_us);
    }
  std::vector<common::SecondReport> out;
  for (auto& [t, s] : seconds) out.push_back(s);
  return out;
}

// Templates in the same order on every host (the same request mix).
void merge_templates(LoadReport& out, const std::vector<LoadPart>& parts) {
  for (std::size_t i = 0; i < out.templates.size(); ++i) {
    common::TemplateReport& t = out.templates[i];
    t.responses = t.as_expected = t.unexpected = t.errors = 0;
    t.status.clear();
    for (const auto& p : parts) {
      const auto& pt = p.report.templates;
      if (i >= pt.size() || pt[i].name != t.name)
        throw LoadParseError(p.host + ": templates differ from the other hosts'");
      t.responses += pt[i].responses;
      t.as_expected += pt[i].as_expected;
      t.unexpected += pt[i].unexpected;
      t.errors += pt[i].errors;
      common::add_counts(t.status, pt[i].status);
    }
  }
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
      const uint64_t mid = b.lower_ns + (b.upper_ns - b.lower_ns - 1) / 2;
      return std::clamp(mid, min_ns, std::max(min_ns, max_ns));
    }
  }
  return max_ns;
}

LoadReport merge_load_results(const std::vector<LoadPart>& parts) {
  if (parts.empty()) throw LoadParseError("no load results to merge");
  if (parts.size() == 1) return parts.front().report;

  LoadReport out = parts.front().report;
  out.valid = true;
  out.invalid_reasons.clear();
  out.elapsed_s = out.requests_per_s = 0;
  out.requests = out.issued = out.missed = out.connections_opened = 0;
  out.bytes_read = out.bytes_written = 0;
  out.bytes_read_per_s = 0;
  if (out.handshakes) *out.handshakes = {};
  out.status.clear();
  out.errors.clear();
  out.errors_total = 0;
  out.config.threads = out.config.connections = 0;
  for (auto& [name, values] : out.header_counts) values.clear();
  if (out.h2) {
    out.h2->streams = out.h2->retried = out.h2->nghttp2_allocations = 0;
    out.h2->rst_stream.clear();
    out.h2->goaway.clear();
  }
  if (out.open_loop) *out.open_loop = {};
  for (const auto& p : parts) {
    const LoadReport& d = p.report;
    out.merged_from.push_back({p.host, d.requests, d.requests_per_s, d.elapsed_s, d.valid});
    if (!d.valid) out.valid = false;
    for (const auto& r : d.invalid_reasons) out.invalid_reasons.push_back(p.host + ": " + r);
    out.elapsed_s = std::max(out.elapsed_s, d.elapsed_s);
    out.requests_per_s += d.requests_per_s;
    out.requests += d.requests;
    out.issued += d.issued;
    out.missed += d.missed;
    out.connections_opened += d.connections_opened;
    out.bytes_read += d.bytes_read;
    out.bytes_written += d.bytes_written;
    out.bytes_read_per_s += d.bytes_read_per_s;
    if (out.handshakes && d.handshakes) {
      out.handshakes->full += d.handshakes->full;
      out.handshakes->resumed += d.handshakes->resumed;
      out.handshakes->per_s += d.handshakes->per_s;
    }
    common::add_counts(out.status, d.status);
    common::add_counts(out.errors, d.errors);
    out.errors_total += d.errors_total;
    out.config.threads += d.config.threads;
    out.config.connections += d.config.connections;
    if (out.open_loop && d.open_loop) {
      out.open_loop->offered_rate += d.open_loop->offered_rate;
      out.open_loop->achieved_rate += d.open_loop->achieved_rate;
      out.open_loop->max_send_lag_us =
          std::max(out.open_loop->max_send_lag_us, d.open_loop->max_send_lag_us);
      max_of(out.open_loop->send_lag_us, d.open_loop->send_lag_us);
      max_of(out.open_loop->service_time_us, d.open_loop->service_time_us);
    }
    if (out.h2 && d.h2) {
      out.h2->streams += d.h2->streams;
      out.h2->retried += d.h2->retried;
      out.h2->nghttp2_allocations += d.h2->nghttp2_allocations;
      common::add_counts(out.h2->rst_stream, d.h2->rst_stream);
      common::add_counts(out.h2->goaway, d.h2->goaway);
    }
    // --count-header: each header's values summed over the hosts.
    for (auto& [name, values] : out.header_counts)
      for (const auto& [part_name, part_values] : d.header_counts)
        if (part_name == name) common::add_counts(values, part_values);
  }
  if (out.open_loop) out.config.rate = out.open_loop->offered_rate;
  // Each host's window is on its own monotonic clock: the driver places the merged one.
  out.window.reset();
  merge_latency(out, parts);
  out.series = merge_series(parts);
  merge_templates(out, parts);
  return out;
}

}  // namespace gatebench::macro
