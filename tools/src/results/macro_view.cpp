// common::MacroResult (gatebench.macro/2, or a /1 file upgraded by its reader) -> MacroRun, the
// figures compare and report work on. A scenario's figures are the driver's medians, intervals
// and statuses, a round's are that round's: read, never re-derived.
#include <algorithm>
#include <cmath>

#include "tools/src/results/results.hpp"

namespace gatebench::tools {

using nlohmann::json;

namespace {

std::optional<double> figure_of(const common::FigureMap& m, const char* key) {
  const auto it = m.find(key);
  return it == m.end() ? std::nullopt : it->second;
}

std::vector<LatencyPoint> latency_of(const common::MacroLatency& l) {
  std::vector<LatencyPoint> out;
  const std::pair<double, const common::Figure*> points[] = {
      {50, &l.p50}, {90, &l.p90}, {99, &l.p99}, {99.9, &l.p999}};
  for (const auto& [percentile, value] : points)
    if (*value) out.push_back({percentile, **value});
  return out;
}

std::vector<SeriesPoint> series_of(const std::vector<common::MacroSecond>& seconds) {
  std::vector<SeriesPoint> out;
  for (const auto& s : seconds) out.push_back({s.t, s.rps, s.p99_us, s.cpu_percent});
  return out;
}

json counts_of(const std::map<std::string, double>& counts) {
  json out = json::object();
  for (const auto& [name, n] : counts) out[name] = n;
  return out;
}

void fill_round(const common::MacroRound& r, MacroRound& out) {
  out.round = r.round;
  out.position = r.position;
  out.status = r.status;
  out.reason = r.reason;
  if (r.load) {
    const common::MacroRoundLoad& l = *r.load;
    out.rps = l.rps;
    out.rps_per_gateway_cpu = l.rps_per_gateway_cpu;
    out.errors = static_cast<double>(l.errors);
    out.error_rate = l.error_rate;
    if (l.hit_ratio) out.hit_ratio = *l.hit_ratio;
    out.cpu_us_per_request = {l.cpu_us_per_request.target, l.cpu_us_per_request.load,
                              l.cpu_us_per_request.backend};
    out.latency = latency_of(l.latency_us);
    out.per_second = series_of(l.per_second);
  }
  out.counts = counts_of(r.counts);
  if (r.target) {
    out.cpu_percent = r.target->cpu_percent;
    out.peak_mb = r.target->peak_mb;
  }
  out.vs_nginx = r.vs_nginx;
  out.cpu_vs_nginx = r.cpu_vs_nginx;
  out.p99_vs_nginx = r.p99_vs_nginx;
  out.details = r.details;
}

MacroScenario scenario_of(const common::MacroScenario& s) {
  MacroScenario out;
  out.name = s.name;
  out.group = s.group;
  out.status = s.status;
  out.reason = s.reason;
  out.baseline = s.baseline;
  out.expect_hit_ratio = s.expect_hit_ratio;
  out.rounds_planned = static_cast<std::size_t>(s.rounds_planned);
  out.rounds_ok = static_cast<std::size_t>(s.rounds_ok);
  if (s.medians) {
    const common::MacroMedians& m = *s.medians;
    out.rps = m.rps;
    out.rps_per_gateway_cpu = m.rps_per_gateway_cpu;
    out.cpu_percent = m.cpu_percent;
    out.peak_mb = m.peak_mb;
    out.vs_nginx = m.vs_nginx;
    out.cpu_vs_nginx = m.cpu_vs_nginx;
    out.p99_vs_nginx = m.p99_vs_nginx;
    if (m.hit_ratio) out.hit_ratio = *m.hit_ratio;
    out.cpu_us_per_request = {figure_of(m.cpu_us_per_request, "target"),
                              figure_of(m.cpu_us_per_request, "load"),
                              figure_of(m.cpu_us_per_request, "backend")};
    out.latency = latency_of(m.latency_us);
    out.per_second = series_of(m.per_second);
    out.details = m.details;
    for (const auto& [key, iv] : m.intervals)
      if (iv)
        out.intervals[key] = {iv->median, iv->lo, iv->hi, static_cast<std::size_t>(iv->n),
                              iv->level};
  }
  if (s.errors) out.errors = static_cast<double>(*s.errors);
  out.error_rate = s.error_rate;
  out.counts = counts_of(s.counts);
  for (const common::MacroRound& r : s.rounds) fill_round(r, out.rounds.emplace_back());
  out.file = s;
  return out;
}

}  // namespace

MacroRun macro_run_from(const common::MacroResult& file) {
  MacroRun run;
  run.env = file.env;
  run.run = file.run;
  for (const common::MacroScenario& s : file.scenarios) run.scenarios.push_back(scenario_of(s));
  return run;
}

common::MacroResult MacroRun::file() const {
  common::MacroResult out{env, run, {}};
  for (const MacroScenario& s : scenarios) out.scenarios.push_back(s.file);
  return out;
}

std::optional<double> MacroFigures::latency_at(double percentile) const {
  for (const auto& p : latency)
    if (std::abs(p.percentile - percentile) < 1e-9) return p.us;
  return std::nullopt;
}

}  // namespace gatebench::tools
