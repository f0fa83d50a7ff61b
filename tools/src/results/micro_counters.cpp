#include "tools/src/results/micro_counters.hpp"

#include <set>
#include <vector>

#include "tools/src/results/results.hpp"

namespace gatebench::tools {

using nlohmann::json;

MicroCounters MicroCounters::from_gbench_json(const json& doc) {
  // Google Benchmark's own fields of a row; every other number is a user counter.
  static const std::set<std::string> own = {"family_index",     "per_family_instance_index",
                                            "repetitions",      "repetition_index",
                                            "threads",          "iterations",
                                            "real_time",        "cpu_time",
                                            "items_per_second", "bytes_per_second",
                                            "error_occurred"};
  MicroCounters out;
  if (!doc.is_object() || !doc.contains("benchmarks") || !doc["benchmarks"].is_array() ||
      !doc.contains("context"))
    return out;
  std::map<std::string, std::map<std::string, std::vector<double>>> samples;
  for (const json& row : doc["benchmarks"]) {
    if (!row.is_object() || row.value("run_type", "iteration") != "iteration" ||
        row.value("error_occurred", false))
      continue;
    const std::string name = row.value("run_name", row.value("name", ""));
    for (const auto& [key, value] : row.items())
      if (value.is_number() && !own.contains(key))
        samples[name][key].push_back(value.get<double>());
  }
  for (auto& [name, counters] : samples)
    for (auto& [key, values] : counters) out.medians_[name][key] = tools::median(std::move(values));
  return out;
}

std::optional<double> MicroCounters::median(const std::string& benchmark,
                                            const std::string& counter) const {
  const auto b = medians_.find(benchmark);
  if (b == medians_.end()) return std::nullopt;
  const auto c = b->second.find(counter);
  if (c == b->second.end()) return std::nullopt;
  return c->second;
}

}  // namespace gatebench::tools
