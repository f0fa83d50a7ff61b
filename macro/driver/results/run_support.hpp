#pragma once
// What the steps of one scenario run share: how they end it early and the files they touch.
#include <chrono>
#include <string>

#include "macro/driver/results/scenario_result.hpp"

namespace gatebench::macro {

// Control flow out of a scenario run, caught in run_scenario, where RAII has stopped the
// services: skipped (could not be prepared) or failed (started and broke), with the reason.
struct Outcome {
  Status status;
  std::string reason;
};
// A stop signal arrived.
struct Interrupted {};

// A load run that has not ended this long after its duration fails the scenario.
inline constexpr double kLoadRunGraceS = 30;

std::string read_text(const std::string& path);
// Creates the parent directories; throws Outcome failed when the file cannot be written.
void write_text(const std::string& path, const std::string& content);
// Last non-empty line of a log, cut at 200 characters, for short failure reasons.
std::string last_line(const std::string& text);

double seconds_since(std::chrono::steady_clock::time_point start);

}  // namespace gatebench::macro
