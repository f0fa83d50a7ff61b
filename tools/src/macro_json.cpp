// gatebench.macro/1 (DESIGN.md) -> MacroRun. Only the contract's fields are required of an "ok"
// scenario; skipped/failed scenarios need a name, a status and (ideally) a reason.
#include <algorithm>
#include <charconv>

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

}  // namespace

MacroRun parse_macro_json(const json& doc, const std::string& file) {
  MacroRun run;
  if (doc.contains("env")) run.env = doc["env"];
  const json& list = require_field(doc, "scenarios", file + ":");
  if (!list.is_array()) throw BadInput(file + ":/scenarios: expected an array");
  for (std::size_t i = 0; i < list.size(); ++i) {
    const json& s = list[i];
    const std::string where = file + ":/scenarios/" + std::to_string(i);
    MacroScenario m;
    m.raw = s;
    m.name = require_string(s, "name", where);
    m.status = require_string(s, "status", where);
    if (m.status != "ok" && m.status != "skipped" && m.status != "failed")
      throw BadInput(where + "/status: expected ok, skipped or failed, got '" + m.status + "'");
    m.reason = optional_string(s, "reason", where).value_or("");
    const bool ok = m.ok();
    // An ok scenario must have its throughput; the rest may be null when a sampler or the load
    // generator had nothing (the driver writes null rather than inventing a value).
    m.rps = ok ? std::optional<double>(require_number(s, "rps", where))
               : optional_number(s, "rps", where);
    m.cpu_percent = optional_number(s, "cpu_percent", where);
    m.peak_mb = optional_number(s, "peak_mb", where);
    m.errors = optional_number(s, "errors", where);
    m.rps_per_gateway_cpu = optional_number(s, "rps_per_gateway_cpu", where);
    m.vs_nginx = optional_number(s, "vs_nginx", where);
    if (s.contains("latency_us") && !s["latency_us"].is_null()) {
      const json& lat = s["latency_us"];
      if (!lat.is_object()) throw BadInput(where + "/latency_us: expected an object");
      for (const auto& [key, value] : lat.items()) {
        const auto pct = percentile_of_key(key);
        if (!pct) continue;  // other statistics (e.g. "mean") are not percentiles
        if (value.is_null()) continue;
        if (!value.is_number())
          throw BadInput(where + "/latency_us/" + key + ": expected a number or null");
        m.latency.push_back({*pct, value.get<double>()});
      }
      std::sort(
          m.latency.begin(), m.latency.end(),
          [](const LatencyPoint& a, const LatencyPoint& b) { return a.percentile < b.percentile; });
    }
    if (s.contains("per_second")) {
      const json& series = s["per_second"];
      if (!series.is_array()) throw BadInput(where + "/per_second: expected an array");
      for (std::size_t k = 0; k < series.size(); ++k) {
        const std::string pw = where + "/per_second/" + std::to_string(k);
        m.per_second.push_back({require_number(series[k], "t", pw),
                                optional_number(series[k], "rps", pw),
                                optional_number(series[k], "p99_us", pw),
                                optional_number(series[k], "cpu_percent", pw)});
      }
    }
    run.scenarios.push_back(std::move(m));
  }
  return run;
}

std::optional<double> MacroScenario::latency_at(double percentile) const {
  for (const auto& p : latency)
    if (std::abs(p.percentile - percentile) < 1e-9) return p.us;
  return std::nullopt;
}

}  // namespace gatebench::tools
