#include "tools/src/report/report_model.hpp"

#include <re2/re2.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>

#include "macro/common/usage_error.hpp"
#include "tools/src/report/report_naive.hpp"
#include "tools/src/results/json_file.hpp"

namespace gatebench::tools {

using nlohmann::json;

BenchmarkName split_benchmark_name(const std::string& name) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  while (true) {
    const std::size_t slash = name.find('/', start);
    parts.push_back(
        name.substr(start, slash == std::string::npos ? std::string::npos : slash - start));
    if (slash == std::string::npos) break;
    start = slash + 1;
  }
  if (parts.size() == 1) return {parts[0], "", ""};
  if (parts.size() == 2) return {parts[0], "", parts[1]};
  std::string rest = parts[2];
  for (std::size_t i = 3; i < parts.size(); ++i) rest += "/" + parts[i];
  return {parts[0], parts[1], rest};
}

std::vector<AttributionRule> default_attribution_rules() {
  // What each scenario adds over its baseline, in micro benchmark names (docs/report.md).
  return {
      {"protected − default",
       "gateway-protected",
       "gateway-default",
       // The protected rule set already includes exploit blocking and the rate limit.
       {"^rules/gatecore/protected/clean$"}},
      {"queue − default", "gateway-queue", "gateway-default", {"^token/gatecore/admission$"}},
      {"challenge-pass − default",
       "gateway-challenge-pass",
       "gateway-default",
       {"^token/gatecore/pass$"}},
      {"https keep-alive − http", "gateway-https-keepalive", "gateway-default", {}},
      {"https new-conn − keep-alive",
       "gateway-https-newconn",
       "gateway-https-keepalive",
       {"^tls/handshake_tls13_full$"},
       "server_ns"},
      // The ablation (macro/scenarios/ablation-*.json): one feature on a host each, every host
      // named like default.test (7 letters + ".test", first in its configuration) so that the
      // name costs what the baseline's does; ablation-none, with no feature, shows it.
      {"host name alone (no feature)", "ablation-none", "gateway-default", {}},
      {"IP list (1,000 CIDRs)", "ablation-iplist", "gateway-default", {"^cidr/gatecore/list_1k$"}},
      {"country lookup", "ablation-country", "gateway-default", {"^cidr/gatecore/geoip_country$"}},
      // The protected set's evaluation: its 30 rules, with its exploit scan and rate limit.
      {"30 rules", "ablation-rules30", "gateway-default", {"^rules/gatecore/protected/clean$"}},
      // The default host scans for exploits already (detect): blocking adds no scan, only the
      // decision, which no micro benchmark isolates.
      {"exploit blocking", "ablation-exploits", "gateway-default", {}},
      // One client address: the load generator's, a key already in the table.
      {"rate limit", "ablation-ratelimit", "gateway-default", {"^ratelimit/gatecore/1k_seen$"}},
      {"security headers", "ablation-headers", "gateway-default", {}},
      {"access log off", "ablation-nolog", "gateway-default", {}},
      // The others' micro paths once each: the IP list is one of the 30 rules, and the protected
      // set's evaluation holds the exploit scan and the rate limit, so those are not added again.
      {"all features",
       "ablation-all",
       "gateway-default",
       {"^cidr/gatecore/geoip_country$", "^rules/gatecore/protected/clean$"}},
  };
}

std::vector<AttributionRule> load_attribution_rules(const std::string& file) {
  const json doc = load_json_file(file);
  const common::JsonField root(doc, file);
  root.expect_array();
  std::vector<AttributionRule> rules;
  for (std::size_t i = 0; i < root.size(); ++i) {
    const common::JsonField rule = root.at(i);
    AttributionRule r;
    r.label = rule.child("label").string();
    r.scenario = rule.child("scenario").string();
    r.baseline = rule.child("baseline").string();
    r.counter = rule.child("counter").optional_string().value_or("");
    const common::JsonField micro = rule.child("micro");
    micro.expect_array();
    for (std::size_t k = 0; k < micro.size(); ++k) {
      const std::string pattern = micro.at(k).string();
      const RE2 check(pattern, RE2::Quiet);
      if (!check.ok()) micro.at(k).fail("not a valid regex (" + check.error() + ")");
      r.micro_patterns.push_back(pattern);
    }
    rules.push_back(std::move(r));
  }
  return rules;
}

