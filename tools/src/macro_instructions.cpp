#include "tools/src/macro_instructions.hpp"

#include <filesystem>

#include "macro/common/json_field.hpp"
#include "tools/src/json_file.hpp"

namespace gatebench::tools {

const ScenarioInstructionCount* MacroInstructionRun::find(const std::string& name) const {
  for (const auto& s : scenarios)
    if (s.name == name) return &s;
  return nullptr;
}

MacroInstructionRun parse_macro_instructions(const nlohmann::json& doc, const std::string& file) {
  const common::JsonField root(doc, file);
  root.expect_object();
  const std::string schema = root.child("schema").string();
  if (schema != "gatebench.macro_instructions/1")
    root.child("schema").fail("expected gatebench.macro_instructions/1, got '" + schema + "'");
  MacroInstructionRun run;
  if (root.has("env")) run.env = root.child("env").json();
  if (root.has("method")) run.method = root.child("method").json();
  const common::JsonField list = root.child("scenarios");
  list.expect_array();
  for (std::size_t i = 0; i < list.size(); ++i) {
    const common::JsonField s = list.at(i);
    ScenarioInstructionCount c;
    c.name = s.child("name").string();
    c.status = s.child("status").string();
    c.reason = s.child("reason").optional_string().value_or("");
    if (c.status == "ok") c.per_request = s.child("instructions_per_request").number(0, 1e12);
    if (s.has("runs")) {
      const common::JsonField runs = s.child("runs");
      runs.expect_array();
      for (std::size_t k = 0; k < runs.size(); ++k) {
        const common::JsonField r = runs.at(k);
        MacroInstructionFile f;
        f.requests = r.child("requests").number(1, 1e12);
        f.callgrind_file = r.child("callgrind_file").optional_string().value_or("");
        if (!f.callgrind_file.empty() && std::filesystem::path(f.callgrind_file).is_relative())
          f.callgrind_file =
              (std::filesystem::path(file).parent_path() / f.callgrind_file).string();
        c.runs.push_back(std::move(f));
      }
    }
    run.scenarios.push_back(std::move(c));
  }
  return run;
}

MacroInstructionRun load_macro_instructions(const std::string& file) {
  return parse_macro_instructions(load_json_file(file), file);
}

}  // namespace gatebench::tools
