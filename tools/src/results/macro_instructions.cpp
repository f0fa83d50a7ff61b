#include "tools/src/results/macro_instructions.hpp"

#include "tools/src/results/json_file.hpp"

namespace gatebench::tools {

MacroInstructionRun parse_macro_instructions(const nlohmann::json& doc, const std::string& file) {
  return common::parse_macro_count(doc, file);
}

MacroInstructionRun load_macro_instructions(const std::string& file) {
  return parse_macro_instructions(load_json_file(file), file);
}

}  // namespace gatebench::tools
