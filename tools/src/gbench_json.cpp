// Google Benchmark JSON (1.7.x) -> MicroRun.
#include <map>

#include "tools/src/bad_input.hpp"
#include "tools/src/json_file.hpp"
#include "tools/src/results.hpp"

namespace gatebench::tools {

using nlohmann::json;

namespace {

double ns_per_unit(const std::string& unit, const std::string& where) {
  if (unit == "ns") return 1.0;
  if (unit == "us") return 1e3;
  if (unit == "ms") return 1e6;
  if (unit == "s") return 1e9;
  throw BadInput(where + "/time_unit: unknown unit '" + unit + "' (expected ns, us, ms or s)");
}

void add_sample(MicroBenchmark& m, const json& b, const std::string& where) {
  if (b.value("error_occurred", false)) {
    m.error = optional_string(b, "error_message", where).value_or("error");
    return;
  }
  const double scale = ns_per_unit(optional_string(b, "time_unit", where).value_or("ns"), where);
  m.real_ns.push_back(require_number(b, "real_time", where) * scale);
  m.cpu_ns.push_back(require_number(b, "cpu_time", where) * scale);
  if (auto v = optional_number(b, "items_per_second", where)) m.items_per_second.push_back(*v);
  if (auto v = optional_number(b, "bytes_per_second", where)) m.bytes_per_second.push_back(*v);
}

}  // namespace

MicroRun parse_gbench_json(const json& doc, const std::string& file) {
  MicroRun run;
  if (doc.contains("context")) run.context = doc["context"];
  const json& list = require_field(doc, "benchmarks", file + ":");
  if (!list.is_array()) throw BadInput(file + ":/benchmarks: expected an array");

  std::map<std::string, std::size_t> index;
  // Files written with --benchmark_report_aggregates_only carry no repetitions; their median row
  // then stands in as the one sample (compare still needs real repetitions and says so).
  std::map<std::string, json> medians;
  for (std::size_t i = 0; i < list.size(); ++i) {
    const json& b = list[i];
    const std::string where = file + ":/benchmarks/" + std::to_string(i);
    const std::string name =
        optional_string(b, "run_name", where).value_or(require_string(b, "name", where));
    const std::string run_type = optional_string(b, "run_type", where).value_or("iteration");
    if (run_type == "aggregate") {  // recomputed from the repetitions when they are present
      if (b.value("aggregate_name", "") == "median") medians.try_emplace(name, b);
      continue;
    }
    if (run_type != "iteration")
      throw BadInput(where + "/run_type: expected iteration or aggregate, got '" + run_type + "'");

    auto [it, inserted] = index.try_emplace(name, run.benchmarks.size());
    if (inserted) {
      run.benchmarks.emplace_back();
      run.benchmarks.back().name = name;
    }
    add_sample(run.benchmarks[it->second], b, where);
  }
  for (const auto& [name, b] : medians) {
    if (index.contains(name)) continue;
    index.emplace(name, run.benchmarks.size());
    run.benchmarks.emplace_back();
    run.benchmarks.back().name = name;
    add_sample(run.benchmarks.back(), b, file + ":/benchmarks (median of " + name + ")");
  }
  return run;
}

}  // namespace gatebench::tools
