#pragma once
// What one load-generator run measured, whichever generator produced it.
#include <cstdint>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>

namespace gatebench::macro {

struct LoadResult {
  double rps = 0;  // completed requests per second, as achieved
  double duration_s = 0;
  uint64_t requests = 0;
  std::optional<double> p50_us, p90_us, p99_us, p999_us, mean_us;
  uint64_t errors = 0;                   // socket errors + unexpected status codes
  std::map<std::string, double> counts;  // generator-specific counters kept in macro.json
};

struct LoadParseError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

}  // namespace gatebench::macro
