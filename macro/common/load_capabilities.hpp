// What a gatebench-load binary can do, as `gatebench-load --capabilities` prints it (schema
// gatebench.load_capabilities/1): the long options its command line accepts. Written by the load
// generator (macro/load/options.cpp) and read by the driver, which decides before anything runs
// whether the binary it found can run a scenario (an open-loop rate, a request mix, HTTP/2, a
// counted header). The schema name and the JSON shape live here only.
#pragma once

#include <algorithm>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gatebench::common {

inline constexpr std::string_view kLoadCapabilitiesSchema = "gatebench.load_capabilities/1";

struct LoadCapabilities {
  std::vector<std::string> options;  // long option names without "--", sorted

  bool has(std::string_view option) const {
    return std::find(options.begin(), options.end(), option) != options.end();
  }
};

// {"schema": "gatebench.load_capabilities/1", "options": [...]} on one line.
inline std::string load_capabilities_json(const LoadCapabilities& caps) {
  nlohmann::json j;
  j["schema"] = std::string(kLoadCapabilitiesSchema);
  j["options"] = caps.options;
  return j.dump() + "\n";
}

// Nothing when `text` is not such a document (not JSON, another schema, options not a list of
// strings): a binary older than the option prints a usage error instead.
inline std::optional<LoadCapabilities> parse_load_capabilities(std::string_view text) {
  const nlohmann::json j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object()) return std::nullopt;
  const auto schema = j.find("schema");
  if (schema == j.end() || !schema->is_string() ||
      schema->get<std::string>() != kLoadCapabilitiesSchema)
    return std::nullopt;
  const auto options = j.find("options");
  if (options == j.end() || !options->is_array()) return std::nullopt;
  LoadCapabilities caps;
  for (const auto& option : *options) {
    if (!option.is_string()) return std::nullopt;
    caps.options.push_back(option.get<std::string>());
  }
  std::sort(caps.options.begin(), caps.options.end());
  return caps;
}

}  // namespace gatebench::common
