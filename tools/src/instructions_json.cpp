// gatebench.instructions/1 <-> InstructionRun.
#include "tools/src/bad_input.hpp"
#include "tools/src/json_file.hpp"
#include "tools/src/results.hpp"

namespace gatebench::tools {

using nlohmann::json;

InstructionRun parse_instructions_json(const json& doc, const std::string& file) {
  InstructionRun run;
  if (doc.contains("env")) run.env = doc["env"];
  const json& list = require_field(doc, "benchmarks", file + ":");
  if (!list.is_array()) throw BadInput(file + ":/benchmarks: expected an array");
  for (std::size_t i = 0; i < list.size(); ++i) {
    const std::string where = file + ":/benchmarks/" + std::to_string(i);
    InstructionCount c;
    c.name = require_string(list[i], "name", where);
    c.per_iteration = require_number(list[i], "instructions_per_iteration", where);
    if (c.per_iteration < 0)
      throw BadInput(where + "/instructions_per_iteration: must not be negative");
    if (list[i].contains("detail")) c.detail = list[i]["detail"];
    c.error = optional_string(list[i], "error", where).value_or("");
    run.benchmarks.push_back(std::move(c));
  }
  return run;
}

json instructions_to_json(const InstructionRun& run) {
  json list = json::array();
  for (const auto& c : run.benchmarks) {
    json entry = {
        {"name", c.name}, {"instructions_per_iteration", c.per_iteration}, {"detail", c.detail}};
    if (!c.error.empty()) entry["error"] = c.error;
    list.push_back(std::move(entry));
  }
  return {{"schema", "gatebench.instructions/1"}, {"env", run.env}, {"benchmarks", list}};
}

}  // namespace gatebench::tools