namespace {

std::optional<double> median_of(const std::vector<double>& v) {
  if (v.empty()) return std::nullopt;
  return median(v);
}

double coefficient_of_variation(const std::vector<double>& v) {
  if (v.size() < 2) return 0.0;
  double mean = 0;
  for (double x : v) mean += x;
  mean /= static_cast<double>(v.size());
  double var = 0;
  for (double x : v) var += (x - mean) * (x - mean);
  var /= static_cast<double>(v.size() - 1);
  return mean > 0 ? std::sqrt(var) / mean : 0.0;
}

// Random interleaving shuffles micro.json; the report groups hotpath/case together (in order of
// first appearance) with gatecore first and the limit last, so a group reads top to bottom.
std::vector<const MicroBenchmark*> report_order(const MicroRun& run) {
  std::map<std::string, std::size_t> hotpath_rank, case_rank;
  for (const auto& b : run.benchmarks) {
    const auto n = split_benchmark_name(b.name);
    hotpath_rank.try_emplace(n.hotpath, hotpath_rank.size());
    case_rank.try_emplace(n.hotpath + "\n" + n.case_name, case_rank.size());
  }
  auto impl_rank = [](const std::string& impl) {
    return impl == "gatecore" ? 0 : impl == "limit" ? 2 : 1;
  };
  std::vector<const MicroBenchmark*> order;
  for (const auto& b : run.benchmarks) order.push_back(&b);
  std::stable_sort(
      order.begin(), order.end(), [&](const MicroBenchmark* a, const MicroBenchmark* b) {
        const auto na = split_benchmark_name(a->name), nb = split_benchmark_name(b->name);
        const auto ka =
            std::make_tuple(hotpath_rank[na.hotpath], case_rank[na.hotpath + "\n" + na.case_name],
                            impl_rank(na.impl));
        const auto kb =
            std::make_tuple(hotpath_rank[nb.hotpath], case_rank[nb.hotpath + "\n" + nb.case_name],
                            impl_rank(nb.impl));
        return ka < kb;
      });
  return order;
}

void fill_micro_rows(ReportModel& m) {
  for (const MicroBenchmark* bp : report_order(*m.micro)) {
    const MicroBenchmark& b = *bp;
    MicroRow row;
    row.bench = &b;
    row.parts = split_benchmark_name(b.name);
    row.repetitions = b.cpu_ns.size();
    if (b.error.empty() && !b.cpu_ns.empty()) {
      row.cpu_ns = median(b.cpu_ns);
      row.real_ns = median(b.real_ns);
      row.cv = coefficient_of_variation(b.cpu_ns);
      row.items_per_second = median_of(b.items_per_second);
      row.bytes_per_second = median_of(b.bytes_per_second);
      row.ns_per_op = row.items_per_second && *row.items_per_second > 0
                          ? 1e9 / *row.items_per_second
                          : row.cpu_ns;
    }
    m.micro_rows.push_back(row);
  }
  // Ratios only within one hotpath/case (same input); a hotpath with a single limit case
  // (e.g. cidr/limit/l1_load) serves as the floor for all its cases.
  std::map<std::string, const MicroRow*> gatecore, limit_same_case;
  std::map<std::string, std::vector<const MicroRow*>> limits_of_hotpath;
  for (const auto& r : m.micro_rows) {
    if (r.ns_per_op <= 0) continue;
    const std::string key = r.parts.hotpath + "\n" + r.parts.case_name;
    if (r.parts.impl == "gatecore") gatecore[key] = &r;
    if (r.parts.impl == "limit") {
      limit_same_case[key] = &r;
      limits_of_hotpath[r.parts.hotpath].push_back(&r);
    }
  }
  for (auto& r : m.micro_rows) {
    if (r.ns_per_op <= 0) continue;
    const std::string key = r.parts.hotpath + "\n" + r.parts.case_name;
    if (auto it = gatecore.find(key); it != gatecore.end())
      r.vs_gatecore = r.ns_per_op / it->second->ns_per_op;
    const MicroRow* limit = nullptr;
    if (auto it = limit_same_case.find(key); it != limit_same_case.end())
      limit = it->second;
    else if (auto lh = limits_of_hotpath.find(r.parts.hotpath);
             lh != limits_of_hotpath.end() && lh->second.size() == 1)
      limit = lh->second[0];
    if (limit && limit != &r) {
      r.vs_limit = r.ns_per_op / limit->ns_per_op;
      r.limit_name = limit->bench->name;
    }
  }
  for (auto& r : m.micro_rows) r.slower_than_naive = faster_naive_peers(m.micro_rows, r);
}

std::optional<double> cpu_us_per_request(const MacroScenario& s) {
  if (!s.ok()) return std::nullopt;
  return s.cpu_us_per_request.target;
}

std::optional<bool> resolved(const MacroScenario& a, const MacroScenario& b) {
  const MacroInterval* ia = a.interval("cpu_us_per_request");
  const MacroInterval* ib = b.interval("cpu_us_per_request");
  if (!ia || !ib) return std::nullopt;
  return ia->hi < ib->lo || ib->hi < ia->lo;
}

std::optional<double> counter_of(const ReportModel& m, const std::string& bench,
                                 const std::string& counter) {
  if (!m.counters) return std::nullopt;
  return m.counters->median(bench, counter);
}

struct MicroInstructions {
  std::optional<double> per_op;
  std::string why_not;  // set when per_op is not
};

// Instructions per op of a micro benchmark: per iteration ÷ items per iteration, as its time per
// op is, scaled to the rule's counter when it has one. The items come from the instruction
// counts (gatebench micro --instructions records them), else from the micro time run; a count
// with neither is not attributable: per iteration it would be a whole batch, not one op.
MicroInstructions micro_instructions(const ReportModel& m, const AttributionRule& rule,
                                     const InstructionCount& c) {
  if (!c.error.empty()) return {std::nullopt, c.name + ": not counted (" + c.error + ")"};
  if (c.per_iteration <= 0) return {std::nullopt, c.name + ": no instructions counted"};
  const MicroRow* row = nullptr;
  for (const auto& r : m.micro_rows)
    if (r.bench->name == c.name && r.cpu_ns > 0) row = &r;
  std::optional<double> items = c.items_per_iteration;
  if (!items && row) {
    items = 1;
    if (row->items_per_second) {
      const double n = std::round(*row->items_per_second * row->cpu_ns / 1e9);
      if (n >= 1) items = n;
    }
  }
  if (!items)
    return {std::nullopt, c.name +
                              ": not attributable: the count is per iteration and no items per "
                              "iteration are known (re-count with gatebench micro --instructions, "
                              "which records them, or give the time run as --micro)"};
  const double per_op = c.per_iteration / *items;
  if (rule.counter.empty()) return {per_op, ""};
  const auto part = counter_of(m, c.name, rule.counter);
  if (!part || !row)
    return {std::nullopt, c.name + ": not attributable: its " + rule.counter +
                              " share of CPU time comes from the time run (--micro)"};
  return {per_op * std::min(1.0, *part / row->cpu_ns), ""};
}

void fill_instructions(const ReportModel& m, const AttributionRule& rule, Attribution& a) {
  if (m.macro_instructions) {
    const auto* s = m.macro_instructions->find(rule.scenario);
    const auto* b = m.macro_instructions->find(rule.baseline);
    if (s) a.scenario_ir = s->instructions_per_request;
    if (b) a.baseline_ir = b->instructions_per_request;
    if (a.scenario_ir && a.baseline_ir) a.difference_ir = *a.scenario_ir - *a.baseline_ir;
    if (s) a.scenario_syscalls = s->syscalls_per_request;
    if (b) a.baseline_syscalls = b->syscalls_per_request;
    if (a.scenario_syscalls && a.baseline_syscalls)
      a.difference_syscalls = *a.scenario_syscalls - *a.baseline_syscalls;
  }
  if (!m.instructions) return;
  for (const auto& pattern : rule.micro_patterns) {
    const RE2 re(pattern, RE2::Quiet);
    const auto c =
        std::find_if(m.instructions->benchmarks.begin(), m.instructions->benchmarks.end(),
                     [&](const InstructionCount& ic) { return RE2::PartialMatch(ic.name, re); });
    if (c == m.instructions->benchmarks.end()) {
      a.micro_ir_missing.push_back("no instruction count matches " + pattern);
      continue;
    }
    const MicroInstructions v = micro_instructions(m, rule, *c);
    if (!v.per_op) {
      a.micro_ir_missing.push_back(v.why_not);
      continue;
    }
    a.micro_ir.emplace_back(c->name, *v.per_op);
    a.micro_ir_scaled = !rule.counter.empty();
  }
  // A sum over part of the hot paths would pass the rest off as remainder: none then.
  if (a.micro_ir_missing.empty()) {
    double sum = 0;
    for (const auto& [name, v] : a.micro_ir) sum += v;
    a.micro_ir_sum = sum;
  }
  if (a.difference_ir && a.micro_ir_sum) {
    a.remainder_ir = *a.difference_ir - *a.micro_ir_sum;
    if (*a.difference_ir > 0) a.remainder_share = *a.remainder_ir / *a.difference_ir;
  }
}

void fill_attribution(ReportModel& m, const std::vector<AttributionRule>& rules) {
  for (const auto& rule : rules) {
    Attribution a;
    a.rule = rule;
    const MacroScenario* s = m.macro ? m.macro->find(rule.scenario) : nullptr;
    const MacroScenario* b = m.macro ? m.macro->find(rule.baseline) : nullptr;
    const bool counted = m.macro_instructions && m.macro_instructions->find(rule.scenario) &&
                         m.macro_instructions->find(rule.baseline);
    if ((!s || !b) && !counted) continue;  // neither run included this pair
    if (s && b) {
      a.scenario_us = cpu_us_per_request(*s);
      a.baseline_us = cpu_us_per_request(*b);
      if (a.scenario_us && a.baseline_us) {
        a.difference_us = *a.scenario_us - *a.baseline_us;
        a.resolved = resolved(*s, *b);
      } else {
        a.note = "scenario not ok or without CPU%/req/s";
      }
    }
    if (m.micro) {
      for (const auto& pattern : rule.micro_patterns) {
        const RE2 re(pattern, RE2::Quiet);
        const MicroRow* found = nullptr;
        for (const auto& r : m.micro_rows)
          if (r.ns_per_op > 0 && RE2::PartialMatch(r.bench->name, re)) {
            found = &r;
            break;
          }
        if (!found) {
          a.unmatched.push_back(pattern);
          continue;
        }
        if (rule.counter.empty()) {
          a.micro.emplace_back(found->bench->name, found->ns_per_op);
        } else if (auto ns = counter_of(m, found->bench->name, rule.counter)) {
          a.micro.emplace_back(found->bench->name + " " + rule.counter, *ns);
        } else {
          a.unmatched.push_back(pattern + " (no " + rule.counter + " counter)");
        }
      }
    }
    fill_instructions(m, rule, a);
    if (!a.micro.empty()) {
      double ns = 0;
      for (const auto& [name, v] : a.micro) ns += v;
      a.micro_us = ns / 1000.0;
      if (a.difference_us && *a.difference_us > 0 && a.resolved.value_or(true))
        a.explained_share = *a.micro_us / *a.difference_us;
    }
    if (rule.micro_patterns.empty() && a.note.empty())
      a.note = "no micro benchmark covers this difference";
    if (a.resolved == false)
      a.note += std::string(a.note.empty() ? "" : "; ") +
                "not resolved: the CPU per request intervals of the two scenarios overlap";
    m.attribution.push_back(std::move(a));
  }
}

void fill_handshakes(ReportModel& m) {
  for (const auto& s : m.macro->scenarios) {
    if (!s.file.medians || !s.file.medians->handshakes) continue;
    const common::MacroScenarioHandshakes& h = *s.file.medians->handshakes;
    auto cpu = [&](const char* role) -> std::optional<double> {
      const auto it = h.cpu_us_per_handshake.find(role);
      return it == h.cpu_us_per_handshake.end() ? std::nullopt : it->second;
    };
    HandshakeRow row;
    row.scenario = &s;
    row.harness_limited = s.reason.find("limited by the harness") != std::string::npos;
    row.per_s = h.per_s;
    row.full = static_cast<double>(h.full);
    row.resumed = static_cast<double>(h.resumed);
    row.target_us = cpu("target");
    row.load_us = cpu("load");
    row.target_interval = s.interval("cpu_us_per_handshake");
    const bool resumed = row.resumed.value_or(0) > row.full.value_or(0);
    row.floor_benchmark = resumed ? "tls/handshake_tls13_resumed" : "tls/handshake_tls13_full";
    if (auto ns = counter_of(m, row.floor_benchmark, "server_ns")) row.floor_us = *ns / 1000;
    if (row.floor_us && *row.floor_us > 0 && row.target_us)
      row.vs_floor = *row.target_us / *row.floor_us;
    if (auto ns = counter_of(m, row.floor_benchmark, "client_ns")) row.client_floor_us = *ns / 1000;
    if (row.client_floor_us && *row.client_floor_us > 0 && row.load_us)
      row.load_vs_client_floor = *row.load_us / *row.client_floor_us;
    m.handshakes.push_back(row);
  }
}

}  // namespace

