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
    ReportFile report = report_file_from_json(root);
    if (report.micro) set.micro = micro_run_from(*report.micro);
    set.instructions = std::move(report.instructions);
    if (report.macro) set.macro = macro_run_from(*report.macro);
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
