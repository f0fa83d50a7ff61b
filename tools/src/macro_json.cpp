// gatebench.macro/1 and /2 (docs/scenarios.md) -> MacroRun. A /2 scenario carries its rounds and
// the driver's medians, intervals and statuses, which are read, never re-derived. A /1 scenario
// is one round made of its top-level fields; the figures /2 adds (CPU per request, the paired
// CPU and p99 ratios) are computed for it from that round so both read the same downstream.
#include <algorithm>
#include <charconv>
#include <cmath>

#include "tools/src/bad_input.hpp"
#include "tools/src/json_file.hpp"
#include "tools/src/results.hpp"

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

const json* optional_object(const json& obj, const char* key, const std::string& where) {
  if (!obj.contains(key) || obj[key].is_null()) return nullptr;
  if (!obj[key].is_object()) throw BadInput(where + "/" + key + ": expected an object");
  return &obj[key];
}

const json* optional_array(const json& obj, const char* key, const std::string& where) {
  if (!obj.contains(key) || obj[key].is_null()) return nullptr;
  if (!obj[key].is_array()) throw BadInput(where + "/" + key + ": expected an array");
  return &obj[key];
}

std::string require_status(const json& obj, const std::string& where) {
  const std::string status = require_string(obj, "status", where);
  if (status != "ok" && status != "skipped" && status != "failed")
    throw BadInput(where + "/status: expected ok, skipped or failed, got '" + status + "'");
  return status;
}

void parse_latency(const json& obj, const std::string& where, MacroFigures& f) {
  const json* lat = optional_object(obj, "latency_us", where);
  if (!lat) return;
  for (const auto& [key, value] : lat->items()) {
    const auto pct = percentile_of_key(key);
    if (!pct) continue;  // other statistics (e.g. "mean") are not percentiles
    if (value.is_null()) continue;
    if (!value.is_number())
      throw BadInput(where + "/latency_us/" + key + ": expected a number or null");
    f.latency.push_back({*pct, value.get<double>()});
  }
  std::sort(f.latency.begin(), f.latency.end(), [](const LatencyPoint& a, const LatencyPoint& b) {
    return a.percentile < b.percentile;
  });
}

void parse_per_second(const json& obj, const std::string& where, MacroFigures& f) {
  const json* series = optional_array(obj, "per_second", where);
  if (!series) return;
  for (std::size_t k = 0; k < series->size(); ++k) {
    const std::string pw = where + "/per_second/" + std::to_string(k);
    const json& p = (*series)[k];
    f.per_second.push_back({require_number(p, "t", pw), optional_number(p, "rps", pw),
                            optional_number(p, "p99_us", pw),
                            optional_number(p, "cpu_percent", pw)});
  }
}

// /2 writes {"target", "load", "backend"}; report.json of a /1 input holds the target's number.
void parse_cpu_per_request(const json& obj, const std::string& where, MacroFigures& f) {
  if (!obj.contains("cpu_us_per_request") || obj["cpu_us_per_request"].is_null()) return;
  const json& v = obj["cpu_us_per_request"];
  if (v.is_number()) {
    f.cpu_us_per_request.target = v.get<double>();
    return;
  }
  if (!v.is_object())
    throw BadInput(where + "/cpu_us_per_request: expected an object {target, load, backend}");
  const std::string w = where + "/cpu_us_per_request";
  f.cpu_us_per_request = {optional_number(v, "target", w), optional_number(v, "load", w),
                          optional_number(v, "backend", w)};
}

// The fields a round and a scenario's medians share.
void parse_figures(const json& obj, const std::string& where, MacroFigures& f) {
  f.rps = optional_number(obj, "rps", where);
  f.rps_per_gateway_cpu = optional_number(obj, "rps_per_gateway_cpu", where);
  f.cpu_percent = optional_number(obj, "cpu_percent", where);
  f.peak_mb = optional_number(obj, "peak_mb", where);
  f.vs_nginx = optional_number(obj, "vs_nginx", where);
  f.cpu_vs_nginx = optional_number(obj, "cpu_vs_nginx", where);
  f.p99_vs_nginx = optional_number(obj, "p99_vs_nginx", where);
  f.errors = optional_number(obj, "errors", where);
  f.error_rate = optional_number(obj, "error_rate", where);
  parse_cpu_per_request(obj, where, f);
  parse_latency(obj, where, f);
  parse_per_second(obj, where, f);
  if (const json* c = optional_object(obj, "counts", where)) f.counts = *c;
  if (const json* d = optional_object(obj, "details", where)) f.details = *d;
}

