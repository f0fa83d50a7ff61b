#include "tools/src/results/report_file.hpp"

#include <string>

namespace gatebench::tools {

using common::JsonField;
using nlohmann::json;

namespace {

json or_null(const std::optional<double>& v) {
  return v ? json(*v) : json(nullptr);
}

json or_null(const std::optional<std::string>& v) {
  return v ? json(*v) : json(nullptr);
}

json micro_row_json(const ReportMicroRow& r) {
  json e = {{"name", r.name},
            {"hotpath", r.hotpath},
            {"impl", r.impl},
            {"case", r.case_name},
            {"repetitions", r.repetitions},
            {"real_time_ns", r.real_time_ns},
            {"cpu_time_ns", r.cpu_time_ns},
            {"items_per_second", r.items_per_second},
            {"bytes_per_second", r.bytes_per_second}};
  if (!r.error.empty()) {
    e["error"] = r.error;
  } else if (r.figures) {
    const ReportMicroFigures& f = *r.figures;
    e["median"] = {{"cpu_time_ns", f.median.cpu_time_ns},
                   {"real_time_ns", f.median.real_time_ns},
                   {"items_per_second", or_null(f.median.items_per_second)},
                   {"bytes_per_second", or_null(f.median.bytes_per_second)}};
    e["cv"] = f.cv;
    e["ns_per_op"] = f.ns_per_op;
    e["vs_gatecore"] = or_null(f.vs_gatecore);
    e["vs_limit"] = or_null(f.vs_limit);
    e["limit"] = f.limit.empty() ? json(nullptr) : json(f.limit);
    if (f.slower_than_naive) e["slower_than_naive"] = *f.slower_than_naive;
  }
  return e;
}

json micro_json(const ReportMicro& micro) {
  json list = json::array();
  for (const auto& r : micro.benchmarks) list.push_back(micro_row_json(r));
  return {{"context", micro.context}, {"benchmarks", list}};
}

json macro_instructions_json(const ReportMacroInstructions& counts) {
  json list = json::array();
  for (const auto& s : counts.scenarios)
    list.push_back({{"name", s.name},
                    {"status", s.status},
                    {"reason", s.reason},
                    {"instructions_per_request", or_null(s.instructions_per_request)}});
  return {{"env", counts.env}, {"method", counts.method}, {"scenarios", list}};
}

std::vector<double> numbers(const JsonField& a) {
  std::vector<double> out;
  if (!a.array_if_present()) return out;
  for (std::size_t i = 0; i < a.size(); ++i) out.push_back(a.at(i).number());
  return out;
}

ReportMicroFigures read_micro_figures(const JsonField& row) {
  ReportMicroFigures f;
  const JsonField median = row.child("median");
  median.expect_object();
  f.median = {median.child("cpu_time_ns").number_or_default(),
              median.child("real_time_ns").number_or_default(),
              median.child("items_per_second").optional_number(),
              median.child("bytes_per_second").optional_number()};
  f.cv = row.child("cv").number_or_default();
  f.ns_per_op = row.child("ns_per_op").number_or_default();
  f.vs_gatecore = row.child("vs_gatecore").optional_number();
  f.vs_limit = row.child("vs_limit").optional_number();
  f.limit = row.child("limit").string_or_default();
  if (row.child("slower_than_naive").array_if_present())
    f.slower_than_naive = row.child("slower_than_naive").strings();
  return f;
}

ReportMicroRow read_micro_row(const JsonField& row) {
  row.expect_object();
  ReportMicroRow r;
  r.name = row.child("name").string();
  r.hotpath = row.child("hotpath").string_or_default();
  r.impl = row.child("impl").string_or_default();
  r.case_name = row.child("case").string_or_default();
  r.repetitions = row.child("repetitions").count_or_default();
  r.real_time_ns = numbers(row.child("real_time_ns"));
  r.cpu_time_ns = numbers(row.child("cpu_time_ns"));
  r.items_per_second = numbers(row.child("items_per_second"));
  r.bytes_per_second = numbers(row.child("bytes_per_second"));
  if (r.real_time_ns.size() != r.cpu_time_ns.size())
    row.child("cpu_time_ns").fail("expected as many values as real_time_ns");
  r.error = row.child("error").string_or_default();
  if (r.error.empty() && row.has("median")) r.figures = read_micro_figures(row);
  return r;
}

// report.json's "micro" section: the samples in nanoseconds, and what the report made of them.
ReportMicro read_micro(const JsonField& micro) {
  ReportMicro out;
  if (micro.has("context")) out.context = micro.child("context").json();
  const JsonField list = micro.child("benchmarks");
  list.expect_array();
  for (std::size_t i = 0; i < list.size(); ++i)
    out.benchmarks.push_back(read_micro_row(list.at(i)));
  return out;
}

ReportMacroInstructions read_macro_instructions(const JsonField& f) {
  f.expect_object();
  ReportMacroInstructions out;
  if (f.has("env")) out.env = f.child("env").json();
  if (f.has("method")) out.method = f.child("method").json();
  const JsonField list = f.child("scenarios");
  list.expect_array();
  for (std::size_t i = 0; i < list.size(); ++i) {
    const JsonField s = list.at(i);
    s.expect_object();
    ReportScenarioInstructions c{s.child("name").string(), s.child("status").string(),
                                 s.child("reason").string_or_default(), std::nullopt};
    // As gatebench.macro_instructions/1 reads it: an ok scenario has its count, no other does.
    if (c.status == "ok")
      c.instructions_per_request = s.child("instructions_per_request").number(0, 1e12);
    out.scenarios.push_back(std::move(c));
  }
  return out;
}

ReportSources read_inputs(const JsonField& f) {
  if (!f.object_if_present()) return {};
  return {f.child("micro").optional_string(), f.child("macro").optional_string(),
          f.child("instructions").optional_string(),
          f.child("macro_instructions").optional_string()};
}

json table(const JsonField& f) {
  return f.present() ? f.json() : json(nullptr);
}

}  // namespace

json to_json(const ReportFile& report) {
  json j = {{"schema", kReportSchema},
            {"generator", report.generator},
            {"inputs",
             {{"micro", or_null(report.inputs.micro)},
              {"macro", or_null(report.inputs.macro)},
              {"instructions", or_null(report.inputs.instructions)},
              {"macro_instructions", or_null(report.inputs.macro_instructions)}}}};
  j["micro"] = report.micro ? micro_json(*report.micro) : json(nullptr);
  j["instructions"] =
      report.instructions ? instructions_to_json(*report.instructions) : json(nullptr);
  if (report.instructions) j["instructions"].erase("schema");
  j["macro"] = report.macro ? common::to_json(*report.macro) : json(nullptr);
  j["macro_instructions"] = report.macro_instructions
                                ? macro_instructions_json(*report.macro_instructions)
                                : json(nullptr);
  j["cost_attribution"] = report.cost_attribution;
  j["handshakes"] = report.handshakes;
  j["cache_hit_ratio"] = report.cache_hit_ratio;
  j["workloads"] = report.workloads;
  return j;
}

ReportFile report_file_from_json(const JsonField& root) {
  root.expect_object();
  const JsonField schema = root.child("schema");
  if (!schema.present() || !schema.json().is_string() || schema.string() != kReportSchema)
    schema.fail(std::string("expected ") + kReportSchema);
  ReportFile r;
  r.generator = root.child("generator").string_or_default();
  r.inputs = read_inputs(root.child("inputs"));
  if (!root.child("micro").is_null()) r.micro = read_micro(root.child("micro"));
  if (!root.child("instructions").is_null())
    r.instructions = parse_instructions_json(root.child("instructions"));
  if (!root.child("macro").is_null()) r.macro = common::macro_result_from_json(root.child("macro"));
  if (!root.child("macro_instructions").is_null())
    r.macro_instructions = read_macro_instructions(root.child("macro_instructions"));
  r.cost_attribution = table(root.child("cost_attribution"));
  r.handshakes = table(root.child("handshakes"));
  r.cache_hit_ratio = table(root.child("cache_hit_ratio"));
  r.workloads = table(root.child("workloads"));
  return r;
}

MicroRun micro_run_from(const ReportMicro& micro) {
  MicroRun run;
  run.context = micro.context;
  for (const auto& r : micro.benchmarks)
    run.benchmarks.push_back(
        {r.name, r.real_time_ns, r.cpu_time_ns, r.items_per_second, r.bytes_per_second, r.error});
  return run;
}

common::MacroCountFile macro_count_from(const ReportMacroInstructions& counts) {
  common::MacroCountFile out;
  out.env = counts.env;
  out.method = counts.method;
  for (const auto& s : counts.scenarios) {
    common::MacroScenarioCount& c = out.scenarios.emplace_back();
    c.name = s.name;
    c.status = s.status;
    c.reason = s.reason;
    c.instructions_per_request = s.instructions_per_request;
  }
  return out;
}

}  // namespace gatebench::tools
