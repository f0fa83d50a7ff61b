#include "tools/src/results/gbench_merge.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "macro/common/json_field.hpp"
#include "macro/common/usage_error.hpp"

namespace gatebench::tools {

using nlohmann::json;

namespace {

// Fields of an iteration row that are not user counters.
const std::set<std::string> kRowFields = {"name",
                                          "family_index",
                                          "per_family_instance_index",
                                          "run_name",
                                          "run_type",
                                          "repetitions",
                                          "repetition_index",
                                          "threads",
                                          "iterations",
                                          "real_time",
                                          "cpu_time",
                                          "time_unit",
                                          "error_occurred",
                                          "error_message",
                                          "label",
                                          "aggregate_name",
                                          "aggregate_unit",
                                          "big_o",
                                          "rms",
                                          "complexity"};

double mean_of(const std::vector<double>& v) {
  double s = 0;
  for (double x : v) s += x;
  return s / static_cast<double>(v.size());
}

double sorted_median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

// Sample standard deviation, as Google Benchmark's StatisticsStdDev (0 for one value).
double stddev_of(const std::vector<double>& v) {
  if (v.size() < 2) return 0;
  const double m = mean_of(v);
  double s = 0;
  for (double x : v) s += (x - m) * (x - m);
  return std::sqrt(s / static_cast<double>(v.size() - 1));
}

struct Benchmark {
  std::vector<json> rows;  // iteration rows, in run order
};

json aggregate_row(const std::vector<json>& rows, const std::string& aggregate) {
  const json& first = rows.front();
  json row;
  row["name"] = first["run_name"].get<std::string>() + "_" + aggregate;
  for (const char* key : {"family_index", "per_family_instance_index", "run_name"})
    if (first.contains(key)) row[key] = first[key];
  row["run_type"] = "aggregate";
  row["repetitions"] = rows.size();
  row["threads"] = first.value("threads", 1);
  row["aggregate_name"] = aggregate;
  row["aggregate_unit"] = aggregate == "cv" ? "percentage" : "time";
  row["iterations"] = rows.size();

  std::vector<std::string> keys = {"real_time", "cpu_time"};
  for (const auto& [key, value] : first.items())
    if (!kRowFields.contains(key) && value.is_number()) keys.push_back(key);
  for (const auto& key : keys) {
    std::vector<double> v;
    for (const auto& r : rows)
      if (r.contains(key) && r[key].is_number()) v.push_back(r[key].get<double>());
    if (v.empty()) continue;
    double x = 0;
    if (aggregate == "mean") x = mean_of(v);
    if (aggregate == "median") x = sorted_median(v);
    if (aggregate == "stddev") x = stddev_of(v);
    if (aggregate == "cv") {
      const double m = mean_of(v);
      x = m == 0 ? 0 : stddev_of(v) / m;
    }
    row[key] = x;
  }
  if (first.contains("time_unit")) row["time_unit"] = first["time_unit"];
  return row;
}

}  // namespace

json merge_gbench_runs(const std::vector<json>& runs, const std::vector<std::string>& names) {
  if (runs.empty()) throw common::UsageError("merge: no runs");
  std::vector<std::string> order;
  std::map<std::string, Benchmark> benchmarks;
  for (std::size_t r = 0; r < runs.size(); ++r) {
    const std::string file = r < names.size() ? names[r] : "run " + std::to_string(r);
    const common::JsonField list = common::JsonField(runs[r], file).child("benchmarks");
    list.expect_array();
    for (std::size_t i = 0; i < list.size(); ++i) {
      const common::JsonField row = list.at(i);
      if (row.child("run_type").string() != "iteration") continue;
      const std::string name = row.child("run_name").string();
      auto [it, inserted] = benchmarks.try_emplace(name);
      if (inserted) order.push_back(name);
      it->second.rows.push_back(row.json());
    }
  }

  json out;
  out["context"] = runs.front().contains("context") ? runs.front()["context"] : json::object();
  out["context"]["gatebench_processes"] = runs.size();
  json rows = json::array();
  for (const auto& name : order) {
    auto& b = benchmarks[name];
    const std::size_t n = b.rows.size();
    for (std::size_t i = 0; i < n; ++i) {
      json row = b.rows[i];
      row["repetitions"] = n;
      row["repetition_index"] = i;
      rows.push_back(std::move(row));
    }
    const bool failed = std::any_of(b.rows.begin(), b.rows.end(),
                                    [](const json& r) { return r.value("error_occurred", false); });
    // Google Benchmark writes no aggregates for a failed benchmark or a single repetition.
    if (failed || n < 2) continue;
    for (const char* agg : {"mean", "median", "stddev", "cv"})
      rows.push_back(aggregate_row(b.rows, agg));
  }
  out["benchmarks"] = std::move(rows);
  return out;
}

}  // namespace gatebench::tools
