// gatebench.instructions/1 <-> InstructionRun.
#include "macro/common/usage_error.hpp"
#include "tools/src/results/results.hpp"

namespace gatebench::tools {

using nlohmann::json;

InstructionRun parse_instructions_json(const common::JsonField& doc) {
  InstructionRun run;
  if (doc.has("env")) run.env = doc.child("env").json();
  const common::JsonField list = doc.child("benchmarks");
  list.expect_array();
  for (std::size_t i = 0; i < list.size(); ++i) {
    const common::JsonField b = list.at(i);
    InstructionCount c;
    c.name = b.child("name").string();
    c.per_iteration = b.child("instructions_per_iteration").number();
    if (c.per_iteration < 0) b.child("instructions_per_iteration").fail("must not be negative");
    c.items_per_iteration = b.child("items_per_iteration").optional_number();
    if (c.items_per_iteration && *c.items_per_iteration <= 0)
      b.child("items_per_iteration").fail("expected a positive number");
    if (b.has("detail")) c.detail = b.child("detail").json();
    c.error = b.child("error").optional_string().value_or("");
    run.benchmarks.push_back(std::move(c));
  }
  return run;
}

json instructions_to_json(const InstructionRun& run) {
  json list = json::array();
  for (const auto& c : run.benchmarks) {
    json entry = {
        {"name", c.name}, {"instructions_per_iteration", c.per_iteration}, {"detail", c.detail}};
    if (c.items_per_iteration) entry["items_per_iteration"] = *c.items_per_iteration;
    if (!c.error.empty()) entry["error"] = c.error;
    list.push_back(std::move(entry));
  }
  return {{"schema", kInstructionsSchema}, {"env", run.env}, {"benchmarks", list}};
}

}  // namespace gatebench::tools
