#pragma once
// What one load-generator run measured, whichever generator produced it.
#include <cstdint>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace gatebench::macro {

// One second of the measured interval, as the generator saw it (gatebench-load's `series`).
struct SecondPoint {
  double t = 0;  // seconds since the measured interval began
  double rps = 0;
  std::optional<double> p99_us;
  double errors = 0;
};

struct LoadResult {
  double rps = 0;  // completed requests per second, as achieved
  double duration_s = 0;
  uint64_t requests = 0;
  std::optional<double> p50_us, p90_us, p99_us, p999_us, mean_us;
  uint64_t errors = 0;                   // socket errors + unexpected status codes
  std::map<std::string, double> counts;  // generator-specific counters kept in macro.json
  std::vector<SecondPoint> per_second;   // empty when the generator reports no series (wrk)
  // gatebench-load --count-header: per (lower-case) header name, responses by value, with
  // "(absent)" and "(other)" (more distinct values than it keeps).
  std::map<std::string, std::map<std::string, uint64_t>> header_counts;
  // The measured window on CLOCK_MONOTONIC (gatebench-load's `window`); absent for wrk.
  std::optional<uint64_t> window_start_ns, window_end_ns;
  // TLS handshakes completed in the window (gatebench-load's `handshakes`); absent for wrk.
  std::optional<uint64_t> handshakes_full, handshakes_resumed;
  // How the run was made: gatebench-load's `config`, else what the driver asked for (measure()).
  int threads = 0;               // generator threads; 0 = unknown
  bool closed_loop = true;       // false: open loop at a fixed rate
  bool new_connections = false;  // a new connection (and TLS handshake) per request
};

struct LoadParseError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

}  // namespace gatebench::macro
