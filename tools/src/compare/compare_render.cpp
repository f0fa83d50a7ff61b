// Comparison -> Markdown (PR comment / job summary) and JSON (machine-readable gate result).
#include <cmath>
#include <map>

#include "macro/common/detectable.hpp"
#include "tools/src/compare/compare.hpp"
#include "tools/src/results/format.hpp"

namespace gatebench::tools {

using nlohmann::json;

namespace {

std::string value_text(const CompareRow& r, const std::optional<double>& v) {
  if (!v) return "–";
  if (r.measure == "instructions") return fmt_sig(*v, 4);
  if (r.measure == "instructions_per_request") return fmt_fixed(*v, 2);
  if (r.measure == "syscalls_per_request") return fmt_fixed(*v, 3);
  if (r.measure == "vs_nginx" || r.measure == "p99_vs_nginx" || r.measure == "cpu_vs_load")
    return fmt_fixed(*v, 3);
  if (r.measure == "p99_us" || r.measure == "cpu_us_per_request") return fmt_sig(*v) + " µs";
  return fmt_time_ns(*v);
}

std::string verdict_cell(Verdict v) {
  switch (v) {
    case Verdict::regression:
      return "**regression**";
    case Verdict::improvement:
      return "improvement";
    default:
      return verdict_name(v);
  }
}

// "14% (4.7%/round)": the minimum detectable change and the per-round spread it came from.
std::string could_see(const CompareRow& r) {
  if (!r.round_spread) return "–";
  const std::string spread = " (" + common::percent_text(*r.round_spread) + "/round)";
  return (r.mdc ? common::percent_text(*r.mdc) : std::string("nothing")) + spread;
}

// A macro "no change" says what it could have seen: "no change of 14% or more".
std::string macro_verdict_cell(const CompareRow& r) {
  if (r.verdict == Verdict::no_change && r.mdc)
    return "no change of " + common::percent_text(*r.mdc) + " or more";
  return verdict_cell(r.verdict);
}

// Exact counts move by hundredths of a percent: two decimals, signed.
std::string exact_change(double change) {
  return (change > 0 ? "+" : change < 0 ? "−" : "") + fmt_fixed(std::fabs(change) * 100, 2) + "%";
}

std::string signed_fixed(double v, int decimals) {
  return (v > 0 ? "+" : v < 0 ? "−" : "") + fmt_fixed(std::fabs(v), decimals);
}

std::string moves_markdown(const std::vector<CostMoves>& moves) {
  std::string md;
  for (const auto& m : moves) {
    md += "#### " + md_cell(m.scenario) + ": where the instructions per request moved\n\n";
    if (!m.error.empty()) {
      md += "No breakdown: " + md_cell(m.error) + ".\n\n";
      continue;
    }
    md += "| group | HEAD − BASE |\n|---|---:|\n";
    for (const auto& [group, v] : m.groups)
      if (std::fabs(v) >= 0.01) md += "| " + group + " | " + signed_fixed(v, 2) + " |\n";
    md += "\n| function | object | group | HEAD − BASE |\n|---|---|---|---:|\n";
    for (const auto& f : m.top)
      md += "| " + md_code_cell(f.function) + " | " + md_cell(f.object) + " | " + f.group + " | " +
            signed_fixed(f.per_request, 2) + " |\n";
    md += "\n";
  }
  return md;
}

}  // namespace

std::string comparison_markdown(const Comparison& c) {
  std::map<Verdict, int> counts;
  for (const auto& r : c.rows) ++counts[r.verdict];
  const auto& o = c.options;
  std::string md;
  md += c.has_regression() ? "## gatebench compare: REGRESSION\n\n"
                           : "## gatebench compare: no regression\n\n";
  md += "BASE `" + c.base_file + "` → HEAD `" + c.head_file + "`\n\n";
  md += "| verdict | count |\n|---|---:|\n";
  for (const auto& [v, n] : counts)
    md += "| " + std::string(verdict_name(v)) + " | " + std::to_string(n) + " |\n";
  md += "\n";

  const char* sections[] = {"micro", "instructions", "macro", "exact"};
  for (const char* section : sections) {
    bool header = false;
    for (const auto& r : c.rows) {
      if (r.section != section) continue;
      if (!header) {
        header = true;
        if (r.section == std::string("micro")) {
          md += "### micro (" + std::string(o.metric == TimeMetric::cpu_time ? "CPU" : "real") +
                " time per iteration, median)\n\nMann–Whitney U, two-sided, α = " +
                fmt_fixed(o.alpha, 2) + "; minimum change " + fmt_percent(o.min_change, false) +
                "; ≥ " + std::to_string(o.min_repetitions) + " repetitions per side.\n\n";
          md += "| benchmark | base | head | change | p-value | reps | verdict | note |\n";
          md += "|---|---:|---:|---:|---:|---:|---|---|\n";
        } else if (r.section == std::string("instructions")) {
          md += "### instructions per iteration (callgrind)\n\nDeterministic; threshold " +
                fmt_percent(o.instructions_threshold, false) + ".\n\n";
          md +=
              "| benchmark | base | head | change | verdict | note "
              "|\n|---|---:|---:|---:|---|---|\n";
        } else if (r.section == std::string("exact")) {
          md +=
              "### exact cost per request (callgrind and valgrind's system-call trace, runs "
              "of N and 2N requests differenced)\n\nDeterministic; threshold " +
              fmt_percent(o.exact_threshold, false) +
              " for instructions and for system calls per request. A scenario ok in BASE and "
              "failed in HEAD is a regression.\n\n";
          md += "| scenario | measure | base | head | change | verdict | note |\n";
          md += "|---|---|---:|---:|---:|---|---|\n";
        } else {
          md +=
              "### macro (medians over the ok rounds)\n\nMann–Whitney U over the per-round "
              "samples, two-sided, α = " +
              fmt_fixed(o.alpha, 2) + "; ≥ " + std::to_string(o.min_rounds) +
              " ok rounds per side. Minimum change: CPU µs per request of the target +" +
              fmt_percent(o.cpu_threshold, false) + ", vs nginx (paired per round) −" +
              fmt_percent(o.vs_nginx_threshold, false) +
              ", p99 (paired per round with the baseline's, else absolute) +" +
              fmt_percent(o.p99_threshold, false) +
              ". A scenario ok in BASE and failed in HEAD is a regression.\n\n";
          md +=
              "Could see: the smallest change this comparison catches 95% of the time (its "
              "minimum change plus the spread of two medians at the rounds' per-round spread, "
              "given after it; docs/gating.md). A no change reads as no change of that size or "
              "more.\n\n";
          md +=
              "| scenario | measure | base | head | change | p-value | rounds | could see | "
              "verdict | note |\n";
          md += "|---|---|---:|---:|---:|---:|---:|---:|---|---|\n";
        }
      }
      const std::string change = r.change ? fmt_percent(*r.change) : "–";
      if (r.section == std::string("micro")) {
        md += "| " + md_code_cell(r.name) + " | " + value_text(r, r.base) + " | " +
              value_text(r, r.head) + " | " + change + " | " +
              (r.p_value ? fmt_fixed(*r.p_value, 4) : "–") + " | " + std::to_string(r.base_n) +
              "/" + std::to_string(r.head_n) + " | " + verdict_cell(r.verdict) + " | " +
              md_cell(r.note) + " |\n";
      } else if (r.section == std::string("instructions")) {
        md += "| " + md_code_cell(r.name) + " | " + value_text(r, r.base) + " | " +
              value_text(r, r.head) + " | " + change + " | " + verdict_cell(r.verdict) + " | " +
              md_cell(r.note) + " |\n";
      } else if (r.section == std::string("exact")) {
        md += "| " + md_cell(r.name) + " | " + r.measure + " | " + value_text(r, r.base) + " | " +
              value_text(r, r.head) + " | " + (r.change ? exact_change(*r.change) : "–") + " | " +
              verdict_cell(r.verdict) + " | " + md_cell(r.note) + " |\n";
      } else {
        md += "| " + md_cell(r.name) + " | " + r.measure + " | " + value_text(r, r.base) + " | " +
              value_text(r, r.head) + " | " + change + " | " +
              (r.p_value ? fmt_fixed(*r.p_value, 4) : "–") + " | " + std::to_string(r.base_n) +
              "/" + std::to_string(r.head_n) + " | " + could_see(r) + " | " +
              macro_verdict_cell(r) + " | " + md_cell(r.note) + " |\n";
      }
    }
    if (header) md += "\n";
    if (header && section == std::string("exact")) md += moves_markdown(c.moves);
  }
  return md;
}

json comparison_json(const Comparison& c) {
  const auto& o = c.options;
  json rows = json::array();
  for (const auto& r : c.rows) {
    json row = {{"section", r.section}, {"name", r.name},
                {"measure", r.measure}, {"verdict", verdict_name(r.verdict)},
                {"base_n", r.base_n},   {"head_n", r.head_n},
                {"note", r.note}};
    row["base"] = r.base ? json(*r.base) : json(nullptr);
    row["head"] = r.head ? json(*r.head) : json(nullptr);
    row["change"] = r.change ? json(*r.change) : json(nullptr);
    if (r.round_spread) {
      row["round_spread"] = *r.round_spread;
      row["mdc"] = r.mdc ? json(*r.mdc) : json(nullptr);
    }
    row["p_value"] = r.p_value ? json(*r.p_value) : json(nullptr);
    rows.push_back(std::move(row));
  }
  json moves = json::array();
  for (const auto& m : c.moves) {
    json top = json::array();
    for (const auto& f : m.top)
      top.push_back({{"object", f.object},
                     {"function", f.function},
                     {"group", f.group},
                     {"per_request", f.per_request}});
    moves.push_back(
        {{"scenario", m.scenario}, {"groups", m.groups}, {"top", top}, {"error", m.error}});
  }
  return {{"schema", "gatebench.compare/1"},
          {"base", c.base_file},
          {"head", c.head_file},
          {"regression", c.has_regression()},
          {"options",
           {{"alpha", o.alpha},
            {"min_change", o.min_change},
            {"min_repetitions", o.min_repetitions},
            {"metric", o.metric == TimeMetric::cpu_time ? "cpu_time" : "real_time"},
            {"instructions_threshold", o.instructions_threshold},
            {"min_rounds", o.min_rounds},
            {"cpu_threshold", o.cpu_threshold},
            {"vs_nginx_threshold", o.vs_nginx_threshold},
            {"p99_threshold", o.p99_threshold},
            {"exact_threshold", o.exact_threshold}}},
          {"rows", rows},
          {"moves", moves}};
}

}  // namespace gatebench::tools
