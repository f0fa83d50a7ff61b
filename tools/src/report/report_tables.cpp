#include "tools/src/report/report_tables.hpp"

#include <algorithm>
#include <cstdio>
#include <set>
#include <tuple>

#include "macro/common/detectable.hpp"
#include "tools/src/compare/compare.hpp"
#include "tools/src/results/format.hpp"

namespace gatebench::tools {

using nlohmann::json;

namespace {

// The attacks of the shipped waf-mix request mix (macro/scenarios/configs/waf-mix-requests.json,
// expect_status 403): templates named attack-*, and the three of macro.json files written before
// the corpus grew; every other template of a mix is benign traffic.
bool is_attack_template(const std::string& name) {
  static const std::set<std::string> before_the_corpus = {"sqli", "xss", "traversal"};
  return name.starts_with("attack-") || before_the_corpus.count(name) > 0;
}

// A mix of more templates than this lists only those with unexpected answers, then the totals.
constexpr std::size_t kTemplatesListedInFull = 12;

std::string us(const std::optional<double>& v) {
  return v ? fmt_sig(*v) + " µs" : std::string("–");
}

std::string sig(const std::optional<double>& v) {
  return v ? fmt_sig(*v) : std::string("–");
}

std::string count_or_dash(const std::optional<double>& v) {
  return v ? fmt_count(*v) : std::string("–");
}

std::optional<double> number_at(const json& obj, const char* key) {
  if (!obj.is_object() || !obj.contains(key) || !obj[key].is_number()) return std::nullopt;
  return obj[key].get<double>();
}

// "0.78 [0.75, 0.80]": the median with its interval over the ok rounds, when the driver gave one.
std::string with_interval(const std::optional<double>& median, const MacroInterval* iv,
                          bool ratio) {
  auto f = [&](double v) { return ratio ? fmt_fixed(v, 2) : fmt_sig(v); };
  if (!median) return "–";
  std::string s = f(*median);
  if (iv) s += " [" + f(iv->lo) + ", " + f(iv->hi) + "]";
  return s;
}

// What a comparison of two runs like this one could see in a ratio: its minimum detectable change
// at 95% power (macro/common/detectable.hpp) with as many rounds per side as this run's ok ones,
// at their spread and compare's default line for the measure: "; sees ≥ 6.1%".
using RoundRatio = std::optional<double> MacroFigures::*;
std::string detectable(const MacroScenario& s, RoundRatio field, double line) {
  std::vector<double> v;
  for (const auto& r : s.rounds)
    if (r.ok() && r.*field) v.push_back(*(r.*field));
  const auto spread = common::relative_spread(v);
  if (!spread) return "";
  const auto mdc = common::minimum_detectable_change(*spread, v.size(), v.size(), line);
  return mdc ? "; sees ≥ " + common::percent_text(*mdc) : "; sees nothing";
}

std::string interval_level(const MacroScenario& s) {
  for (const char* key : {"rps", "vs_nginx", "cpu_us_per_request", "p99_us"})
    if (const MacroInterval* iv = s.interval(key))
      return fmt_percent(iv->level, false) + " (n = " + std::to_string(iv->n) + ")";
  return "–";
}

std::string rounds_text(const MacroScenario& s) {
  return std::to_string(s.rounds_ok) + "/" + std::to_string(s.rounds_planned);
}

ReportTable throughput(const ReportModel& m) {
  ReportTable t{"Throughput and latency",
                "Medians over the ok rounds (a failed scenario still shows what its ok rounds "
                "measured); peak MB is the driver's (the highest of the rounds); errors are "
                "summed over the rounds that ran load.",
                {"scenario", "status", "rounds ok", "req/s", "req/s per gateway CPU", "p50", "p90",
                 "p99", "p99.9", "CPU%", "peak MB", "errors", "error rate"},
                {false, false, true, true, true, true, true, true, true, true, true, true, true},
                {}};
  for (const auto& sc : m.scenarios) {
    const MacroScenario& s = *sc.scenario;
    t.rows.push_back(
        {s.name, s.status, rounds_text(s), sig(s.rps), sig(s.rps_per_gateway_cpu),
         us(s.latency_at(50)), us(s.latency_at(90)), us(s.latency_at(99)), us(s.latency_at(99.9)),
         s.cpu_percent ? fmt_fixed(*s.cpu_percent, 0) + "%" : "–", fmt_opt(s.peak_mb, 1),
         fmt_opt(s.errors, 0), s.error_rate ? fmt_percent(*s.error_rate, false) : "–"});
  }
  return t;
}

ReportTable ratios(const ReportModel& m) {
  ReportTable t{"Against the baseline, and CPU per request",
                "Ratios are medians of the per-round ratios to the baseline of the same round "
                "(CPU and p99 vs nginx > 1 = costlier / slower than the baseline); [lo, hi] is "
                "the interval of the median over the ok rounds at the level shown (order "
                "statistics; n = 5 gives 93.8%). \"sees ≥ X\": the smallest change of the ratio "
                "that a comparison of two such runs (gatebench compare, its default minimum "
                "change) catches 95% of the time at these rounds' spread (docs/gating.md); "
                "\"sees nothing\": too few rounds for the rank test. CPU µs per request: CPU "
                "time of each role's processes divided by the requests.",
                {"scenario", "baseline", "vs nginx", "CPU vs nginx", "p99 vs nginx",
                 "CPU µs/req target", "load", "backend", "interval level"},
                {false, false, true, true, true, true, true, true, true},
                {}};
  for (const auto& sc : m.scenarios) {
    const MacroScenario& s = *sc.scenario;
    const auto& cpu = s.cpu_us_per_request;
    if (!s.rps && !cpu.target) continue;  // nothing measured (skipped)
    const CompareOptions lines;
    auto ratio = [&](const std::optional<double>& v, const char* key, RoundRatio field,
                     double line) {
      // A baseline's ratio to itself is 1 by construction: nothing to detect.
      const bool own = s.baseline == s.name;
      return with_interval(v, s.interval(key), true) +
             (v && !own ? detectable(s, field, line) : "");
    };
    t.rows.push_back(
        {s.name, s.baseline.empty() ? "–" : s.baseline,
         ratio(s.vs_nginx, "vs_nginx", &MacroFigures::vs_nginx, lines.vs_nginx_threshold),
         ratio(s.cpu_vs_nginx, "cpu_vs_nginx", &MacroFigures::cpu_vs_nginx, lines.cpu_threshold),
         ratio(s.p99_vs_nginx, "p99_vs_nginx", &MacroFigures::p99_vs_nginx, lines.p99_threshold),
         with_interval(cpu.target, s.interval("cpu_us_per_request"), false), sig(cpu.load),
         sig(cpu.backend), interval_level(s)});
  }
  return t;
}

ReportTable reasons(const ReportModel& m) {
  ReportTable t{"Status reasons",
                "Every scenario and round that is not ok, with the driver's reason. A failed "
                "scenario fails the gate.",
                {"scenario", "round", "status", "reason"},
                {false, false, false, false},
                {}};
  for (const auto& sc : m.scenarios) {
    const MacroScenario& s = *sc.scenario;
    if (!s.ok()) t.rows.push_back({s.name, "all", s.status, s.reason.empty() ? "–" : s.reason});
    if (s.rounds.size() < 2) continue;  // a one-round scenario's reason is the scenario's
    for (const auto& r : s.rounds)
      if (!r.ok())
        t.rows.push_back(
            {s.name,
             std::to_string(r.round) +
                 (r.position > 0 ? " (position " + std::to_string(r.position) + ")" : ""),
             r.status, r.reason.empty() ? "–" : r.reason});
  }
  return t;
}

// What one row of the mix table adds up: a template, a class of templates or the whole mix.
struct MixSum {
  double ok = 0, bad = 0;
  StatusCounts statuses;
  bool have_statuses = true;  // every template summed had its statuses
  double requests() const { return ok + bad; }
  void add(const MixSum& o) {
    ok += o.ok;
    bad += o.bad;
    for (const auto& [code, n] : o.statuses) statuses[code] += n;
    have_statuses = have_statuses && o.have_statuses;
  }
};

std::string statuses_text(const MixSum& sum) {
  if (!sum.have_statuses) return "–";
  std::string out;
  for (const auto& [code, n] : sum.statuses)
    out += (out.empty() ? "" : ", ") + code + ": " + fmt_count(n);
  return out.empty() ? "–" : out;
}

// counts.<template>.as_expected / .unexpected of scenarios whose mix has an attack template, per
// template, per class (attack, benign) and in all, with each one's share of the requests and,
// when the rounds' load files were read, its statuses.
ReportTable request_mix(const ReportModel& m) {
  ReportTable t{
      "Request mix (waf-mix)",
      "Per template, per class and in all, summed over the ok rounds: an attack template "
      "(expected 403) is blocked as expected or missed; benign traffic is served as expected or "
      "wrongly blocked. Requests are the responses counted, share is of the whole mix; statuses "
      "come from the rounds' gatebench-load files (– when they are not beside macro.json). A "
      "mix of more than 12 templates lists only those with unexpected answers.",
      {"scenario", "template", "kind", "blocked as expected", "missed", "served as expected",
       "wrongly blocked", "requests", "share", "statuses"},
      {false, false, false, true, true, true, true, true, true, false},
      {}};
  const std::string suffix = ".as_expected";
  for (const auto& sc : m.scenarios) {
    const MacroScenario& s = *sc.scenario;
    std::vector<std::string> templates;
    bool any_attack = false;
    for (const auto& [key, value] : s.counts.items()) {
      if (key.size() <= suffix.size() ||
          key.compare(key.size() - suffix.size(), suffix.size(), suffix) != 0)
        continue;
      templates.push_back(key.substr(0, key.size() - suffix.size()));
      any_attack = any_attack || is_attack_template(templates.back());
    }
    if (!any_attack) continue;
    const auto found = m.mix_statuses.find(s.name);
    std::vector<MixSum> sums;
    MixSum classes[2], all;  // attack, benign
    std::size_t class_templates[2] = {0, 0};
    for (const auto& name : templates) {
      MixSum sum;
      sum.ok = number_at(s.counts, (name + ".as_expected").c_str()).value_or(0);
      sum.bad = number_at(s.counts, (name + ".unexpected").c_str()).value_or(0);
      sum.have_statuses = found != m.mix_statuses.end() && found->second.contains(name);
      if (sum.have_statuses) sum.statuses = found->second.at(name);
      const int c = is_attack_template(name) ? 0 : 1;
      classes[c].add(sum);
      ++class_templates[c];
      all.add(sum);
      sums.push_back(std::move(sum));
    }
    auto share = [&](const MixSum& x) {
      return all.requests() > 0 ? fmt_percent(x.requests() / all.requests(), false) : "–";
    };
    auto row = [&](const std::string& label, int c, const MixSum& x) {
      const std::string a = fmt_count(x.ok), b = fmt_count(x.bad);
      std::vector<std::string> r = {s.name, label, c == 0 ? "attack" : "benign"};
      for (const auto& cell :
           c == 0 ? std::vector<std::string>{a, b, "", ""} : std::vector<std::string>{"", "", a, b})
        r.push_back(cell);
      for (const auto& cell : {fmt_count(x.requests()), share(x), statuses_text(x)})
        r.push_back(cell);
      t.rows.push_back(std::move(r));
    };
    for (std::size_t i = 0; i < templates.size(); ++i) {
      if (templates.size() > kTemplatesListedInFull && sums[i].bad == 0) continue;
      row(templates[i], is_attack_template(templates[i]) ? 0 : 1, sums[i]);
    }
    for (int c = 0; c < 2; ++c)
      if (class_templates[c] > 0)
        row("all " + std::to_string(class_templates[c]) + (c == 0 ? " attack" : " benign") +
                (class_templates[c] == 1 ? " template" : " templates"),
            c, classes[c]);
    const std::string label = templates.size() > kTemplatesListedInFull
                                  ? "all " + std::to_string(templates.size()) + " templates"
                                  : std::string("all");
    t.rows.push_back({s.name, label, "", fmt_count(classes[0].ok), fmt_count(classes[0].bad),
                      fmt_count(classes[1].ok), fmt_count(classes[1].bad),
                      fmt_count(all.requests()), share(all), statuses_text(all)});
  }
  return t;
}

ReportTable search_steps(const ReportModel& m) {
  ReportTable t{"Max-throughput steps",
                "The scenario's details.steps (of the round the driver gives as its example): "
                "step 0 is the closed-loop capacity, then offered rates by bisection; a step "
                "passes with no errors, p99 within the "
                "objective and ≥ 95% of the offered rate achieved.",
                {"scenario", "step", "offered req/s", "achieved req/s", "p99", "errors", "pass"},
                {false, true, true, true, true, true, false},
                {}};
  for (const auto& sc : m.scenarios) {
    const MacroScenario& s = *sc.scenario;
    if (!s.details.contains("steps") || !s.details["steps"].is_array()) continue;
    const json& steps = s.details["steps"];
    for (std::size_t i = 0; i < steps.size(); ++i) {
      const json& st = steps[i];
      const auto offered = number_at(st, "offered");
      const std::string pass = st.contains("pass") && st["pass"].is_boolean()
                                   ? (st["pass"].get<bool>() ? "yes" : "no")
                                   : "–";
      t.rows.push_back({s.name, std::to_string(i), offered ? fmt_sig(*offered) : "closed loop",
                        sig(number_at(st, "achieved")), us(number_at(st, "p99_us")),
                        count_or_dash(number_at(st, "errors")), pass});
    }
  }
  return t;
}

ReportTable open_loop(const ReportModel& m) {
  ReportTable t{"Open-loop rounds",
                "Rounds run at a fixed offered rate: the send slots gatebench-load missed and "
                "its own verdict; below 99% of the offered rate the round is invalid (failed).",
                {"scenario", "round", "status", "offered req/s", "achieved req/s", "missed slots",
                 "load invalid"},
                {false, true, false, true, true, true, false},
                {}};
  for (const auto& sc : m.scenarios) {
    const MacroScenario& s = *sc.scenario;
    for (const auto& r : s.rounds) {
      auto offered = number_at(r.details, "offered_rate");
      if (!offered) offered = number_at(r.counts, "offered_rate");
      if (!offered || s.details.contains("steps")) continue;  // closed loop, or a search
      std::string invalid = "–";
      if (r.details.contains("load_invalid") && r.details["load_invalid"].is_string())
        invalid = r.details["load_invalid"].get<std::string>();
      t.rows.push_back({s.name, std::to_string(r.round), r.status, fmt_sig(*offered), sig(r.rps),
                        count_or_dash(number_at(r.counts, "missed")), invalid});
    }
  }
  return t;
}

ReportTable handshakes(const ReportModel& m) {
  ReportTable t{"HTTPS new connections: handshakes",
                "Scenarios with a new connection per request: handshakes/s (median over the ok "
                "rounds), full and resumed handshakes summed over them, CPU µs per handshake of "
                "the measured target's process tree [interval] and of the load generator, beside "
                "the server-side CPU of one handshake in the micro floor of the same report "
                "(server_ns of tls/handshake_tls13_full, or _resumed where most handshakes "
                "resumed), and the load generator's beside the floor's client side (client_ns). "
                "A scenario the driver found limited by the harness reports no gateway "
                "figure to gate on: its status says so.",
                {"scenario", "status", "handshakes/s", "full", "resumed", "server µs/handshake",
                 "load µs/handshake", "micro floor", "floor server µs", "× floor",
                 "floor client µs", "load × client floor"},
                {false, false, true, true, true, true, true, false, true, true, true, true},
                {}};
  for (const auto& h : m.handshakes) {
    const MacroScenario& s = *h.scenario;
    const std::string status = h.harness_limited ? "limited by the harness" : s.status;
    t.rows.push_back({s.name, status, sig(h.per_s), count_or_dash(h.full), count_or_dash(h.resumed),
                      with_interval(h.target_us, h.target_interval, false), sig(h.load_us),
                      h.floor_us ? h.floor_benchmark : "–", sig(h.floor_us),
                      h.vs_floor ? "×" + fmt_fixed(*h.vs_floor, 2) : "–", sig(h.client_floor_us),
                      h.load_vs_client_floor ? "×" + fmt_fixed(*h.load_vs_client_floor, 2) : "–"});
  }
  return t;
}

// The driver's own spelling of a range (its reasons print "[0.95, 1]" with %g).
std::string range_text(const std::pair<double, double>& r) {
  char text[64];
  std::snprintf(text, sizeof text, "[%g, %g]", r.first, r.second);
  return text;
}

std::string rounds_list(const std::vector<int>& rounds) {
  std::string out = rounds.size() == 1 ? "round " : "rounds ";
  for (std::size_t i = 0; i < rounds.size(); ++i)
    out += (i > 0 ? ", " : "") + std::to_string(rounds[i]);
  return out;
}

ReportTable cache_hits(const ReportModel& m) {
  ReportTable t{"Cache hit ratio",
                "Scenarios with a cache check: responses whose cache-status header carried a hit "
                "value over every response counted (median over the ok rounds [interval]), the "
                "range the scenario expects, the verdict (missed: a round outside the range, "
                "which fails it; not counted: a round whose load counted no response with the "
                "header) and each round's ratio.",
                {"scenario", "status", "hit ratio", "expected", "verdict", "rounds"},
                {false, false, true, false, false, false},
                {}};
  auto ratio = [](const std::optional<double>& v) { return v ? fmt_fixed(*v, 4) : "–"; };
  for (const auto& row : m.cache_hits) {
    const MacroScenario& s = *row.scenario;
    std::string rounds;
    for (const auto& r : row.rounds) {
      rounds += (rounds.empty() ? "" : ", ") + std::to_string(r.round) + ": " + ratio(r.hit_ratio);
      if (r.verdict == CacheVerdict::missed || r.verdict == CacheVerdict::not_counted)
        rounds += std::string(" ") + verdict_text(r.verdict);
    }
    std::string median = ratio(row.hit_ratio);
    if (row.interval)
      median += " [" + fmt_fixed(row.interval->lo, 4) + ", " + fmt_fixed(row.interval->hi, 4) + "]";
    std::string verdict = verdict_text(row.verdict);
    if (!row.verdict_rounds.empty()) verdict += " (" + rounds_list(row.verdict_rounds) + ")";
    t.rows.push_back({s.name, s.status, median, row.expected ? range_text(*row.expected) : "–",
                      verdict, rounds.empty() ? "–" : rounds});
  }
  return t;
}

std::string joined(const std::vector<std::string>& parts) {
  std::string out;
  for (const auto& p : parts) out += (out.empty() ? "" : "; ") + p;
  return out.empty() ? "–" : out;
}

std::string instructions(const std::optional<double>& v) {
  return v ? fmt_count(*v) : std::string("–");
}

ReportTable end_to_end_instructions(const ReportModel& m) {
  ReportTable t{"Instructions per request, end to end",
                "gatebench-macro --instructions N: the reference gateway (one worker) under "
                "callgrind while gatebench-load sends exactly N, then 2N requests on one "
                "connection; (I(2N) − I(N)) / N, user-space instructions of the gateway process.",
                {"scenario", "status", "instructions per request", "reason"},
                {false, false, true, false},
                {}};
  if (!m.macro_instructions) return t;
  for (const auto& s : m.macro_instructions->scenarios)
    t.rows.push_back({s.name, s.status, instructions(s.instructions_per_request),
                      s.reason.empty() ? "–" : s.reason});
  return t;
}

ReportTable attribution_in_instructions(const ReportModel& m) {
  ReportTable t{"Cost attribution in instructions per request",
                "Instructions per request of the reference gateway end to end "
                "(gatebench-macro --instructions N: (I(2N) − I(N)) / N under callgrind, one "
                "worker) for each difference, beside the micro instruction "
                "counts per op of the hot paths the feature adds (gatebench micro "
                "--instructions); the remainder is what the micro benchmarks do not cover, in "
                "instructions and as a share of the difference. A counter rule (TLS: server_ns) "
                "takes the server's part of a benchmark that runs both sides, scaled by its share "
                "of CPU time (marked ≈).",
                {"difference", "macro: scenario − baseline", "hot paths (micro instructions)",
                 "micro", "remainder", "remainder share"},
                {false, true, false, true, true, true},
                {}};
  for (const auto& a : m.attribution) {
    if (!a.scenario_ir && !a.baseline_ir && a.micro_ir.empty()) continue;
    std::vector<std::string> paths;
    for (const auto& [name, v] : a.micro_ir)
      paths.push_back(name + " " + (a.micro_ir_scaled ? "≈" : "") + fmt_count(v));
    paths.insert(paths.end(), a.micro_ir_missing.begin(), a.micro_ir_missing.end());
    if (a.rule.micro_patterns.empty()) paths.push_back("no micro benchmark covers it");
    const std::string diff = a.difference_ir ? instructions(a.scenario_ir) + " − " +
                                                   instructions(a.baseline_ir) + " = " +
                                                   instructions(a.difference_ir)
                                             : "–";
    t.rows.push_back({a.rule.label, diff, joined(paths), instructions(a.micro_ir_sum),
                      instructions(a.remainder_ir),
                      a.remainder_share ? fmt_percent(*a.remainder_share, false) : "–"});
  }
  return t;
}

ReportTable attribution_in_time(const ReportModel& m) {
  ReportTable t{"Cost attribution in CPU time per request (time)",
                "The target's CPU µs per request (median [interval] over the ok rounds) of each "
                "scenario and its difference, beside the micro time per op of the same hot "
                "paths; explained = micro ÷ difference. When the two intervals overlap the rounds "
                "do not resolve the difference: it reads not resolved, never a share.",
                {"difference", "CPU µs/req: scenario − baseline", "hot paths (micro)", "micro µs",
                 "explained", "note"},
                {false, true, false, true, true, false},
                {}};
  if (!m.macro) return t;
  for (const auto& a : m.attribution) {
    if (!m.macro->find(a.rule.scenario) || !m.macro->find(a.rule.baseline)) continue;
    std::vector<std::string> paths;
    for (const auto& [name, ns] : a.micro) paths.push_back(name + " " + fmt_time_ns(ns));
    for (const auto& p : a.unmatched) paths.push_back("no benchmark matches " + p);
    std::string diff = "–";
    if (a.difference_us) {
      const MacroScenario* s = m.macro->find(a.rule.scenario);
      const MacroScenario* b = m.macro->find(a.rule.baseline);
      diff = with_interval(a.scenario_us, s->interval("cpu_us_per_request"), false) + " − " +
             with_interval(a.baseline_us, b->interval("cpu_us_per_request"), false) + " = " +
             fmt_sig(*a.difference_us);
    }
    t.rows.push_back({a.rule.label, diff, joined(paths), a.micro_us ? fmt_sig(*a.micro_us) : "–",
                      explained_text(a), a.note.empty() ? "–" : a.note});
  }
  return t;
}

std::string named_with_status(const MacroScenario& s) {
  return s.ok() ? s.name : s.name + " (" + s.status + ")";
}

// The seed method's figures of a scenario: req/s, req/s per gateway vCPU, p50/p90/p99, CPU %,
// peak MB, vs nginx [interval], errors.
std::vector<std::string> seed_cells(const MacroScenario& s) {
  return {sig(s.rps),
          sig(s.rps_per_gateway_cpu),
          us(s.latency_at(50)),
          us(s.latency_at(90)),
          us(s.latency_at(99)),
          s.cpu_percent ? fmt_fixed(*s.cpu_percent, 0) + "%" : "–",
          fmt_opt(s.peak_mb, 1),
          with_interval(s.vs_nginx, s.interval("vs_nginx"), true),
          fmt_opt(s.errors, 0)};
}

}  // namespace

std::string images_text(const MacroScenario& s) {
  if (!s.file.images.is_object()) return "";
  auto text = [](const json& v, const char* key) {
    return v.contains(key) && v[key].is_string() ? v[key].get<std::string>() : std::string();
  };
  std::string out;
  for (const auto& [service, v] : s.file.images.items()) {
    if (!v.is_object()) continue;
    const std::string image = text(v, "image"), digest = text(v, "digest"), id = text(v, "id");
    std::string entry = service + ": " + (image.empty() ? "?" : image);
    if (!digest.empty())
      entry += " " + digest;
    else if (!id.empty())
      entry += " ID " + id;
    out += (out.empty() ? "" : "; ") + entry;
  }
  return out;
}

std::string scalar_text(const json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_null()) return "–";
  return v.dump();
}

