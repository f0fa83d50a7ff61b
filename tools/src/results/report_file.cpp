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

json or_null(const std::optional<bool>& v) {
  return v ? json(*v) : json(nullptr);
}

json interval_json(const std::optional<MacroInterval>& iv) {
  if (!iv) return nullptr;
  return {
      {"median", iv->median}, {"lo", iv->lo}, {"hi", iv->hi}, {"n", iv->n}, {"level", iv->level}};
}

json pairs_json(const std::vector<std::pair<std::string, double>>& pairs, const char* value) {
  json list = json::array();
  for (const auto& [name, v] : pairs) list.push_back({{"benchmark", name}, {value, v}});
  return list;
}

json attribution_json(const ReportAttribution& a) {
  const ReportAttributionInstructions& i = a.instructions;
  return {{"label", a.label},
          {"scenario", a.scenario},
          {"baseline", a.baseline},
          {"scenario_cpu_us_per_request", or_null(a.scenario_cpu_us_per_request)},
          {"baseline_cpu_us_per_request", or_null(a.baseline_cpu_us_per_request)},
          {"difference_cpu_us_per_request", or_null(a.difference_cpu_us_per_request)},
          {"micro", pairs_json(a.micro, "ns_per_op")},
          {"unmatched_patterns", a.unmatched_patterns},
          {"micro_us_per_request", or_null(a.micro_us_per_request)},
          {"explained_share", or_null(a.explained_share)},
          {"resolved", or_null(a.resolved)},
          {"note", a.note},
          {"counter", a.counter.empty() ? json(nullptr) : json(a.counter)},
          {"instructions",
           {{"scenario_per_request", or_null(i.scenario_per_request)},
            {"baseline_per_request", or_null(i.baseline_per_request)},
            {"difference_per_request", or_null(i.difference_per_request)},
            {"syscalls_scenario_per_request", or_null(i.syscalls_scenario_per_request)},
            {"syscalls_baseline_per_request", or_null(i.syscalls_baseline_per_request)},
            {"syscalls_difference_per_request", or_null(i.syscalls_difference_per_request)},
            {"micro", pairs_json(i.micro, "instructions_per_op")},
            {"micro_scaled_by_counter", i.micro_scaled_by_counter},
            {"not_attributable", i.not_attributable},
            {"micro_per_request", or_null(i.micro_per_request)},
            {"remainder_per_request", or_null(i.remainder_per_request)},
            {"remainder_share", or_null(i.remainder_share)}}}};
}

json handshakes_json(const ReportHandshakes& h) {
  return {{"scenario", h.scenario},
          {"status", h.status},
          {"limited_by_harness", h.limited_by_harness},
          {"per_s", or_null(h.per_s)},
          {"full", or_null(h.full)},
          {"resumed", or_null(h.resumed)},
          {"server_cpu_us_per_handshake", or_null(h.server_cpu_us_per_handshake)},
          {"server_cpu_us_per_handshake_interval",
           interval_json(h.server_cpu_us_per_handshake_interval)},
          {"load_cpu_us_per_handshake", or_null(h.load_cpu_us_per_handshake)},
          {"floor_benchmark", or_null(h.floor_benchmark)},
          {"floor_server_us", or_null(h.floor_server_us)},
          {"vs_floor", or_null(h.vs_floor)},
          {"floor_client_us", or_null(h.floor_client_us)},
          {"load_vs_client_floor", or_null(h.load_vs_client_floor)}};
}

json cache_hits_json(const ReportCacheHits& c) {
  json rounds = json::array();
  for (const auto& r : c.rounds)
    rounds.push_back({{"round", r.round},
                      {"status", r.status},
                      {"hit_ratio", or_null(r.hit_ratio)},
                      {"verdict", r.verdict}});
  return {{"scenario", c.scenario},
          {"status", c.status},
          {"expected", c.expected ? json{c.expected->first, c.expected->second} : json()},
          {"hit_ratio", or_null(c.hit_ratio)},
          {"hit_ratio_interval", interval_json(c.hit_ratio_interval)},
          {"verdict", c.verdict},
          {"verdict_rounds", c.verdict_rounds},
          {"rounds", rounds}};
}

