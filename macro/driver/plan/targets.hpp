#pragma once
// Workloads and targets (docs/targets.md): a scenario as workload x target. A workload
// (macro/workloads/<name>.json) is a load profile with its prepare steps, the feature it needs
// from a target and the target it is compared with; a target (macro/targets/<name>.json, or any
// file of a user's) says how to start the system under test and, per feature it offers, what the
// workload needs from it. Each pair expands into the Scenario the driver already runs, named
// <target>-<workload>, with <baseline target>-<workload> as its baseline.
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "macro/driver/plan/scenario.hpp"

namespace gatebench::macro {

struct Workload {
  std::string name;
  std::string description;
  std::string file;
  int order = 100;
  std::string feature;   // what a target must offer to run it
  std::string baseline;  // a target name: <baseline>-<name> is the ratios' denominator
  // The workload the baseline target runs instead of this one: a workload whose traffic a plain
  // proxy answers as it answers `plain` (protected, queue) is compared with nginx-plain, as the
  // shipped scenarios compare with nginx-baseline. Empty: this workload.
  std::string baseline_workload;
  // A workload whose latency is reported as deltas from the same target on this one (waf-mix
  // from plain); empty: none.
  std::string latency_baseline;
  // The cache check's expected hit ratio ({"expect_hit_ratio": [lo, hi]}), its header and hit
  // values given by the target's feature; null: no cache check.
  nlohmann::json cache;
  // Fields the target's feature entry must give, each with why ("headers": "the Host header
  // that selects the protected configuration"); the load's port is always needed.
  std::map<std::string, std::string> needs;
  nlohmann::json prepare;  // array, as a scenario's (a cookies step's port is a port role)
  nlohmann::json load;     // as a scenario's load; its port is a role, "http" or "https"
};

struct Target {
  std::string name;
  std::string description;
  std::string file;
  // Per feature offered: the scenario object of the expansion without its workload's parts
  // (ports, prepare, services with blocks resolved) and the load's port, headers and path.
  struct Offer {
    nlohmann::json ports;     // object, the backend's included
    nlohmann::json prepare;   // array: the target's own steps
    nlohmann::json services;  // array, resolved
    std::string port;         // the target port the load connects to
    std::vector<std::string> headers;
    std::string path;  // empty: the workload's
    // Tools or files the feature needs (a module, a rule set, redis-server); missing ones skip
    // the expansion with the reason, as a scenario's "requires".
    std::vector<std::string> requires_tools;
    nlohmann::json max_error_rate;  // null, or the expansion's (a peer WAF's misses are errors)
    nlohmann::json cache;           // null, or {status_header, hit_values}
  };
  std::map<std::string, Offer> offers;  // by feature
};

// Every *.json in `dir`, sorted by (order, name). Throws ScenarioError naming file and pointer.
std::vector<Workload> load_workloads(const std::string& dir);

// `name_or_file`: a shipped target's name (macro/targets/<name>.json of this checkout) or a path.
std::string target_file(const std::string& name_or_file);

// Reads and validates a target file against `workloads` (a feature no workload needs, a feature
// without the port or fields its workloads need, a missing template: errors naming the file and
// JSON pointer). `scenario_dir` holds the shipped service blocks (services/, for "use") and the
// configs directory; templates are read beside the target file unless it says otherwise.
Target load_target(const std::string& file, const std::vector<Workload>& workloads,
                   const std::string& scenario_dir);

// The scenario <target>-<workload>; `unavailable` says why when the target does not offer the
// workload's feature.
Scenario expand(const Target& target, const Workload& workload);

// Why `target` cannot run `workload` (it does not offer the workload's feature); empty: it can.
std::string unoffered(const Target& target, const Workload& workload);
// The scenario object of an offered pair, as a scenario file would hold it with its service
// blocks resolved: what expand() parses, and what a name of macro/scenarios/names.json stands
// for (scenario_names.hpp), renamed.
nlohmann::json expansion_object(const Target& target, const Workload& workload);
// `object` (an expansion_object, renamed or not) parsed, errors naming the workload and target.
Scenario scenario_of(const nlohmann::json& object, const Target& target, const Workload& workload);

// What --target and --workloads add to a run: every expansion of the named targets and of each
// workload's baseline target, and the names to select (the named targets' expansions). Throws
// common::UsageError for an unknown workload, ScenarioError for a bad file.
struct TargetRun {
  std::vector<Scenario> scenarios;
  std::vector<std::string> selected;
};
TargetRun target_scenarios(const std::vector<std::string>& targets,
                           const std::vector<std::string>& workload_names,
                           const std::string& workloads_dir, const std::string& scenario_dir);

// Shipped directories of this checkout.
std::string shipped_workloads_dir();
std::string shipped_targets_dir();

}  // namespace gatebench::macro
