#pragma once
// The scenario names that are (target, workload) pairs (docs/scenarios.md, "Names of pairs"):
// names.json in a scenario directory maps each to its pair, so `--scenarios gateway-protected`,
// "over" files, the default lists and the report's rules keep the names of the scenario files the
// pairs replaced, and the pair's definition lives once, in its target and workload files.
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "macro/driver/plan/scenario.hpp"

namespace gatebench::macro {

// The table's file name in a scenario directory; the loader reads it instead of as a scenario.
inline constexpr const char* kNamesFile = "names.json";

struct NamedPair {
  std::string name;      // the scenario's name
  std::string target;    // a shipped target (macro/targets/<target>.json)
  std::string workload;  // a shipped workload (macro/workloads/<workload>.json)
  int order = 100;       // the scenario's run order (the replaced file's)
};

struct NamedScenario {
  NamedPair pair;
  // The expansion of the pair as a scenario file would hold it (services resolved), renamed; its
  // baseline and latency baseline under their names in the table too. Base of "over" files.
  nlohmann::json object;
  Scenario scenario;  // `object` parsed
};

// Every name of `scenario_dir`'s table, in the table's order (none without a table). Each pair
// is expanded with the shipped workloads and targets, its service blocks from the directory's
// services/. Throws ScenarioError naming names.json and the JSON pointer: an unknown field, target
// or workload, a target that does not offer the workload, two names for one pair, a baseline pair
// without a name.
std::vector<NamedScenario> named_scenarios(const std::string& scenario_dir);

// Scenario `name` of `scenario_dir` as a scenario file holds it (--print-scenario): a name of the
// table expanded, or the scenario file's own content. A study copies it to make variants, so no
// tool outside the driver re-implements the expansion. Throws common::UsageError for a name that
// is neither (an "over" file's parts included: their file is the "over" file).
nlohmann::json scenario_file_object(const std::string& scenario_dir, const std::string& name);

}  // namespace gatebench::macro
