#include "tools/src/attribution_breakdown.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <stdexcept>

#include "tools/src/callgrind_file.hpp"
#include "tools/src/format.hpp"

namespace gatebench::tools {

using nlohmann::json;

namespace {

bool contains(std::string_view s, std::string_view part) {
  return s.find(part) != std::string_view::npos;
}

bool starts_with_any(std::string_view s, std::initializer_list<std::string_view> prefixes) {
  return std::any_of(prefixes.begin(), prefixes.end(),
                     [&](std::string_view p) { return s.starts_with(p); });
}

// glibc names its variants __memcpy_avx_unaligned_erms, __strlen_avx2, ...
bool is_copying(std::string_view fn) {
  while (fn.starts_with('_')) fn.remove_prefix(1);
  return starts_with_any(fn, {"memcpy", "memmove", "mempcpy", "memset", "memcmp", "memchr",
                              "rawmemchr", "strlen", "strnlen", "strcpy", "stpcpy", "strncpy",
                              "strcmp", "strncmp", "strchr", "strrchr", "strcasecmp", "wmem"});
}

bool is_allocation(std::string_view fn) {
  return starts_with_any(
      fn, {"malloc", "free", "calloc", "realloc", "cfree", "_int_malloc", "_int_free",
           "_int_realloc", "malloc_consolidate", "unlink_chunk", "tcache_", "sysmalloc",
           "__libc_malloc", "__libc_free", "operator new", "operator delete"});
}

std::string base_name(const std::string& object) {
  return std::filesystem::path(object).filename().string();
}

std::string signed_count(double v) {
  if (std::round(v) == 0) return "0";
  return (v > 0 ? "+" : "−") + fmt_count(std::fabs(v));
}

// "ns::f(args) const" -> "ns::f": parameter types name other namespaces (a writer taking an
// http1::ResponseHead is no parser). "(anonymous namespace)" is part of the name.
std::string_view without_parameters(std::string_view fn) {
  static constexpr std::string_view kAnonymous = "(anonymous namespace)";
  for (std::size_t at = fn.find('('); at != std::string_view::npos; at = fn.find('(', at + 1)) {
    if (fn.substr(at, kAnonymous.size()) == kAnonymous) continue;
    if (at > 0) return fn.substr(0, at);
    break;
  }
  return fn;
}

std::string key_of(const FunctionDelta& f) {
  return f.object + "\n" + f.function;
}

}  // namespace

std::string_view cost_group(std::string_view object, std::string_view signature) {
  const std::string_view function = without_parameters(signature);
  if (contains(object, "libssl") || contains(object, "libcrypto")) return "OpenSSL";
  if (contains(function, "access_log::") || contains(function, "AccessLogSink")) return "logging";
  if (starts_with_any(function, {"gatebench::cidr::", "gatebench::rules::", "gatebench::tokens::",
                                 "gatebench::cache::"}))
    return "hot path";
  if (contains(function, "gatebench::http1::") || contains(function, "parse") ||
      contains(function, "from_chars"))
    return "parsing";
  if (is_allocation(function)) return "allocation";
  const bool libc = contains(object, "libc.so") || contains(object, "ld-linux") ||
                    contains(object, "vdso") || contains(object, "vgpreload");
  if (libc && is_copying(function)) return "copying";
  if (libc) return "libc/syscalls";
  if (contains(function, "gatebench::")) return "gateway";
  return "other";
}

bool agrees_within(double difference, double remainder) {
  return std::fabs(remainder) <= std::max(kAgreement * std::fabs(difference), kAgreementFloor);
}

std::vector<FunctionDelta> per_request_functions(const ScenarioInstructionCount& s) {
  if (s.runs.size() != 2 || s.runs[0].callgrind_files.empty() || s.runs[1].callgrind_files.empty())
    throw std::runtime_error(s.name + ": instructions.json has no two callgrind files");
  const double n =
      static_cast<double>(s.runs[1].requests) - static_cast<double>(s.runs[0].requests);
  if (n <= 0) throw std::runtime_error(s.name + ": the second run has no more requests");
  std::map<std::string, std::size_t> index;
  std::vector<FunctionDelta> out;
  for (int run = 0; run < 2; ++run) {
    const double sign = run == 0 ? -1.0 : 1.0;
    // A process tree's files add up: the same function in two processes is one row.
    for (const auto& file : s.runs[static_cast<std::size_t>(run)].callgrind_files) {
      for (const auto& c : callgrind_self_costs(file)) {
        FunctionDelta f{base_name(c.object), c.function, cost_group(c.object, c.function), 0};
        const auto [it, fresh] = index.emplace(key_of(f), out.size());
        if (fresh) out.push_back(std::move(f));
        out[it->second].per_request += sign * c.self / n;
      }
    }
  }
  return out;
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
    for (std::string_view g : kCostGroups)
      md += " " + (b.error.empty() ? signed_count(b.groups.at(g)) : std::string("–")) + " |";
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
