#include "macro/driver/plan/scenario_names.hpp"

#include <filesystem>
#include <map>
#include <set>

#include "macro/common/json_field.hpp"
#include "macro/driver/plan/names.hpp"
#include "macro/driver/plan/targets.hpp"

namespace gatebench::macro {
namespace {

using common::JsonField;
using nlohmann::json;
namespace fs = std::filesystem;

std::string known_names(const std::set<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

std::set<std::string> shipped_target_names() {
  std::set<std::string> out;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(shipped_targets_dir(), ec))
    if (entry.path().extension() == ".json") out.insert(entry.path().stem().string());
  return out;
}

}  // namespace

std::vector<NamedScenario> named_scenarios(const std::string& scenario_dir) {
  const fs::path path = fs::path(scenario_dir) / kNamesFile;
  std::error_code ec;
  if (!fs::exists(path, ec)) return {};
  const std::string file = path.string();
  const json doc = common::read_json_file(file);
  const JsonField root(doc, file);
  root.expect_object();

  std::vector<NamedPair> pairs;
  std::map<std::string, std::string> by_pair;  // "<target>-<workload>" -> its name
  for (const std::string& name : root.keys()) {
    const JsonField e = root.child(name);
    if (!is_name(name)) e.fail("expected a scenario name [a-z0-9_-]+");
    e.expect_object();
    e.allow_only({"target", "workload", "order"});
    NamedPair p{name, e.child("target").string(), e.child("workload").string(),
                static_cast<int>(e.integer_or("order", 100, 0, 100000))};
    auto [it, added] = by_pair.emplace(p.target + "-" + p.workload, name);
    if (!added)
      e.fail("the pair " + p.target + " x " + p.workload + " is named '" + it->second +
             "' already: one name per pair");
    pairs.push_back(std::move(p));
  }
  if (pairs.empty()) return {};

  const std::vector<Workload> workloads = load_workloads(shipped_workloads_dir());
  std::map<std::string, Target> targets;
  std::vector<NamedScenario> out;
  for (const NamedPair& p : pairs) {
    const JsonField e = root.child(p.name);
    auto target = targets.find(p.target);
    if (target == targets.end()) {
      const fs::path target_path = fs::path(shipped_targets_dir()) / (p.target + ".json");
      if (!is_name(p.target) || !fs::is_regular_file(target_path, ec))
        e.child("target").fail("no shipped target '" + p.target +
                               "' (known: " + known_names(shipped_target_names()) + ")");
      target = targets.emplace(p.target, load_target(target_path.string(), workloads, scenario_dir))
                   .first;
    }
    const Workload* workload = nullptr;
    std::set<std::string> known;
    for (const Workload& w : workloads) {
      known.insert(w.name);
      if (w.name == p.workload) workload = &w;
    }
    if (workload == nullptr)
      e.child("workload")
          .fail("no workload named '" + p.workload + "' (known: " + known_names(known) + ")");
    if (const std::string why = unoffered(target->second, *workload); !why.empty()) e.fail(why);

    json object = expansion_object(target->second, *workload);
    object["name"] = p.name;
    object["order"] = p.order;
    // The ratios and latency deltas compare with the named scenarios of the same run, so a name
    // keeps its old baseline's name (gateway-protected: nginx-baseline, not nginx-plain).
    for (const char* key : {"baseline", "latency_baseline"}) {
      if (!object.contains(key)) continue;
      const std::string pair = object[key].get<std::string>();
      auto named = by_pair.find(pair);
      if (named == by_pair.end())
        e.fail("its " + std::string(key) + " " + pair + " has no name in this table: name it too");
      object[key] = named->second;
    }
    Scenario s = scenario_of(object, target->second, *workload);
    out.push_back({p, std::move(object), std::move(s)});
  }
  return out;
}

nlohmann::json scenario_file_object(const std::string& scenario_dir, const std::string& name) {
  for (NamedScenario& named : named_scenarios(scenario_dir))
    if (named.pair.name == name) return std::move(named.object);
  const fs::path file = fs::path(scenario_dir) / (name + ".json");
  std::error_code ec;
  if (is_name(name) && name + ".json" != kNamesFile && fs::is_regular_file(file, ec))
    return common::read_json_file(file.string());
  throw common::UsageError(name + ": neither a name of " +
                           (fs::path(scenario_dir) / kNamesFile).string() +
                           " nor a scenario file there");
}

}  // namespace gatebench::macro
