#include "tools/src/results/results.hpp"

#include <algorithm>

#include "macro/common/json_field.hpp"
#include "macro/common/usage_error.hpp"
#include "tools/src/results/json_file.hpp"
#include "tools/src/results/report_file.hpp"

namespace gatebench::tools {

using nlohmann::json;

namespace {

template <class Run>
auto find_by_name(const Run& run, const std::string& name) -> decltype(&run.benchmarks[0]) {
  for (const auto& b : run.benchmarks)
    if (b.name == name) return &b;
  return nullptr;
}

std::vector<double> number_array(const common::JsonField& row, const char* key) {
  std::vector<double> out;
  const common::JsonField a = row.child(key);
  if (!a.present()) return out;
  a.expect_array();
  for (std::size_t i = 0; i < a.size(); ++i) out.push_back(a.at(i).number());
  return out;
}

// report.json's "micro" section: the samples in nanoseconds, as written by report_json.cpp.
MicroRun parse_report_micro(const common::JsonField& micro) {
  MicroRun run;
  if (micro.has("context")) run.context = micro.child("context").json();
  const common::JsonField list = micro.child("benchmarks");
  list.expect_array();
  for (std::size_t i = 0; i < list.size(); ++i) {
    const common::JsonField row = list.at(i);
    MicroBenchmark m;
    m.name = row.child("name").string();
    m.real_ns = number_array(row, "real_time_ns");
    m.cpu_ns = number_array(row, "cpu_time_ns");
    m.items_per_second = number_array(row, "items_per_second");
    m.bytes_per_second = number_array(row, "bytes_per_second");
    m.error = row.child("error").optional_string().value_or("");
    if (m.real_ns.size() != m.cpu_ns.size())
      row.child("cpu_time_ns").fail("expected as many values as real_time_ns");
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
  if (!doc.is_object())
    throw common::UsageError(file + ": expected a JSON object at the top level");
  ResultSet set;
  set.file = file;
  const common::JsonField root(doc, file);
  const std::string schema = doc.contains("schema") && doc["schema"].is_string()
                                 ? doc["schema"].get<std::string>()
                                 : std::string();
  if (schema == kReportSchema) {
    set.kind = "report";
    if (!root.child("micro").is_null()) set.micro = parse_report_micro(root.child("micro"));
    if (!root.child("instructions").is_null())
      set.instructions = parse_instructions_json(root.child("instructions"));
    if (!root.child("macro").is_null())
      set.macro = macro_run_from(common::macro_result_from_json(root.child("macro")));
  } else if (schema == kInstructionsSchema) {
    set.kind = "instructions";
    set.instructions = parse_instructions_json(root);
  } else if (common::is_macro_schema(schema)) {
    set.kind = "macro";
    set.macro = macro_run_from(common::macro_result_from_json(root));
  } else if (schema == common::kMacroInstructionsSchema) {
    set.kind = "macro_instructions";
    set.macro_instructions = common::parse_macro_count(doc, file);
  } else if (!schema.empty()) {
    root.child("schema").fail("unknown schema '" + schema + "' (expected " + kReportSchema + ", " +
                              std::string(common::kMacroSchemaV1) + ", " +
                              std::string(common::kMacroSchema) + ", " + kInstructionsSchema +
                              " or " + common::kMacroInstructionsSchema + ")");
  } else if (doc.contains("benchmarks")) {
    set.kind = "gbench";
    set.micro = parse_gbench_json(root);
  } else {
    throw common::UsageError(
        file +
        ": neither Google Benchmark JSON (no \"benchmarks\") nor a gatebench file "
        "(no \"schema\")");
  }
  return set;
}

ResultSet load_result_set(const std::string& file) {
  return parse_result_set(load_json_file(file), file);
}

}  // namespace gatebench::tools
