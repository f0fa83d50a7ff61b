#include "macro/load/stats.hpp"

#include <algorithm>

namespace gatebench::load {

std::uint64_t Stats::error_total() const {
  std::uint64_t total = 0;
  for (std::uint64_t e : errors) total += e;
  return total;
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
}

}  // namespace gatebench::load
