// Google Benchmark JSON (1.7.x) -> MicroRun.
#include <map>

#include "macro/common/usage_error.hpp"
#include "tools/src/results/results.hpp"

namespace gatebench::tools {

using nlohmann::json;

namespace {

double ns_per_unit(const std::string& unit, const common::JsonField& row) {
  if (unit == "ns") return 1.0;
  if (unit == "us") return 1e3;
  if (unit == "ms") return 1e6;
  if (unit == "s") return 1e9;
  row.child("time_unit").fail("unknown unit '" + unit + "' (expected ns, us, ms or s)");
}

void add_sample(MicroBenchmark& m, const common::JsonField& b) {
  if (b.json().value("error_occurred", false)) {
    m.error = b.child("error_message").optional_string().value_or("error");
    return;
  }
  const double scale = ns_per_unit(b.child("time_unit").optional_string().value_or("ns"), b);
  m.real_ns.push_back(b.child("real_time").number() * scale);
  m.cpu_ns.push_back(b.child("cpu_time").number() * scale);
  if (auto v = b.child("items_per_second").optional_number()) m.items_per_second.push_back(*v);
  if (auto v = b.child("bytes_per_second").optional_number()) m.bytes_per_second.push_back(*v);
}

}  // namespace

MicroRun parse_gbench_json(const common::JsonField& doc) {
  MicroRun run;
  if (doc.has("context")) run.context = doc.child("context").json();
  const common::JsonField list = doc.child("benchmarks");
  list.expect_array();

  std::map<std::string, std::size_t> index;
  // Files written with --benchmark_report_aggregates_only carry no repetitions; their median row
  // then stands in as the one sample (compare still needs real repetitions and says so).
  std::map<std::string, common::JsonField> medians;
  for (std::size_t i = 0; i < list.size(); ++i) {
    const common::JsonField b = list.at(i);
    const std::string name =
        b.child("run_name").optional_string().value_or(b.child("name").string());
    const std::string run_type = b.child("run_type").optional_string().value_or("iteration");
    if (run_type == "aggregate") {  // recomputed from the repetitions when they are present
      if (b.json().value("aggregate_name", "") == "median") medians.try_emplace(name, b);
      continue;
    }
    if (run_type != "iteration")
      b.child("run_type").fail("expected iteration or aggregate, got '" + run_type + "'");

    auto [it, inserted] = index.try_emplace(name, run.benchmarks.size());
    if (inserted) {
      run.benchmarks.emplace_back();
      run.benchmarks.back().name = name;
    }
    add_sample(run.benchmarks[it->second], b);
  }
  for (const auto& [name, b] : medians) {
    if (index.contains(name)) continue;
    index.emplace(name, run.benchmarks.size());
    run.benchmarks.emplace_back();
    run.benchmarks.back().name = name;
    add_sample(run.benchmarks.back(), b);
  }
  return run;
}

}  // namespace gatebench::tools
