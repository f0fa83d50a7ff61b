// Statuses per template of a request mix (waf-mix): gatebench-macro's macro.json keeps only each
// template's as-expected / unexpected counts, the load generator's own file of each round
// (gatebench.load/1 `templates[].status`, docs/load.md) has the status codes. They are read from
// the rounds' artifacts next to macro.json when those files are there.
#pragma once

#include <filesystem>
#include <map>
#include <string>

#include "tools/src/results/results.hpp"

namespace gatebench::tools {

using StatusCounts = std::map<std::string, double>;            // "403" -> responses
using TemplateStatuses = std::map<std::string, StatusCounts>;  // template -> statuses

// Per scenario of more than one template, the statuses of each template summed over its ok rounds,
// from each ok round's `load-measure.json` among its artifacts (paths relative to `macro_dir`). A
// scenario is left out unless every ok round has that file with templates, so a sum never covers
// only some rounds.
std::map<std::string, TemplateStatuses> load_mix_statuses(const MacroRun& run,
                                                          const std::filesystem::path& macro_dir);

}  // namespace gatebench::tools