std::vector<std::pair<std::string, std::string>> macro_environment_rows(const MacroRun& run) {
  std::vector<std::pair<std::string, std::string>> rows;
  // The env as macro.json writes it; a member the file left out (a date before the driver wrote
  // one) reads as empty text or 0 and is no row.
  const json env = common::to_json(run.env);
  for (const auto& [key, value] : env.items()) {
    if ((value.is_string() && value.get<std::string>().empty()) || value == 0) continue;
    if (key == "versions" && value.is_object()) {
      for (const auto& [program, version] : value.items())
        rows.emplace_back("macro: version of " + program,
                          version.is_string() ? version.get<std::string>() : version.dump());
    } else {
      rows.emplace_back("macro: " + key, value.is_object() ? value.dump() : scalar_text(value));
    }
  }
  // One row per distinct image text, naming the scenarios that ran it.
  std::vector<std::pair<std::string, std::string>> images;  // text, scenarios
  for (const auto& s : run.scenarios) {
    const std::string text = images_text(s);
    if (text.empty()) continue;
    auto it = std::find_if(images.begin(), images.end(),
                           [&](const auto& entry) { return entry.first == text; });
    if (it == images.end())
      images.emplace_back(text, s.name);
    else
      it->second += ", " + s.name;
  }
  for (const auto& [text, scenarios] : images)
    rows.emplace_back("macro: image (" + scenarios + ")", text);
  return rows;
}

