#pragma once
// One round of one scenario as macro.json's `rounds[]` entry, its ratios paired with the baseline
// measured in the same round.
#include <nlohmann/json.hpp>
#include <optional>

#include "macro/common/macro_result.hpp"
#include "macro/driver/results/scenario_result.hpp"

namespace gatebench::macro {

// CPU microseconds per completed request of a role ("target", "load", "backend", "gateway"):
// its CPU seconds in the measured window over the requests completed in that window.
std::optional<double> cpu_us_per_request(const ScenarioResult& r, const std::string& role);

// CPU microseconds per completed TLS handshake of a role, for runs with a new connection per
// request; nothing when the generator counted no handshakes.
std::optional<double> cpu_us_per_handshake(const ScenarioResult& r, const std::string& role);

// Why a closed-loop round with a new connection per request measured the harness rather than
// the target, or nothing:
// - the load generator was saturated: its threads were running or waiting for a CPU
//   ("load_runnable"), or used CPU, for at least kSaturatedShare of the window each (each thread
//   is one event loop that was never idle, so it could not have asked faster), or
// - the machine left at least kIdleShare of its CPU time idle (/proc/stat, every process) while
//   the target stayed below kSaturatedShare of its CPUs: the rate was held by something other
//   than CPU (too few connections, the generator's pacing, timers).
// Open-loop and search rounds hold a rate of their own and are never judged; nor are keep-alive
// rounds (on 2 shared CPUs one generator thread and the servers leave some CPU idle there by
// design), nor rounds without the samples a rule needs (no machine figures, unknown threads).
inline constexpr double kSaturatedShare = 0.9;
inline constexpr double kIdleShare = 0.15;
std::optional<std::string> harness_limit(const ScenarioResult& r);

// The round's figures; vs_nginx, cpu_vs_nginx and p99_vs_nginx (and latency_delta_us) are null
// when `baseline` (latency_baseline) is null or not ok.
common::MacroRound round_result(const ScenarioResult& r, const ScenarioResult* baseline,
                                const ScenarioResult* latency_baseline);
// The same as macro.json writes it.
nlohmann::json round_json(const ScenarioResult& r, const ScenarioResult* baseline,
                          const ScenarioResult* latency_baseline);

// Rounds to one decimal, as every figure of macro.json.
double round1(double value);
common::Figure optional_number(const std::optional<double>& value);

}  // namespace gatebench::macro
