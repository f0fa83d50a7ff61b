// User counters of Google Benchmark's JSON (state.counters, e.g. tls's server_ns), which the
// MicroRun model does not keep: medians over the repetitions, per benchmark and counter.
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace gatebench::tools {

class MicroCounters {
 public:
  // Reads the iteration rows of a Google Benchmark JSON document; any other document (a
  // report.json, whose micro part keeps no counters) gives no counters.
  static MicroCounters from_gbench_json(const nlohmann::json& doc);

  // The median of `counter` over the repetitions of `benchmark` (run_name); none when absent.
  std::optional<double> median(const std::string& benchmark, const std::string& counter) const;

 private:
  std::map<std::string, std::map<std::string, double>> medians_;
};

}  // namespace gatebench::tools