const std::vector<std::string>& seed_scenarios() {
  static const std::vector<std::string> names = {
      "nginx-baseline",          "gateway-default",       "gateway-protected",
      "gateway-https-keepalive", "gateway-https-newconn", "gateway-queue",
      "gateway-challenge-pass",  "haproxy-baseline",      "caddy-baseline"};
  return names;
}

std::vector<const ScenarioCost*> lead_scenarios(const ReportModel& m) {
  std::vector<const ScenarioCost*> out;
  for (const auto& name : seed_scenarios())
    for (const auto& sc : m.scenarios)
      if (sc.scenario->name == name) out.push_back(&sc);
  if (out.empty())
    for (const auto& sc : m.scenarios) out.push_back(&sc);
  return out;
}

ReportTable seed_table(const ReportModel& m) {
  ReportTable t{
      "Seed scenarios",
      "Medians over the ok rounds. req/s per gateway vCPU divides by the CPUs the "
      "target may use; CPU % is the target's mean over the measured run (100% = one "
      "CPU); vs nginx is the median of the per-round ratios to the scenario's nginx "
      "baseline of the same round (the same protocol: nginx-https-keepalive for HTTPS keep-alive) "
      "[interval over the rounds]; errors are summed over the rounds.",
      {"scenario", "req/s", "req/s per gateway vCPU", "p50", "p90", "p99", "CPU %", "peak MB",
       "vs nginx", "errors"},
      {false, true, true, true, true, true, true, true, true, true},
      {}};
  for (const ScenarioCost* sc : lead_scenarios(m)) {
    const MacroScenario& s = *sc->scenario;
    std::vector<std::string> row = {named_with_status(s)};
    for (auto& cell : seed_cells(s)) row.push_back(std::move(cell));
    t.rows.push_back(std::move(row));
  }
  return t;
}

