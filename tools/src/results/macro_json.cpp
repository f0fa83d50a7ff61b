// gatebench.macro/1 and /2 (docs/scenarios.md) -> MacroRun. A /2 scenario carries its rounds and
// the driver's medians, intervals and statuses, which are read, never re-derived. A /1 scenario
// is one round made of its top-level fields; the figures /2 adds (CPU per request, the paired
// CPU and p99 ratios) are computed for it from that round so both read the same downstream.
#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>

#include "macro/common/usage_error.hpp"
#include "tools/src/results/results.hpp"

namespace gatebench::tools {

using nlohmann::json;

namespace {

// "p50" -> 50, "p999" -> 99.9, "p9999" -> 99.99: the digits after the first two are decimals.
std::optional<double> percentile_of_key(const std::string& key) {
  if (key.size() < 3 || key[0] != 'p') return std::nullopt;
  const std::string digits = key.substr(1);
  if (!std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; }))
    return std::nullopt;
  double value = 0;
  std::from_chars(digits.data(), digits.data() + std::min<std::size_t>(2, digits.size()), value);
  double scale = 0.1;
  for (std::size_t i = 2; i < digits.size(); ++i, scale /= 10) value += (digits[i] - '0') * scale;
  return value;
}

using common::JsonField;

// A member that may be absent or null, else must be an object (array).
std::optional<JsonField> optional_object(const JsonField& obj, const char* key) {
  const JsonField v = obj.child(key);
  if (v.is_null()) return std::nullopt;
  v.expect_object();
  return v;
}

std::optional<JsonField> optional_array(const JsonField& obj, const char* key) {
  const JsonField v = obj.child(key);
  if (v.is_null()) return std::nullopt;
  v.expect_array();
  return v;
}

std::string require_status(const JsonField& obj) {
  const std::string status = obj.child("status").string();
  if (status != "ok" && status != "skipped" && status != "failed")
    obj.child("status").fail("expected ok, skipped or failed, got '" + status + "'");
  return status;
}

void parse_latency(const JsonField& obj, MacroFigures& f) {
  const auto lat = optional_object(obj, "latency_us");
  if (!lat) return;
  for (const std::string& key : lat->keys()) {
    const auto pct = percentile_of_key(key);
    if (!pct) continue;  // other statistics (e.g. "mean") are not percentiles
    const JsonField value = lat->child(key);
    if (value.is_null()) continue;
    if (!value.json().is_number()) value.fail("expected a number or null");
    f.latency.push_back({*pct, value.number()});
  }
  std::sort(f.latency.begin(), f.latency.end(), [](const LatencyPoint& a, const LatencyPoint& b) {
    return a.percentile < b.percentile;
  });
}

void parse_per_second(const JsonField& obj, MacroFigures& f) {
  const auto series = optional_array(obj, "per_second");
  if (!series) return;
  for (std::size_t k = 0; k < series->size(); ++k) {
    const JsonField p = series->at(k);
    f.per_second.push_back({p.child("t").number(), p.child("rps").optional_number(),
                            p.child("p99_us").optional_number(),
                            p.child("cpu_percent").optional_number()});
  }
}

// /2 writes {"target", "load", "backend"}; report.json of a /1 input holds the target's number.
void parse_cpu_per_request(const JsonField& obj, MacroFigures& f) {
  const JsonField v = obj.child("cpu_us_per_request");
  if (v.is_null()) return;
  if (v.json().is_number()) {
    f.cpu_us_per_request.target = v.number();
    return;
  }
  if (!v.json().is_object()) v.fail("expected an object {target, load, backend}");
  f.cpu_us_per_request = {v.child("target").optional_number(), v.child("load").optional_number(),
                          v.child("backend").optional_number()};
}

// The fields a round and a scenario's medians share.
void parse_figures(const JsonField& obj, MacroFigures& f) {
  auto number = [&](const char* key) { return obj.child(key).optional_number(); };
  f.rps = number("rps");
  f.rps_per_gateway_cpu = number("rps_per_gateway_cpu");
  f.cpu_percent = number("cpu_percent");
  f.peak_mb = number("peak_mb");
  f.vs_nginx = number("vs_nginx");
  f.cpu_vs_nginx = number("cpu_vs_nginx");
  f.p99_vs_nginx = number("p99_vs_nginx");
  f.errors = number("errors");
  f.error_rate = number("error_rate");
  f.hit_ratio = number("hit_ratio");
  parse_cpu_per_request(obj, f);
  parse_latency(obj, f);
  parse_per_second(obj, f);
  if (const auto c = optional_object(obj, "counts")) f.counts = c->json();
  if (const auto d = optional_object(obj, "details")) f.details = d->json();
}

// Counts (rounds, positions, samples) are read as JSON numbers; one outside int's range (1e30)
// would make the conversion below undefined, so it is refused like a negative or fractional one.
constexpr const char* kCountExpected = "expected a count (a whole number from 0 to 2147483647)";

bool is_count(double v) {
  return v >= 0 && v <= std::numeric_limits<int>::max() && v == std::floor(v);
}

MacroInterval parse_interval(const JsonField& v) {
  MacroInterval i;
  i.median = v.child("median").number();
  i.lo = v.child("lo").number();
  i.hi = v.child("hi").number();
  const double n = v.child("n").number();
  if (!is_count(n)) v.child("n").fail(kCountExpected);
  i.n = static_cast<std::size_t>(n);
  i.level = v.child("level").number();
  if (i.lo > i.hi) v.fail("lo is above hi");
  return i;
}

