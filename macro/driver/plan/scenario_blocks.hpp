#pragma once
// Shared service blocks (format in docs/scenarios.md): a service entry {"use": "<block>", ...} of
// a scenario file stands for services/<block>.json beside it, with the entry's fields over it.
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "macro/common/json_field.hpp"

namespace gatebench::macro {

// Replaces every "use" entry of `scenario`'s services with its block: the entry's other fields
// replace the block's, except `env`, whose variables are added to the block's. Blocks are read
// from the `services` directory beside `file` and cannot use blocks. Runs before validation, so
// the resolved services get every check a spelled-out one gets; anything that is not an array of
// objects is left to that validation. Throws ScenarioError naming the file and JSON pointer.
void resolve_service_blocks(nlohmann::json& scenario, const std::filesystem::path& file);

// One entry {"use": "<block>", ...}: the block services/<block>.json of `blocks_dir` with the
// entry's other fields over it, as above. `use` is the entry's "use" field, so an error names the
// file and pointer it came from (a scenario's service or a target, docs/targets.md); `cache`
// holds the blocks read so far.
nlohmann::json resolve_block(const nlohmann::json& entry, const common::JsonField& use,
                             const std::filesystem::path& blocks_dir,
                             std::map<std::string, nlohmann::json>& cache);

}  // namespace gatebench::macro