std::vector<ReportTable> workload_tables(const ReportModel& m) {
  std::vector<ReportTable> out;
  for (const WorkloadGroup& g : m.workloads) {
    std::string baselines;
    for (const auto& b : g.baselines) baselines += (baselines.empty() ? "" : ", ") + b;
    const bool any_image = std::any_of(g.rows.begin(), g.rows.end(), [](const WorkloadRow& r) {
      return !images_text(*r.scenario).empty();
    });
    ReportTable t{"Workload " + g.workload,
                  "One row per target, the seed method's columns (medians over the ok rounds); "
                  "vs nginx is the median of the per-round ratios to " +
                      (baselines.empty() ? std::string("the scenario's baseline") : baselines) +
                      " in the same round [interval over the rounds]." +
                      (any_image ? " Image: the image under test, its digest (else its ID)." : ""),
                  {"target", "scenario", "req/s", "req/s per gateway vCPU", "p50", "p90", "p99",
                   "CPU %", "peak MB", "vs nginx", "errors"},
                  {false, false, true, true, true, true, true, true, true, true, true},
                  {}};
    if (any_image) {
      t.head.push_back("image");
      t.numeric.push_back(false);
    }
    for (const WorkloadRow& r : g.rows) {
      const MacroScenario& s = *r.scenario;
      std::vector<std::string> row = {r.target, named_with_status(s)};
      for (auto& cell : seed_cells(s)) row.push_back(std::move(cell));
      if (any_image) {
        const std::string images = images_text(s);
        row.push_back(images.empty() ? "–" : images);
      }
      t.rows.push_back(std::move(row));
    }
    out.push_back(std::move(t));
  }
  return out;
}