std::size_t optional_count(const JsonField& obj, const char* key, std::size_t fallback) {
  const auto v = obj.child(key).optional_number();
  if (!v) return fallback;
  if (!is_count(*v)) obj.child(key).fail(kCountExpected);
  return static_cast<std::size_t>(*v);
}

void parse_rounds(const JsonField& s, MacroScenario& m) {
  if (const auto list = optional_array(s, "rounds")) {
    for (std::size_t k = 0; k < list->size(); ++k) {
      const JsonField r = list->at(k);
      MacroRound round;
      round.round = static_cast<int>(optional_count(r, "round", k + 1));
      round.position = static_cast<int>(optional_count(r, "position", 0));
      round.status = require_status(r);
      round.reason = r.child("reason").optional_string().value_or("");
      parse_figures(r, round);
      if (round.ok() && !round.rps) r.child("rps").number();  // throws: an ok round has req/s
      m.rounds.push_back(std::move(round));
    }
  }
  const auto ok_rounds = static_cast<std::size_t>(
      std::count_if(m.rounds.begin(), m.rounds.end(), [](const MacroRound& r) { return r.ok(); }));
  m.rounds_planned = optional_count(s, "rounds_planned", m.rounds.size());
  m.rounds_ok = optional_count(s, "rounds_ok", ok_rounds);
  if (const auto iv = optional_object(s, "intervals"))
    for (const std::string& key : iv->keys())
      if (!iv->child(key).is_null()) m.intervals[key] = parse_interval(iv->child(key));
}

std::optional<double> per_request_us(const json& cpu_by_role, const char* role, double rps) {
  if (!cpu_by_role.is_object() || !cpu_by_role.contains(role) || !cpu_by_role[role].is_number() ||
      rps <= 0)
    return std::nullopt;
  return cpu_by_role[role].get<double>() / 100.0 / rps * 1e6;
}

// A /1 file is one round per scenario; the ratios /2 pairs per round are taken against the
// baseline scenario of the same file.
void complete_v1(MacroRun& run) {
  for (auto& s : run.scenarios) {
    if (s.baseline.empty()) s.baseline = "nginx-baseline";
    if (s.ok() && s.rps && *s.rps > 0) {
      if (!s.cpu_us_per_request.target && s.cpu_percent)
        s.cpu_us_per_request.target = *s.cpu_percent / 100.0 / *s.rps * 1e6;
      const json& roles = s.raw.contains("cpu_by_role") ? s.raw["cpu_by_role"] : json();
      s.cpu_us_per_request.load = per_request_us(roles, "load", *s.rps);
      s.cpu_us_per_request.backend = per_request_us(roles, "backend", *s.rps);
    }
  }
  for (auto& s : run.scenarios) {
    const MacroScenario* b = run.find(s.baseline);
    if (s.ok() && b && b->ok()) {
      const auto p99 = s.latency_at(99), bp99 = b->latency_at(99);
      if (p99 && bp99 && *bp99 > 0) s.p99_vs_nginx = *p99 / *bp99;
      const auto cpu = s.cpu_us_per_request.target, bcpu = b->cpu_us_per_request.target;
      if (cpu && bcpu && *bcpu > 0) s.cpu_vs_nginx = *cpu / *bcpu;
    }
    MacroRound round;
    static_cast<MacroFigures&>(round) = s;
    round.position = static_cast<int>(&s - run.scenarios.data()) + 1;
    round.status = s.status;
    round.reason = s.reason;
    s.rounds = {std::move(round)};
    s.rounds_planned = 1;
    s.rounds_ok = s.ok() ? 1 : 0;
  }
}

}  // namespace

MacroRun parse_macro_json(const JsonField& root) {
  const json& doc = root.json();
  MacroRun run;
  run.schema = doc.contains("schema") && doc["schema"].is_string()
                   ? doc["schema"].get<std::string>()
                   : "gatebench.macro/1";
  const bool v2 = run.schema == "gatebench.macro/2";
  if (doc.contains("env")) run.env = doc["env"];
  if (const auto r = optional_object(root, "run")) run.run = r->json();
  const JsonField list = root.child("scenarios");
  list.expect_array();
  for (std::size_t i = 0; i < list.size(); ++i) {
    const JsonField s = list.at(i);
    MacroScenario m;
    m.raw = s.json();
    m.name = s.child("name").string();
    m.group = s.child("group").optional_string().value_or("");
    m.status = require_status(s);
    m.reason = s.child("reason").optional_string().value_or("");
    m.baseline = s.child("baseline").optional_string().value_or("");
    if (const JsonField expect = s.child("expect_hit_ratio"); !expect.is_null()) {
      expect.expect_array();
      if (expect.size() != 2) expect.fail("expected [lowest, highest]");
      m.expect_hit_ratio = std::pair(expect.at(0).number(0, 1), expect.at(1).number(0, 1));
    }
    parse_figures(s, m);
    // An ok scenario must have its throughput; the rest may be null when a sampler or the load
    // generator had nothing (the driver writes null rather than inventing a value).
    if (m.ok() && !m.rps) s.child("rps").number();  // throws the missing-field error
    if (v2) parse_rounds(s, m);
    run.scenarios.push_back(std::move(m));
  }
  if (!v2) complete_v1(run);
  return run;
}

std::optional<double> MacroFigures::latency_at(double percentile) const {
  for (const auto& p : latency)
    if (std::abs(p.percentile - percentile) < 1e-9) return p.us;
  return std::nullopt;
}

}  // namespace gatebench::tools