namespace {

std::vector<WorkloadGroup> workload_groups(const MacroRun& macro) {
  std::vector<WorkloadGroup> out;
  for (const auto& s : macro.scenarios) {
    const std::string& workload = s.file.workload;
    const std::string& target = s.file.target;
    if (workload.empty() || target.empty()) continue;
    auto g = std::find_if(out.begin(), out.end(),
                          [&](const WorkloadGroup& w) { return w.workload == workload; });
    if (g == out.end()) g = out.insert(out.end(), WorkloadGroup{workload, {}, {}});
    g->rows.push_back({target, &s});
    if (!s.baseline.empty() &&
        std::find(g->baselines.begin(), g->baselines.end(), s.baseline) == g->baselines.end())
      g->baselines.push_back(s.baseline);
  }
  // The baseline's own row first: the row every other one is read against.
  for (auto& g : out)
    std::stable_sort(g.rows.begin(), g.rows.end(), [](const WorkloadRow& a, const WorkloadRow& b) {
      auto own = [](const WorkloadRow& r) { return r.scenario->baseline == r.scenario->name; };
      return own(a) && !own(b);
    });
  return out;
}

}  // namespace

ReportModel build_report_model(const MicroRun* micro, const MacroRun* macro,
                               const InstructionRun* instructions,
                               const std::vector<AttributionRule>& rules,
                               const MicroCounters* counters,
                               const MacroInstructionRun* macro_instructions) {
  ReportModel m;
  m.counters = counters;
  m.macro_instructions = macro_instructions;
  m.micro = micro;
  m.macro = macro;
  m.instructions = instructions;
  if (micro) fill_micro_rows(m);
  if (macro) {
    for (const auto& s : macro->scenarios) m.scenarios.push_back({&s, cpu_us_per_request(s)});
    fill_handshakes(m);
    m.cache_hits = cache_hit_rows(*macro);
    m.workloads = workload_groups(*macro);
  }
  if (macro || macro_instructions) fill_attribution(m, rules);
  return m;
}

}  // namespace gatebench::tools