MacroInterval parse_interval(const json& v, const std::string& where) {
  MacroInterval i;
  i.median = require_number(v, "median", where);
  i.lo = require_number(v, "lo", where);
  i.hi = require_number(v, "hi", where);
  const double n = require_number(v, "n", where);
  if (n < 0 || n != std::floor(n)) throw BadInput(where + "/n: expected a count");
  i.n = static_cast<std::size_t>(n);
  i.level = require_number(v, "level", where);
  if (i.lo > i.hi) throw BadInput(where + ": lo is above hi");
  return i;
}

std::size_t optional_count(const json& obj, const char* key, const std::string& where,
                           std::size_t fallback) {
  const auto v = optional_number(obj, key, where);
  if (!v) return fallback;
  if (*v < 0 || *v != std::floor(*v)) throw BadInput(where + "/" + key + ": expected a count");
  return static_cast<std::size_t>(*v);
}

void parse_rounds(const json& s, const std::string& where, MacroScenario& m) {
  if (const json* list = optional_array(s, "rounds", where)) {
    for (std::size_t k = 0; k < list->size(); ++k) {
      const json& r = (*list)[k];
      const std::string rw = where + "/rounds/" + std::to_string(k);
      MacroRound round;
      round.round = static_cast<int>(optional_count(r, "round", rw, k + 1));
      round.position = static_cast<int>(optional_count(r, "position", rw, 0));
      round.status = require_status(r, rw);
      round.reason = optional_string(r, "reason", rw).value_or("");
      parse_figures(r, rw, round);
      if (round.ok() && !round.rps) require_number(r, "rps", rw);  // throws: an ok round has req/s
      m.rounds.push_back(std::move(round));
    }
  }
  const auto ok_rounds = static_cast<std::size_t>(
      std::count_if(m.rounds.begin(), m.rounds.end(), [](const MacroRound& r) { return r.ok(); }));
  m.rounds_planned = optional_count(s, "rounds_planned", where, m.rounds.size());
  m.rounds_ok = optional_count(s, "rounds_ok", where, ok_rounds);
  if (const json* iv = optional_object(s, "intervals", where))
    for (const auto& [key, value] : iv->items())
      if (!value.is_null()) m.intervals[key] = parse_interval(value, where + "/intervals/" + key);
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

MacroRun parse_macro_json(const json& doc, const std::string& file) {
  MacroRun run;
  run.schema = doc.contains("schema") && doc["schema"].is_string()
                   ? doc["schema"].get<std::string>()
                   : "gatebench.macro/1";
  const bool v2 = run.schema == "gatebench.macro/2";
  if (doc.contains("env")) run.env = doc["env"];
  if (const json* r = optional_object(doc, "run", file + ":")) run.run = *r;
  const json& list = require_field(doc, "scenarios", file + ":");
  if (!list.is_array()) throw BadInput(file + ":/scenarios: expected an array");
  for (std::size_t i = 0; i < list.size(); ++i) {
    const json& s = list[i];
    const std::string where = file + ":/scenarios/" + std::to_string(i);
    MacroScenario m;
    m.raw = s;
    m.name = require_string(s, "name", where);
    m.group = optional_string(s, "group", where).value_or("");
    m.status = require_status(s, where);
    m.reason = optional_string(s, "reason", where).value_or("");
    m.baseline = optional_string(s, "baseline", where).value_or("");
    parse_figures(s, where, m);
    // An ok scenario must have its throughput; the rest may be null when a sampler or the load
    // generator had nothing (the driver writes null rather than inventing a value).
    if (m.ok() && !m.rps) require_number(s, "rps", where);  // throws the missing-field error
    if (v2) parse_rounds(s, where, m);
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
