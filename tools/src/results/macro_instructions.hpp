// gatebench.macro_instructions/1: instructions and system calls per request end to end, written
// by `gatebench-macro --instructions N` (docs/attribution.md). The type and its JSON conversion
// are the driver's own (macro/common/macro_instructions.hpp); this names them for the tools.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "macro/common/macro_instructions.hpp"

namespace gatebench::tools {

using MacroInstructionRun = common::MacroCountFile;
using ScenarioInstructionCount = common::MacroScenarioCount;

// Throws common::UsageError naming the file and JSON field.
MacroInstructionRun load_macro_instructions(const std::string& file);
MacroInstructionRun parse_macro_instructions(const nlohmann::json& doc, const std::string& file);

}  // namespace gatebench::tools
