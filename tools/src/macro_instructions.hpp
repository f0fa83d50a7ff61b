// gatebench.macro_instructions/1: instructions per request of the reference gateway end to end,
// written by `gatebench-macro --instructions N` (docs/attribution.md).
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace gatebench::tools {

struct MacroInstructionFile {
  double requests = 0;
  std::string callgrind_file;  // a relative path is resolved against the JSON file's directory
};

struct ScenarioInstructionCount {
  std::string name, status, reason;
  std::optional<double> per_request;       // (I(2N) - I(N)) / N, only when status is ok
  std::vector<MacroInstructionFile> runs;  // N, then 2N
};

struct MacroInstructionRun {
  nlohmann::json env = nlohmann::json::object();
  nlohmann::json method = nlohmann::json::object();
  std::vector<ScenarioInstructionCount> scenarios;
  const ScenarioInstructionCount* find(const std::string& name) const;
};

// Throws common::UsageError naming the file and JSON field.
MacroInstructionRun load_macro_instructions(const std::string& file);
MacroInstructionRun parse_macro_instructions(const nlohmann::json& doc, const std::string& file);

}  // namespace gatebench::tools
