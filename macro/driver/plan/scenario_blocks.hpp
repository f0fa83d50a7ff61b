#pragma once
// Shared service blocks (format in docs/scenarios.md): a service entry {"use": "<block>", ...} of
// a scenario file stands for services/<block>.json beside it, with the entry's fields over it.
#include <filesystem>
#include <nlohmann/json.hpp>

namespace gatebench::macro {

// Replaces every "use" entry of `scenario`'s services with its block: the entry's other fields
// replace the block's, except `env`, whose variables are added to the block's. Blocks are read
// from the `services` directory beside `file` and cannot use blocks. Runs before validation, so
// the resolved services get every check a spelled-out one gets; anything that is not an array of
// objects is left to that validation. Throws ScenarioError naming the file and JSON pointer.
void resolve_service_blocks(nlohmann::json& scenario, const std::filesystem::path& file);

}  // namespace gatebench::macro
