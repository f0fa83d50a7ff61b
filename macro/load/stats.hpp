// What one worker thread measured; merged over threads once the run is over.
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <string_view>
#include <vector>

#include "macro/load/histogram.hpp"

namespace gatebench::load {

enum class ErrorClass : int { kConnect, kRead, kWrite, kTimeout, kTls, kProtocol };
inline constexpr int kErrorClassCount = 6;
inline constexpr std::array<std::string_view, kErrorClassCount> kErrorClassNames = {
    "connect", "read", "write", "timeout", "tls", "protocol"};

inline constexpr int kStatusSlots = 600;  // status codes 100..599; others are protocol errors

struct SecondStats {
  std::uint64_t requests = 0;  // responses to requests started in this second
  std::uint64_t errors = 0;
  std::uint64_t handshakes = 0;
  Histogram latency;
};

struct TemplateStats {
  std::uint64_t responses = 0;
  std::uint64_t as_expected = 0;
  std::uint64_t unexpected = 0;
  std::uint64_t errors = 0;
  std::vector<std::uint64_t> status = std::vector<std::uint64_t>(kStatusSlots, 0);
};

struct Stats {
  Histogram latency;
  std::deque<SecondStats> series;
  std::vector<TemplateStats> templates;
  std::array<std::uint64_t, kStatusSlots> status{};
  std::array<std::uint64_t, kErrorClassCount> errors{};
  std::uint64_t responses = 0;
  std::uint64_t issued = 0;  // measured requests sent (or scheduled and failed before sending)
  std::uint64_t bytes_read = 0;
  std::uint64_t bytes_written = 0;
  std::uint64_t connects = 0;  // TCP connections established in the measured window
  std::uint64_t handshakes_full = 0;
  std::uint64_t handshakes_resumed = 0;
  // Open loop: requests whose intended time fell in the window but that were never sent.
  std::uint64_t missed = 0;
  // Open loop: how late each request was handed to a connection after its intended time (the
  // generator's own scheduling delay, or waiting for a free connection).
  Histogram send_lag;
  // Open loop: from hand-over to the connection to the response, i.e. latency without the
  // generator's own lag (what wrk2 calls uncorrected latency; wrk's only kind).
  Histogram service;
  std::uint64_t last_completion_ns = 0;  // relative to the start of the measured window

  SecondStats& second(std::size_t index) {
    while (series.size() <= index) series.emplace_back();
    return series[index];
  }
  std::uint64_t error_total() const;
  void merge(const Stats& other);
};

}  // namespace gatebench::load
