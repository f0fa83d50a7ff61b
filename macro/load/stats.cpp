#include "macro/load/stats.hpp"

#include <algorithm>

namespace gatebench::load {

std::uint64_t Stats::error_total() const {
  std::uint64_t total = 0;
  for (std::uint64_t e : errors) total += e;
  return total;
}

void H2Stats::merge(const H2Stats& other) {
  streams += other.streams;
  for (int i = 0; i < kH2ErrorCodes; ++i) {
    rst_stream[i] += other.rst_stream[i];
    goaway[i] += other.goaway[i];
  }
  retried += other.retried;
  max_concurrent = std::max(max_concurrent, other.max_concurrent);
  if (other.server_max_streams != 0 &&
      (server_max_streams == 0 || other.server_max_streams < server_max_streams))
    server_max_streams = other.server_max_streams;
  nghttp2_allocations += other.nghttp2_allocations;
  if (not_h2.empty()) not_h2 = other.not_h2;
}

void Stats::merge(const Stats& other) {
  latency.merge(other.latency);
  service.merge(other.service);
  for (std::size_t i = 0; i < other.series.size(); ++i) {
    SecondStats& s = second(i);
    const SecondStats& o = other.series[i];
    s.requests += o.requests;
    s.errors += o.errors;
    s.handshakes += o.handshakes;
    s.latency.merge(o.latency);
  }
  if (templates.size() < other.templates.size()) templates.resize(other.templates.size());
  for (std::size_t i = 0; i < other.templates.size(); ++i) {
    TemplateStats& t = templates[i];
    const TemplateStats& o = other.templates[i];
    t.responses += o.responses;
    t.as_expected += o.as_expected;
    t.unexpected += o.unexpected;
    t.errors += o.errors;
    for (int s = 0; s < kStatusSlots; ++s) t.status[s] += o.status[s];
  }
  for (int s = 0; s < kStatusSlots; ++s) status[s] += other.status[s];
  for (int e = 0; e < kErrorClassCount; ++e) errors[e] += other.errors[e];
  responses += other.responses;
  issued += other.issued;
  bytes_read += other.bytes_read;
  bytes_written += other.bytes_written;
  connects += other.connects;
  handshakes_full += other.handshakes_full;
  handshakes_resumed += other.handshakes_resumed;
  missed += other.missed;
  send_lag.merge(other.send_lag);
  last_completion_ns = std::max(last_completion_ns, other.last_completion_ns);
  h2.merge(other.h2);
  header_counts.merge(other.header_counts);
}

}  // namespace gatebench::load
