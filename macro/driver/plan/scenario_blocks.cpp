#include "macro/driver/plan/scenario_blocks.hpp"

#include <map>
#include <string>

#include "macro/common/json_field.hpp"
#include "macro/driver/plan/names.hpp"

namespace gatebench::macro {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

json read_block(const fs::path& path) {
  json block = common::read_json_file(path.string());
  const common::JsonField root(block, path.string());
  if (!block.is_object()) root.fail("expected a service object");
  // One level only: a block that used another could form a cycle, and two levels of overrides
  // would make a service's fields hard to find.
  if (root.has("use")) root.child("use").fail("a block cannot use another block");
  return block;
}

}  // namespace

json resolve_block(const json& entry, const common::JsonField& use, const fs::path& blocks_dir,
                   std::map<std::string, json>& cache) {
  if (!use.json().is_string() || !is_name(use.string())) {
    use.fail("expected a block name [a-z0-9_-]+");
  }
  const std::string name = use.string();
  const fs::path path = blocks_dir / (name + ".json");
  auto cached = cache.find(name);
  if (cached == cache.end()) {
    std::error_code ec;
    if (!fs::is_regular_file(path, ec)) {
      use.fail("no block '" + name + "' (" + path.string() + ")");
    }
    cached = cache.emplace(name, read_block(path)).first;
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
  return resolved;
}

void resolve_service_blocks(json& scenario, const fs::path& file) {
  if (!scenario.is_object() || !scenario.contains("services")) return;
  json& services = scenario["services"];
  if (!services.is_array()) return;
  const fs::path dir = file.parent_path() / "services";
  std::map<std::string, json> blocks;  // each file read once per scenario
  for (size_t i = 0; i < services.size(); ++i) {
    json& entry = services[i];
    if (!entry.is_object() || !entry.contains("use")) continue;
    // A fresh view each time: the entries before this one have been replaced.
    const common::JsonField use =
        common::JsonField(scenario, file.string()).child("services").at(i).child("use");
    entry = resolve_block(entry, use, dir, blocks);
  }
}

}  // namespace gatebench::macro
