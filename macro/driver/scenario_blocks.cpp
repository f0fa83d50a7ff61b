#include "macro/driver/scenario_blocks.hpp"

#include <algorithm>
#include <fstream>
#include <map>
#include <string>

#include "macro/driver/scenario.hpp"

namespace gatebench::macro {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

bool is_block_name(const std::string& text) {
  return !text.empty() && std::all_of(text.begin(), text.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_';
  });
}

json read_block(const fs::path& path) {
  std::ifstream in(path);
  if (!in) throw ScenarioError(path.string() + ": cannot read");
  json block;
  try {
    block = json::parse(in);
  } catch (const json::parse_error& e) {
    throw ScenarioError(path.string() + ": not valid JSON: " + e.what());
  }
  if (!block.is_object()) throw ScenarioError(path.string() + ": expected a service object");
  // One level only: a block that used another could form a cycle, and two levels of overrides
  // would make a service's fields hard to find.
  if (block.contains("use")) {
    throw ScenarioError(path.string() + ": /use: a block cannot use another block");
  }
  return block;
}

}  // namespace

void resolve_service_blocks(json& scenario, const fs::path& file) {
  if (!scenario.is_object() || !scenario.contains("services")) return;
  json& services = scenario["services"];
  if (!services.is_array()) return;
  const fs::path dir = file.parent_path() / "services";
  std::map<std::string, json> blocks;  // each file read once per scenario
  for (size_t i = 0; i < services.size(); ++i) {
    json& entry = services[i];
    if (!entry.is_object() || !entry.contains("use")) continue;
    const std::string where = file.string() + ": /services/" + std::to_string(i) + "/use: ";
    if (!entry["use"].is_string() || !is_block_name(entry["use"].get<std::string>())) {
      throw ScenarioError(where + "expected a block name [a-z0-9_-]+");
    }
    const std::string name = entry["use"].get<std::string>();
    const fs::path path = dir / (name + ".json");
    auto cached = blocks.find(name);
    if (cached == blocks.end()) {
      std::error_code ec;
      if (!fs::is_regular_file(path, ec)) {
        throw ScenarioError(where + "no block '" + name + "' (" + path.string() + ")");
      }
      cached = blocks.emplace(name, read_block(path)).first;
    }
    json resolved = cached->second;
    for (const auto& [key, value] : entry.items()) {
      if (key == "use") continue;
      if (key == "env" && value.is_object() && resolved.contains("env") &&
          resolved["env"].is_object()) {
        resolved["env"].update(value);
      } else {
        resolved[key] = value;
      }
    }
    entry = std::move(resolved);
  }
}

}  // namespace gatebench::macro
