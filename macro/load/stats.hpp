// What one worker thread measured; merged over threads once the run is over.
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <string>
#include <string_view>
#include <vector>

#include "macro/load/header_count.hpp"
#include "macro/load/histogram.hpp"

namespace gatebench::load {

// kStream: HTTP/2 only, the server reset the stream (RST_STREAM with a code other than
// REFUSED_STREAM, whose requests are sent again).
enum class ErrorClass : int { kConnect, kRead, kWrite, kTimeout, kTls, kProtocol, kStream };
inline constexpr int kErrorClassCount = 7;
inline constexpr std::array<std::string_view, kErrorClassCount> kErrorClassNames = {
    "connect", "read", "write", "timeout", "tls", "protocol", "stream"};

// HTTP/2 error codes (RFC 9113, section 7) by value; anything above the last is "other".
inline constexpr int kH2ErrorCodes = 15;
inline constexpr std::array<std::string_view, kH2ErrorCodes> kH2ErrorCodeNames = {
    "NO_ERROR",
    "PROTOCOL_ERROR",
    "INTERNAL_ERROR",
    "FLOW_CONTROL_ERROR",
    "SETTINGS_TIMEOUT",
    "STREAM_CLOSED",
    "FRAME_SIZE_ERROR",
    "REFUSED_STREAM",
    "CANCEL",
    "COMPRESSION_ERROR",
    "CONNECT_ERROR",
    "ENHANCE_YOUR_CALM",
    "INADEQUATE_SECURITY",
    "HTTP_1_1_REQUIRED",
    "other"};
inline int h2_error_slot(std::uint32_t code) {
  return code < kH2ErrorCodes - 1 ? static_cast<int>(code) : kH2ErrorCodes - 1;
}

// What only HTTP/2 runs count: the whole run (warm-up and drain included), because frames from
// the server belong to connections, not to measured requests.
struct H2Stats {
  std::uint64_t streams = 0;                              // streams opened
  std::array<std::uint64_t, kH2ErrorCodes> rst_stream{};  // RST_STREAM frames received, by code
  std::array<std::uint64_t, kH2ErrorCodes> goaway{};      // GOAWAY frames received, by code
  // Requests the server did not process (REFUSED_STREAM, or above a GOAWAY's last stream), sent
  // again on another stream: they keep their start time, so the retry is in their latency.
  std::uint64_t retried = 0;
  std::uint32_t max_concurrent = 0;  // most streams in flight on one connection
  // The smallest SETTINGS_MAX_CONCURRENT_STREAMS a server announced (0: none announced).
  std::uint32_t server_max_streams = 0;
  std::uint64_t nghttp2_allocations = 0;  // malloc/calloc/realloc calls of libnghttp2
  // Why the server cannot be spoken to in HTTP/2 (ALPN did not select h2, or it answered the
  // h2c preface in HTTP/1.1); empty when it can. Ends the run.
  std::string not_h2;

  void merge(const H2Stats& other);
};

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
  H2Stats h2;
  // --count-header: the values of that header in the responses to measured requests.
  HeaderCounts header_counts;

  SecondStats& second(std::size_t index) {
    while (series.size() <= index) series.emplace_back();
    return series[index];
  }
  std::uint64_t error_total() const;
  void merge(const Stats& other);
};

}  // namespace gatebench::load
