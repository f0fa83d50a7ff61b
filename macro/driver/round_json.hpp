#pragma once
// One round of one scenario as macro.json's `rounds[]` entry, its ratios paired with the baseline
// measured in the same round.
#include <nlohmann/json.hpp>
#include <optional>

#include "macro/driver/scenario_result.hpp"

namespace gatebench::macro {

// CPU microseconds per completed request of a role ("target", "load", "backend", "gateway"):
// its CPU seconds in the measured window over the requests completed in that window.
std::optional<double> cpu_us_per_request(const ScenarioResult& r, const std::string& role);

// The round's figures; vs_nginx, cpu_vs_nginx and p99_vs_nginx (and latency_delta_us) are null
// when `baseline` (latency_baseline) is null or not ok.
nlohmann::json round_json(const ScenarioResult& r, const ScenarioResult* baseline,
                          const ScenarioResult* latency_baseline);

// Rounds to one decimal, as every figure of macro.json.
nlohmann::json round1(double value);
nlohmann::json optional_number(const std::optional<double>& value);

}  // namespace gatebench::macro