ReportTable cpu_by_process_table(const ReportModel& m) {
  ReportTable t{
      "CPU by process",
      "CPU µs per request of each role's process tree (the target's with its interval "
      "over the ok rounds), and the target's CPU % per process name over the measured "
      "run (100% = one CPU).",
      {"scenario", "target µs/req", "load µs/req", "backend µs/req", "target CPU % by process"},
      {false, true, true, true, false},
      {}};
  for (const ScenarioCost* sc : lead_scenarios(m)) {
    const MacroScenario& s = *sc->scenario;
    const auto& cpu = s.cpu_us_per_request;
    if (!s.rps && !cpu.target) continue;  // nothing measured (skipped)
    std::string processes;
    if (s.file.medians)
      for (const auto& [name, value] : s.file.medians->cpu_by_process)
        if (value)
          processes += (processes.empty() ? "" : ", ") + name + " " + fmt_fixed(*value, 0) + "%";
    t.rows.push_back({s.name, with_interval(cpu.target, s.interval("cpu_us_per_request"), false),
                      sig(cpu.load), sig(cpu.backend), processes.empty() ? "–" : processes});
  }
  return t;
}

ReportTable micro_summary_table(const ReportModel& m) {
  ReportTable t{
      "Micro summary",
      "One row per hot path and case: time per op of gatecore, of the fastest peer "
      "measured on the same input, and of the limit (the floor: the least work the "
      "case needs). peer ÷ gatecore > 1: gatecore is faster; gatecore ÷ limit: how far "
      "it is from the floor.",
      {"hot path", "case", "gatecore", "best peer", "limit", "peer ÷ gatecore", "gatecore ÷ limit"},
      {false, false, true, false, false, true, true},
      {}};
  std::vector<const MicroRow*> gatecore;
  for (const auto& r : m.micro_rows)
    if (r.parts.impl == "gatecore" && r.ns_per_op > 0) gatecore.push_back(&r);
  // Grouped by hot path and sorted by case, whatever order the interleaved run measured them in.
  std::stable_sort(gatecore.begin(), gatecore.end(), [](const MicroRow* a, const MicroRow* b) {
    return std::tie(a->parts.hotpath, a->parts.case_name) <
           std::tie(b->parts.hotpath, b->parts.case_name);
  });
  for (const MicroRow* g : gatecore) {
    const MicroRow* peer = nullptr;
    for (const auto& r : m.micro_rows) {
      const std::string& impl = r.parts.impl;
      if (r.parts.hotpath != g->parts.hotpath || r.parts.case_name != g->parts.case_name ||
          r.ns_per_op <= 0 || impl.empty() || impl.starts_with("gatecore") ||
          impl.starts_with("limit"))
        continue;
      if (!peer || r.ns_per_op < peer->ns_per_op) peer = &r;
    }
    const MicroRow* limit = nullptr;
    for (const auto& r : m.micro_rows)
      if (r.bench->name == g->limit_name) limit = &r;
    auto named = [](const MicroRow* r) {
      return r ? r->parts.impl + " " + fmt_time_ns(r->ns_per_op) : std::string("–");
    };
    t.rows.push_back({g->parts.hotpath, g->parts.case_name, fmt_time_ns(g->ns_per_op), named(peer),
                      limit ? (limit->parts.case_name == g->parts.case_name
                                   ? named(limit)
                                   : limit->parts.impl + "/" + limit->parts.case_name + " " +
                                         fmt_time_ns(limit->ns_per_op))
                            : "–",
                      peer ? "×" + fmt_sig(peer->ns_per_op / g->ns_per_op) : "–",
                      g->vs_limit ? "×" + fmt_sig(*g->vs_limit) : "–"});
  }
  return t;
}

