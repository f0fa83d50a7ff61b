// The macro tables of the report as plain rows of text, built once from the ReportModel so that
// report.md and report.html show the same cells (docs/report.md lists them).
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "tools/src/report/report_model.hpp"
#include "tools/src/report/svg_chart.hpp"

namespace gatebench::tools {

struct ReportTable {
  std::string title;  // a heading of its own
  std::string note;   // one paragraph under the heading; may be empty
  std::vector<std::string> head;
  std::vector<bool> numeric;  // per column: right-aligned figures
  std::vector<std::vector<std::string>> rows;
};

// The seed method's scenarios, in the order the seed table lists them: the gateway's
// configurations, then the proxies it is compared with (README.md, gatebench run).
const std::vector<std::string>& seed_scenarios();

// The scenarios the report leads with: the seed scenarios the run measured, in their order; every
// scenario when it measured none of them (a run of other scenarios still leads with its own).
std::vector<const ScenarioCost*> lead_scenarios(const ReportModel& m);

// What a reader came for, first: per lead scenario req/s, req/s per gateway vCPU, p50/p90/p99,
// CPU % (mean over the measured run), peak MB, vs nginx with its interval, errors.
ReportTable seed_table(const ReportModel& m);

// The targets compared per workload: one table per workload of the model (macro.json `workload`),
// a row per target with the seed table's columns, and the image under test when a row has one.
std::vector<ReportTable> workload_tables(const ReportModel& m);

// "gateway: mygw:1 sha256:…" per service of macro.json `images` (digest, else ID); "" for none.
std::string images_text(const MacroScenario& s);

// A JSON value in a table cell: a string as itself, null as "–", anything else as JSON.
std::string scalar_text(const nlohmann::json& v);

// The macro run's environment as (name, value) rows for report.md and report.html: each field of
// macro.json `env`, its `versions` one program a row, then every image under test once with the
// scenarios that ran it, so a result says which nginx and which image it was measured against.
std::vector<std::pair<std::string, std::string>> macro_environment_rows(const MacroRun& run);

// Where the CPU of each lead scenario went: CPU µs per request of the target [interval], the load
// generator and the backend, and CPU % per process of the target (macro.json cpu_by_process).
ReportTable cpu_by_process_table(const ReportModel& m);

// One row per hot path and case with a gatecore row, by hot path and case name: gatecore's
// time per op, the fastest peer of the same case (any implementation but gatecore's variants
// and the limits), the limit, best peer ÷ gatecore and gatecore ÷ limit.
ReportTable micro_summary_table(const ReportModel& m);

// Throughput and latency, the ratios and CPU per request with their intervals, handshakes, cache
// hit ratios, status reasons, request-mix counts, max-throughput steps and open-loop rounds;
// tables without rows are left out.
std::vector<ReportTable> macro_tables(const ReportModel& m);

// Instructions per request end to end, then the cost attribution: in instructions per request
// (gatebench.macro_instructions/1 beside gatebench.instructions/1), then in CPU time per request
// with the rounds' intervals; tables without rows are left out.
std::vector<ReportTable> attribution_tables(const ReportModel& m);

// "quick run: smoke figures, not results" when macro.json says run.quick or run.smoke, else "".
std::string smoke_banner(const ReportModel& m);

// The explained share of an attribution, or "not resolved" when the intervals overlap.
std::string explained_text(const Attribution& a);

// The per-second req/s of every ok round of s, one series per round.
std::vector<Series> per_second_series(const MacroScenario& s);

}  // namespace gatebench::tools