json workload_json(const ReportWorkload& w) {
  json rows = json::array();
  for (const ReportWorkloadRow& r : w.rows)
    rows.push_back({{"target", r.target},
                    {"scenario", r.scenario},
                    {"status", r.status},
                    {"baseline", r.baseline},
                    {"rps", or_null(r.rps)},
                    {"rps_per_gateway_cpu", or_null(r.rps_per_gateway_cpu)},
                    {"p50_us", or_null(r.p50_us)},
                    {"p90_us", or_null(r.p90_us)},
                    {"p99_us", or_null(r.p99_us)},
                    {"cpu_percent", or_null(r.cpu_percent)},
                    {"peak_mb", or_null(r.peak_mb)},
                    {"vs_nginx", or_null(r.vs_nginx)},
                    {"vs_nginx_interval", interval_json(r.vs_nginx_interval)},
                    {"errors", or_null(r.errors)},
                    {"images", r.images}});
  return {{"workload", w.workload}, {"baselines", w.baselines}, {"rows", rows}};
}

// A table: a JSON array of rows, or null.
template <class Row, class Write>
json table_json(const std::optional<std::vector<Row>>& rows, Write write) {
  if (!rows) return nullptr;
  json list = json::array();
  for (const Row& r : *rows) list.push_back(write(r));
  return list;
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

std::optional<bool> optional_boolean(const JsonField& f) {
  if (f.is_null()) return std::nullopt;
  return f.boolean();
}

std::optional<MacroInterval> read_interval(const JsonField& f) {
  if (!f.object_if_present()) return std::nullopt;
  return MacroInterval{f.child("median").number_or_default(), f.child("lo").number_or_default(),
                       f.child("hi").number_or_default(), f.child("n").count_or_default(),
                       f.child("level").number_or_default()};
}

std::vector<std::pair<std::string, double>> read_pairs(const JsonField& f, const char* value) {
  std::vector<std::pair<std::string, double>> out;
  if (!f.array_if_present()) return out;
  for (std::size_t i = 0; i < f.size(); ++i) {
    const JsonField e = f.at(i);
    e.expect_object();
    out.emplace_back(e.child("benchmark").string(), e.child(value).number());
  }
  return out;
}

ReportAttribution read_attribution(const JsonField& f) {
  f.expect_object();
  ReportAttribution a;
  a.label = f.child("label").string_or_default();
  a.scenario = f.child("scenario").string_or_default();
  a.baseline = f.child("baseline").string_or_default();
  a.scenario_cpu_us_per_request = f.child("scenario_cpu_us_per_request").optional_number();
  a.baseline_cpu_us_per_request = f.child("baseline_cpu_us_per_request").optional_number();
  a.difference_cpu_us_per_request = f.child("difference_cpu_us_per_request").optional_number();
  a.micro = read_pairs(f.child("micro"), "ns_per_op");
  a.unmatched_patterns = f.child("unmatched_patterns").strings();
  a.micro_us_per_request = f.child("micro_us_per_request").optional_number();
  a.explained_share = f.child("explained_share").optional_number();
  a.resolved = optional_boolean(f.child("resolved"));
  a.note = f.child("note").string_or_default();
  a.counter = f.child("counter").string_or_default();
  const JsonField i = f.child("instructions");
  if (!i.object_if_present()) return a;
  ReportAttributionInstructions& ir = a.instructions;
  ir.scenario_per_request = i.child("scenario_per_request").optional_number();
  ir.baseline_per_request = i.child("baseline_per_request").optional_number();
  ir.difference_per_request = i.child("difference_per_request").optional_number();
  ir.syscalls_scenario_per_request = i.child("syscalls_scenario_per_request").optional_number();
  ir.syscalls_baseline_per_request = i.child("syscalls_baseline_per_request").optional_number();
  ir.syscalls_difference_per_request = i.child("syscalls_difference_per_request").optional_number();
  ir.micro = read_pairs(i.child("micro"), "instructions_per_op");
  ir.micro_scaled_by_counter = i.child("micro_scaled_by_counter").boolean_or_default();
  ir.not_attributable = i.child("not_attributable").strings();
  ir.micro_per_request = i.child("micro_per_request").optional_number();
  ir.remainder_per_request = i.child("remainder_per_request").optional_number();
  ir.remainder_share = i.child("remainder_share").optional_number();
  return a;
}

ReportHandshakes read_handshakes(const JsonField& f) {
  f.expect_object();
  ReportHandshakes h;
  h.scenario = f.child("scenario").string_or_default();
  h.status = f.child("status").string_or_default();
  h.limited_by_harness = f.child("limited_by_harness").boolean_or_default();
  h.per_s = f.child("per_s").optional_number();
  h.full = f.child("full").optional_number();
  h.resumed = f.child("resumed").optional_number();
  h.server_cpu_us_per_handshake = f.child("server_cpu_us_per_handshake").optional_number();
  h.server_cpu_us_per_handshake_interval =
      read_interval(f.child("server_cpu_us_per_handshake_interval"));
  h.load_cpu_us_per_handshake = f.child("load_cpu_us_per_handshake").optional_number();
  h.floor_benchmark = f.child("floor_benchmark").optional_string();
  h.floor_server_us = f.child("floor_server_us").optional_number();
  h.vs_floor = f.child("vs_floor").optional_number();
  h.floor_client_us = f.child("floor_client_us").optional_number();
  h.load_vs_client_floor = f.child("load_vs_client_floor").optional_number();
  return h;
}

ReportCacheHits read_cache_hits(const JsonField& f) {
  f.expect_object();
  ReportCacheHits c;
  c.scenario = f.child("scenario").string_or_default();
  c.status = f.child("status").string_or_default();
  if (const JsonField e = f.child("expected"); e.array_if_present()) {
    if (e.size() != 2) e.fail("expected [lowest, highest]");
    c.expected = std::pair(e.at(0).number(), e.at(1).number());
  }
  c.hit_ratio = f.child("hit_ratio").optional_number();
  c.hit_ratio_interval = read_interval(f.child("hit_ratio_interval"));
  c.verdict = f.child("verdict").string_or_default();
  if (const JsonField v = f.child("verdict_rounds"); v.array_if_present())
    for (std::size_t i = 0; i < v.size(); ++i)
      c.verdict_rounds.push_back(static_cast<int>(v.at(i).integer(0, 1 << 30)));
  if (const JsonField rounds = f.child("rounds"); rounds.array_if_present())
    for (std::size_t i = 0; i < rounds.size(); ++i) {
      const JsonField r = rounds.at(i);
      r.expect_object();
      c.rounds.push_back({static_cast<int>(r.child("round").integer_or_default(1, 0, 1 << 30)),
                          r.child("status").string_or_default(),
                          r.child("hit_ratio").optional_number(),
                          r.child("verdict").string_or_default()});
    }
  return c;
}

ReportWorkloadRow read_workload_row(const JsonField& f) {
  f.expect_object();
  ReportWorkloadRow r;
  r.target = f.child("target").string_or_default();
  r.scenario = f.child("scenario").string_or_default();
  r.status = f.child("status").string_or_default();
  r.baseline = f.child("baseline").string_or_default();
  r.rps = f.child("rps").optional_number();
  r.rps_per_gateway_cpu = f.child("rps_per_gateway_cpu").optional_number();
  r.p50_us = f.child("p50_us").optional_number();
  r.p90_us = f.child("p90_us").optional_number();
  r.p99_us = f.child("p99_us").optional_number();
  r.cpu_percent = f.child("cpu_percent").optional_number();
  r.peak_mb = f.child("peak_mb").optional_number();
  r.vs_nginx = f.child("vs_nginx").optional_number();
  r.vs_nginx_interval = read_interval(f.child("vs_nginx_interval"));
  r.errors = f.child("errors").optional_number();
  if (const JsonField images = f.child("images"); images.object_if_present())
    r.images = images.json();
  return r;
}

ReportWorkload read_workload(const JsonField& f) {
  f.expect_object();
  ReportWorkload w;
  w.workload = f.child("workload").string_or_default();
  w.baselines = f.child("baselines").strings();
  if (const JsonField rows = f.child("rows"); rows.array_if_present())
    for (std::size_t i = 0; i < rows.size(); ++i) w.rows.push_back(read_workload_row(rows.at(i)));
  return w;
}

// A table: null, or an array of rows each read by `read`.
template <class Read>
auto read_table(const JsonField& f, Read read) -> std::optional<std::vector<decltype(read(f))>> {
  if (!f.array_if_present()) return std::nullopt;
  std::vector<decltype(read(f))> rows;
  for (std::size_t i = 0; i < f.size(); ++i) rows.push_back(read(f.at(i)));
  return rows;
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
  j["cost_attribution"] = table_json(report.cost_attribution, attribution_json);
  j["handshakes"] = table_json(report.handshakes, handshakes_json);
  j["cache_hit_ratio"] = table_json(report.cache_hit_ratio, cache_hits_json);
  j["workloads"] = table_json(report.workloads, workload_json);
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
  r.cost_attribution = read_table(root.child("cost_attribution"), read_attribution);
  r.handshakes = read_table(root.child("handshakes"), read_handshakes);
  r.cache_hit_ratio = read_table(root.child("cache_hit_ratio"), read_cache_hits);
  r.workloads = read_table(root.child("workloads"), read_workload);
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