std::vector<ReportTable> attribution_tables(const ReportModel& m) {
  std::vector<ReportTable> out;
  for (auto&& t :
       {end_to_end_instructions(m), attribution_in_instructions(m), attribution_in_time(m)})
    if (!t.rows.empty()) out.push_back(t);
  return out;
}

std::vector<ReportTable> macro_tables(const ReportModel& m) {
  std::vector<ReportTable> out;
  if (!m.macro) return out;
  for (auto&& t : {throughput(m), ratios(m), handshakes(m), cache_hits(m), reasons(m),
                   request_mix(m), search_steps(m), open_loop(m)})
    if (!t.rows.empty()) out.push_back(t);
  return out;
}

std::string smoke_banner(const ReportModel& m) {
  return m.macro && m.macro->smoke() ? "quick run: smoke figures, not results" : "";
}

std::string explained_text(const Attribution& a) {
  if (a.resolved == false) return "not resolved";
  return a.explained_share ? fmt_percent(*a.explained_share, false) : "–";
}

std::vector<Series> per_second_series(const MacroScenario& s) {
  std::vector<Series> out;
  for (const auto& r : s.rounds) {
    if (!r.ok()) continue;
    // Coloured by round number, so a round keeps its colour when an earlier one failed.
    Series se{s.rounds.size() > 1 ? "round " + std::to_string(r.round) : s.name, {}, r.round - 1};
    for (const auto& pt : r.per_second)
      if (pt.rps) se.points.emplace_back(pt.t, *pt.rps);
    if (!se.points.empty()) out.push_back(std::move(se));
  }
  return out;
}

}  // namespace gatebench::tools
