#include "tools/src/results.hpp"

#include <algorithm>

#include "tools/src/bad_input.hpp"
#include "tools/src/json_file.hpp"

namespace gatebench::tools {

using nlohmann::json;

namespace {

template <class Run>
auto find_by_name(const Run& run, const std::string& name) -> decltype(&run.benchmarks[0]) {
  for (const auto& b : run.benchmarks)
    if (b.name == name) return &b;
  return nullptr;
}

std::vector<double> number_array(const json& obj, const char* key, const std::string& where) {
  std::vector<double> out;
  if (!obj.contains(key)) return out;
  const json& a = obj[key];
  if (!a.is_array()) throw BadInput(where + "/" + key + ": expected an array of numbers");
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (!a[i].is_number())
      throw BadInput(where + "/" + key + "/" + std::to_string(i) + ": expected a number");
    out.push_back(a[i].get<double>());
  }
  return out;
}

// report.json's "micro" section: the samples in nanoseconds, as written by report_json.cpp.
MicroRun parse_report_micro(const json& micro, const std::string& where) {
  MicroRun run;
  if (micro.contains("context")) run.context = micro["context"];
  const json& list = require_field(micro, "benchmarks", where);
  if (!list.is_array()) throw BadInput(where + "/benchmarks: expected an array");
  for (std::size_t i = 0; i < list.size(); ++i) {
    const std::string w = where + "/benchmarks/" + std::to_string(i);
    MicroBenchmark m;
    m.name = require_string(list[i], "name", w);
    m.real_ns = number_array(list[i], "real_time_ns", w);
    m.cpu_ns = number_array(list[i], "cpu_time_ns", w);
    m.items_per_second = number_array(list[i], "items_per_second", w);
    m.bytes_per_second = number_array(list[i], "bytes_per_second", w);
    m.error = optional_string(list[i], "error", w).value_or("");
    if (m.real_ns.size() != m.cpu_ns.size())
      throw BadInput(w + "/cpu_time_ns: expected as many values as real_time_ns");
    run.benchmarks.push_back(std::move(m));
  }
  return run;
}

}  // namespace

const MicroBenchmark* MicroRun::find(const std::string& name) const {
  return find_by_name(*this, name);
}
const InstructionCount* InstructionRun::find(const std::string& name) const {
  return find_by_name(*this, name);
}
const MacroScenario* MacroRun::find(const std::string& name) const {
  for (const auto& s : scenarios)
    if (s.name == name) return &s;
  return nullptr;
}
bool MacroRun::smoke() const {
  auto flag = [&](const char* key) {
    return run.is_object() && run.contains(key) && run[key].is_boolean() && run[key].get<bool>();
  };
  return flag("quick") || flag("smoke");
}
const MacroInterval* MacroScenario::interval(const std::string& key) const {
  const auto it = intervals.find(key);
  return it == intervals.end() ? nullptr : &it->second;
}

double median(std::vector<double> values) {
  if (values.empty()) return 0.0;
  const std::size_t mid = values.size() / 2;
  std::nth_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(mid), values.end());
  const double upper = values[mid];
  if (values.size() % 2 == 1) return upper;
  const double lower =
      *std::max_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(mid));
  return (lower + upper) / 2.0;
}

ResultSet parse_result_set(const json& doc, const std::string& file) {
  if (!doc.is_object()) throw BadInput(file + ": expected a JSON object at the top level");
  ResultSet set;
  set.file = file;
  const std::string schema = doc.contains("schema") && doc["schema"].is_string()
                                 ? doc["schema"].get<std::string>()
                                 : std::string();
  if (schema == "gatebench.report/1") {
    set.kind = "report";
    if (doc.contains("micro") && !doc["micro"].is_null())
      set.micro = parse_report_micro(doc["micro"], file + ":/micro");
    if (doc.contains("instructions") && !doc["instructions"].is_null())
      set.instructions = parse_instructions_json(doc["instructions"], file + ":/instructions");
    if (doc.contains("macro") && !doc["macro"].is_null())
      set.macro = parse_macro_json(doc["macro"], file + ":/macro");
  } else if (schema == "gatebench.instructions/1") {
    set.kind = "instructions";
    set.instructions = parse_instructions_json(doc, file);
  } else if (schema == "gatebench.macro/1" || schema == "gatebench.macro/2") {
    set.kind = "macro";
    set.macro = parse_macro_json(doc, file);
  } else if (!schema.empty()) {
    throw BadInput(file + ":/schema: unknown schema '" + schema +
                   "' (expected gatebench.report/1, gatebench.macro/1, gatebench.macro/2 or "
                   "gatebench.instructions/1)");
  } else if (doc.contains("benchmarks")) {
    set.kind = "gbench";
    set.micro = parse_gbench_json(doc, file);
  } else {
    throw BadInput(file +
                   ": neither Google Benchmark JSON (no \"benchmarks\") nor a gatebench file "
                   "(no \"schema\")");
  }
  return set;
}

ResultSet load_result_set(const std::string& file) {
  return parse_result_set(load_json_file(file), file);
}

}  // namespace gatebench::tools
