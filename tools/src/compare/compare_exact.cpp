// The exact gate: per scenario of two instructions.json files, instructions and system calls
// per request (N/2N differenced counts, no noise to test against) against one threshold, and
// where the instructions moved, from both sides' callgrind files. Method: docs/compare.md.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <set>
#include <stdexcept>

#include "tools/src/compare/compare.hpp"
#include "tools/src/profile/cost_groups.hpp"

namespace gatebench::tools {

namespace {

using common::MacroScenarioCount;

std::string status_text(const char* side, const MacroScenarioCount& s) {
  return std::string(side) + " " + s.status + (s.reason.empty() ? "" : ": " + s.reason);
}

CompareRow exact_row(const std::string& name, const std::string& measure) {
  CompareRow row;
  row.section = "exact";
  row.name = name;
  row.measure = measure;
  row.base_n = row.head_n = 1;
  return row;
}

// The verdict the statuses or the methods alone decide; false when both can be compared.
bool settled_without_counts(const MacroScenarioCount& b, const MacroScenarioCount& h,
                            CompareRow& row) {
  if (b.status == "ok" && h.status == "ok") {
    if (b.method == h.method) return false;
    row.verdict = Verdict::skipped;
    row.note = "methods differ: BASE " + (b.method.empty() ? "toggle" : b.method) + ", HEAD " +
               (h.method.empty() ? "toggle" : h.method);
    return true;
  }
  if (b.status == "ok" && h.status == "failed") {
    row.verdict = Verdict::regression;
    row.note = status_text("HEAD", h);
    return true;
  }
  row.verdict = Verdict::skipped;
  row.note = b.status != "ok" && h.status != "ok"
                 ? status_text("BASE", b) + "; " + status_text("HEAD", h)
                 : (b.status != "ok" ? status_text("BASE", b) : status_text("HEAD", h));
  return true;
}

void compare_count(const std::string& name, const char* measure, std::optional<double> b,
                   std::optional<double> h, double threshold, std::vector<CompareRow>& out) {
  if (!b && !h) return;  // neither side counted it (system calls: files from before they were)
  CompareRow row = exact_row(name, measure);
  row.base = b;
  row.head = h;
  if (!b || !h) {
    row.verdict = Verdict::skipped;
    row.note = std::string(b ? "HEAD" : "BASE") + " has no count";
  } else {
    row.change = relative_change(*b, *h);
    row.verdict = threshold_verdict(row.change, threshold);
  }
  out.push_back(std::move(row));
}

bool files_exist(const MacroScenarioCount& s) {
  if (s.runs.size() != 2) return false;
  for (const auto& r : s.runs)
    for (const auto& f : r.callgrind_files)
      if (!std::filesystem::exists(f)) return false;
  return !s.runs[0].callgrind_files.empty() && !s.runs[1].callgrind_files.empty();
}

CostMoves moves_of(const MacroScenarioCount& b, const MacroScenarioCount& h, std::size_t top) {
  CostMoves m;
  m.scenario = b.name;
  if (!files_exist(b) || !files_exist(h)) {
    m.error = "the callgrind files of both sides are needed (not found next to the JSON files)";
    return m;
  }
  try {
    std::map<std::pair<std::string, std::string>, MovedFunction> by_key;
    for (const auto* side : {&b, &h}) {
      const double sign = side == &b ? -1.0 : 1.0;
      for (const auto& f : per_request_functions(*side)) {
        MovedFunction& moved = by_key[{f.object, f.function}];
        moved.object = f.object;
        moved.function = f.function;
        moved.group = std::string(f.group);
        moved.per_request += sign * f.per_request;
      }
    }
    for (const auto& [key, f] : by_key) {
      m.groups[f.group] += f.per_request;
      m.top.push_back(f);
    }
    std::sort(m.top.begin(), m.top.end(), [](const MovedFunction& x, const MovedFunction& y) {
      return std::fabs(x.per_request) > std::fabs(y.per_request);
    });
    // A function that moved by less than a hundredth of an instruction per request did not.
    while (!m.top.empty() && (m.top.size() > top || std::fabs(m.top.back().per_request) < 0.01))
      m.top.pop_back();
  } catch (const std::exception& e) {
    m.error = e.what();
  }
  return m;
}

}  // namespace

double CompareOptions::exact_threshold_for(const std::string& scenario) const {
  const auto it = exact_threshold_by_scenario.find(scenario);
  return it == exact_threshold_by_scenario.end() ? exact_threshold : it->second;
}

void compare_exact(const common::MacroCountFile& base, const common::MacroCountFile& head,
                   const CompareOptions& opt, std::vector<CompareRow>& out,
                   std::vector<CostMoves>& moves) {
  std::vector<std::string> names;
  std::set<std::string> seen;
  for (const auto* file : {&base, &head})
    for (const auto& s : file->scenarios)
      if (seen.insert(s.name).second) names.push_back(s.name);
  for (const auto& name : names) {
    const MacroScenarioCount* b = base.find(name);
    const MacroScenarioCount* h = head.find(name);
    if (!b || !h) {
      CompareRow row = exact_row(name, "scenario");
      row.verdict = b ? Verdict::removed : Verdict::added;
      out.push_back(std::move(row));
      continue;
    }
    if (CompareRow row = exact_row(name, "scenario"); settled_without_counts(*b, *h, row)) {
      out.push_back(std::move(row));
      continue;
    }
    const std::size_t first = out.size();
    const double threshold = opt.exact_threshold_for(name);
    compare_count(name, "instructions_per_request", b->instructions_per_request,
                  h->instructions_per_request, threshold, out);
    compare_count(name, "syscalls_per_request", b->syscalls_per_request, h->syscalls_per_request,
                  threshold, out);
    const bool moved = std::any_of(
        out.begin() + static_cast<std::ptrdiff_t>(first), out.end(), [](const CompareRow& r) {
          return r.verdict == Verdict::regression || r.verdict == Verdict::improvement;
        });
    if (moved) moves.push_back(moves_of(*b, *h, opt.top_functions));
  }
}

}  // namespace gatebench::tools
