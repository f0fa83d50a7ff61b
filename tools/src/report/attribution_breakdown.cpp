#include "tools/src/report/attribution_breakdown.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <stdexcept>

#include "tools/src/results/format.hpp"

namespace gatebench::tools {

using nlohmann::json;

namespace {

std::string signed_count(double v) {
  if (std::round(v) == 0) return "0";
  return (v > 0 ? "+" : "−") + fmt_count(std::fabs(v));
}

}  // namespace

bool agrees_within(double difference, double remainder) {
  return std::fabs(remainder) <= std::max(kAgreement * std::fabs(difference), kAgreementFloor);
}

std::vector<AttributionBreakdown> attribution_breakdowns(const ReportModel& m, std::size_t top) {
  std::vector<AttributionBreakdown> out;
  if (!m.macro_instructions) return out;
  std::map<std::string, std::vector<FunctionDelta>> cache;
  std::map<std::string, std::string> failures;
  auto functions_of = [&](const std::string& name) -> const std::vector<FunctionDelta>* {
    if (auto it = cache.find(name); it != cache.end()) return &it->second;
    if (failures.contains(name)) return nullptr;
    const ScenarioInstructionCount* s = m.macro_instructions->find(name);
    try {
      if (!s || s->status != "ok") throw std::runtime_error(name + ": not counted");
      return &cache.emplace(name, per_request_functions(*s)).first->second;
    } catch (const std::exception& e) {
      failures[name] = e.what();
      return nullptr;
    }
  };
  for (const auto& a : m.attribution) {
    if (!a.difference_ir) continue;
    AttributionBreakdown b;
    b.row = &a;
    if (a.remainder_ir) b.agrees = agrees_within(*a.difference_ir, *a.remainder_ir);
    const auto* scenario = functions_of(a.rule.scenario);
    const auto* baseline = functions_of(a.rule.baseline);
    if (!scenario || !baseline) {
      b.error = failures[scenario ? a.rule.baseline : a.rule.scenario];
      out.push_back(std::move(b));
      continue;
    }
    for (std::string_view g : kCostGroups) b.groups[g] = 0;
    std::map<std::string, FunctionDelta> diff;
    for (const auto* list : {scenario, baseline}) {
      const double sign = list == scenario ? 1.0 : -1.0;
      for (const auto& f : *list) {
        b.groups[f.group] += sign * f.per_request;
        auto [it, fresh] = diff.try_emplace(key_of(f), f);
        if (fresh) it->second.per_request = 0;
        it->second.per_request += sign * f.per_request;
      }
    }
    for (auto& [key, f] : diff)
      if (f.group != "hot path") b.top.push_back(std::move(f));
    std::stable_sort(b.top.begin(), b.top.end(),
                     [](const FunctionDelta& x, const FunctionDelta& y) {
                       return std::fabs(x.per_request) > std::fabs(y.per_request);
                     });
    if (b.top.size() > top) b.top.resize(top);
    out.push_back(std::move(b));
  }
  return out;
}

std::string breakdown_markdown(const ReportModel& m,
                               const std::vector<AttributionBreakdown>& rows) {
  std::string md = "## Cost attribution in instructions per request\n\n";
  if (m.macro_instructions_file) md += "Macro: `" + *m.macro_instructions_file + "`";
  if (m.instructions_file) md += "; micro: `" + *m.instructions_file + "`";
  md +=
      "\n\nΔ = scenario − baseline, instructions per request (callgrind, (I(2N) − I(N)) / N). "
      "micro = the instructions per op of the hot paths the feature adds. The remainder "
      "(Δ − micro) agrees when it is within 20% of Δ or 10 instructions; the group columns split "
      "Δ by function "
      "(per function: scenario − baseline).\n\n";
  md += "| feature | Δ | micro | remainder | share | agrees |";
  for (std::string_view g : kCostGroups) md += " " + std::string(g) + " |";
  md += "\n|---|---:|---:|---:|---:|---|";
  for (std::size_t i = 0; i < kCostGroups.size(); ++i) md += "---:|";
  md += "\n";
  for (const auto& b : rows) {
    const Attribution& a = *b.row;
    md += "| " + a.rule.label + " | " + signed_count(*a.difference_ir) + " | " +
          (a.micro_ir_sum ? std::string(a.micro_ir_scaled ? "≈" : "") + fmt_count(*a.micro_ir_sum)
                          : "–") +
          " | " + (a.remainder_ir ? signed_count(*a.remainder_ir) : "–") + " | " +
          (a.remainder_ir && *a.difference_ir != 0
               ? fmt_percent(*a.remainder_ir / *a.difference_ir, false)
               : "–") +
          " | " + (b.agrees ? (*b.agrees ? "yes" : "no") : "–") + " |";
    // Appended piece by piece: g++ 12 at -O3 warns (-Wstringop-overflow, a false positive) on
    // `" " + std::string` here.
    for (std::string_view g : kCostGroups) {
      md += ' ';
      md += b.error.empty() ? signed_count(b.groups.at(g)) : std::string("–");
      md += " |";
    }
    md += "\n";
  }
  md += "\nLargest functions outside the hot path (scenario − baseline, per request):\n\n";
  for (const auto& b : rows) {
    md += "- **" + b.row->rule.label + "** (" + b.row->rule.scenario + " − " +
          b.row->rule.baseline + "): ";
    for (const auto& why : b.row->micro_ir_missing) md += "micro " + why + "; ";
    if (!b.error.empty()) {
      md += "no breakdown: " + b.error + "\n";
      continue;
    }
    std::string list;
    for (const auto& f : b.top)
      list += (list.empty() ? "" : "; ") + std::string("`") +
              std::string(without_parameters(f.function)) + "` " + signed_count(f.per_request) +
              " (" + std::string(f.group) + ")";
    md += (list.empty() ? "none" : list) + "\n";
  }
  return md;
}

json breakdown_json(const ReportModel& m, const std::vector<AttributionBreakdown>& rows) {
  json list = json::array();
  auto opt = [](const std::optional<double>& v) { return v ? json(*v) : json(nullptr); };
  for (const auto& b : rows) {
    const Attribution& a = *b.row;
    json groups = json::object();
    for (const auto& [g, v] : b.groups) groups[std::string(g)] = v;
    json top = json::array();
    for (const auto& f : b.top)
      top.push_back({{"function", f.function},
                     {"object", f.object},
                     {"group", std::string(f.group)},
                     {"per_request", f.per_request}});
    list.push_back({{"label", a.rule.label},
                    {"scenario", a.rule.scenario},
                    {"baseline", a.rule.baseline},
                    {"difference", opt(a.difference_ir)},
                    {"micro", opt(a.micro_ir_sum)},
                    {"micro_scaled", a.micro_ir_scaled},
                    {"micro_not_attributable", a.micro_ir_missing},
                    {"remainder", opt(a.remainder_ir)},
                    {"agrees", b.agrees ? json(*b.agrees) : json(nullptr)},
                    {"groups", b.error.empty() ? groups : json(nullptr)},
                    {"top", top},
                    {"error", b.error}});
  }
  return {{"schema", "gatebench.attribution/1"},
          {"macro_instructions",
           m.macro_instructions_file ? json(*m.macro_instructions_file) : json(nullptr)},
          {"instructions", m.instructions_file ? json(*m.instructions_file) : json(nullptr)},
          {"agreement", kAgreement},
          {"agreement_floor", kAgreementFloor},
          {"rows", list}};
}

}  // namespace gatebench::tools
