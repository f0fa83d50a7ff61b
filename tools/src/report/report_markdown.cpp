#include "tools/src/report/report_ablation.hpp"
#include "tools/src/report/report_naive.hpp"
#include "tools/src/report/report_tables.hpp"
#include "tools/src/report/report_writers.hpp"
#include "tools/src/results/format.hpp"

namespace gatebench::tools {

using nlohmann::json;

namespace {

std::string md_ratio(const std::optional<double>& r) {
  return r ? "×" + fmt_sig(*r) : std::string("–");
}

void md_environment(const ReportModel& m, std::string& md) {
  md += "## Environment\n\n| | |\n|---|---|\n";
  if (m.micro) {
    const json& c = m.micro->context;
    for (const char* key : {"host_name", "date", "num_cpus", "mhz_per_cpu", "cpu_scaling_enabled",
                            "library_build_type", "gatebench_fixtures_seed"})
      if (c.contains(key))
        md += "| micro: " + std::string(key) + " | " + md_cell(scalar_text(c[key])) + " |\n";
    if (c.contains("load_avg"))
      md += "| micro: load_avg | " + md_cell(c["load_avg"].dump()) + " |\n";
    for (const auto& [key, value] : c.items())  // the --input files (docs/micro-input.md)
      if (key.starts_with("gatebench_input_"))
        md += "| micro: " + md_cell(key) + " | " + md_cell(scalar_text(value)) + " |\n";
  }
  if (m.macro)
    for (const auto& [name, value] : macro_environment_rows(*m.macro))
      md += "| " + md_cell(name) + " | " + md_cell(value) + " |\n";
  md += "\n";
}

void micro_table(const ReportModel& m, std::string& md) {
  md +=
      "## Micro benchmarks, every row\n\nMedians over the repetitions. *time per op* is per item "
      "when the "
      "benchmark counts items (SetItemsProcessed), else per iteration (CPU time). ×gatecore and "
      "×limit divide it by gatecore's and by the limit's in the same hotpath/case (a hotpath "
      "with a single limit case uses it for every case).\n\n";
  md += "| benchmark | time per op | items/s | reps | cv | ×gatecore | ×limit |\n";
  md += "|---|---:|---:|---:|---:|---:|---:|\n";
  for (const auto& r : m.micro_rows) {
    const auto& b = *r.bench;
    if (!b.error.empty()) {
      md += "| " + md_code_cell(b.name) + " | " + md_cell(b.error) + " | | | | | |\n";
      continue;
    }
    if (r.repetitions == 0) {
      md += "| " + md_code_cell(b.name) + " | no samples | | | | | |\n";
      continue;
    }
    const std::string naive = slower_than_naive_note(r.slower_than_naive);
    md += "| " + md_code_cell(b.name) + (naive.empty() ? "" : " **" + naive + "**") + " | " +
          fmt_time_ns(r.ns_per_op) + " | " +
          (r.items_per_second ? fmt_rate(*r.items_per_second) : "–") + " | " +
          std::to_string(r.repetitions) + " | " + fmt_percent(r.cv, false) + " | " +
          md_ratio(r.vs_gatecore) + " | " + md_ratio(r.vs_limit) + " |\n";
  }
  md += "\n";
}

void instructions_table(const ReportModel& m, std::string& md) {
  md +=
      "## Instructions per iteration (callgrind)\n\n| benchmark | instructions | note |\n"
      "|---|---:|---|\n";
  for (const auto& c : m.instructions->benchmarks)
    md += "| " + md_code_cell(c.name) + " | " +
          (c.error.empty() ? fmt_sig(c.per_iteration, 4) : "–") + " | " + md_cell(c.error) + " |\n";
  md += "\n";
}

// heading false: the table is its section's only content and the section's heading names it.
void table_md(const ReportTable& t, std::string& md, bool heading = true) {
  if (heading) md += "### " + t.title + "\n\n";
  if (!t.note.empty()) md += t.note + "\n\n";
  std::string rule = "|";
  md += "|";
  for (std::size_t c = 0; c < t.head.size(); ++c) {
    md += " " + md_cell(t.head[c]) + " |";
    rule += t.numeric[c] ? "---:|" : "---|";
  }
  md += "\n" + rule + "\n";
  for (const auto& row : t.rows) {
    md += "|";
    for (const auto& cell : row) md += " " + md_cell(cell) + " |";
    md += "\n";
  }
  md += "\n";
}

void md_seed_section(const ReportModel& m, std::string& md) {
  md += "## Seed scenarios\n\n";
  if (!m.macro) {
    md += "No macro.json was given.\n\n";
    return;
  }
  if (const std::string banner = smoke_banner(m); !banner.empty()) md += "> **" + banner + "**\n\n";
  table_md(seed_table(m), md, false);
  if (const ReportTable t = cpu_by_process_table(m); !t.rows.empty()) table_md(t, md);
}

void md_workload_section(const ReportModel& m, std::string& md) {
  const auto tables = workload_tables(m);
  if (tables.empty()) return;
  md += "## Targets per workload\n\n";
  for (const auto& t : tables) table_md(t, md);
}

void md_feature_section(const ReportModel& m, std::string& md) {
  const ReportTable features = ablation_table(m);
  const auto tables = attribution_tables(m);
  if (features.rows.empty() && tables.empty()) return;
  md += "## What each feature costs\n\n";
  if (!features.rows.empty()) table_md(features, md);
  for (const auto& t : tables) table_md(t, md);
}

void md_micro_summary(const ReportModel& m, std::string& md) {
  const ReportTable t = micro_summary_table(m);
  if (t.rows.empty()) return;
  md += "## Micro summary\n\n";
  table_md(t, md, false);
}

void macro_details(const ReportModel& m, std::string& md) {
  md += "## Macro scenarios, every table\n\n";
  for (const auto& t : macro_tables(m)) table_md(t, md);
}

}  // namespace

// What a reader came for first (the seed table, where the CPU went, what each feature costs, the
// micro summary), then every table, the environment last.
std::string report_markdown(const ReportModel& m) {
  std::string md = "# gatebench report\n\n";
  md_seed_section(m, md);
  md_workload_section(m, md);
  md_feature_section(m, md);
  if (m.micro) md_micro_summary(m, md);
  if (m.macro) macro_details(m, md);
  if (m.micro) micro_table(m, md);
  if (m.instructions) instructions_table(m, md);
  md_environment(m, md);
  return md;
}

}  // namespace gatebench::tools
