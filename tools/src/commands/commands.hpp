// The `gatebench` subcommands. Each takes the arguments after its name and returns the process
// exit code; common::UsageError escapes to main (exit 2), other exceptions mean failure (exit 1).
#pragma once

#include <string>
#include <vector>

namespace gatebench::tools {

using CommandArgs = std::vector<std::string>;

int command_compare(const CommandArgs& args);
int command_micro(const CommandArgs& args);
int command_report(const CommandArgs& args);
int command_attribution(const CommandArgs& args);
int command_profile(const CommandArgs& args);
int command_macro(const CommandArgs& args);
// `gatebench target check FILE`: hands over to `gatebench-macro target` (docs/targets.md).
int command_target(const CommandArgs& args);
int command_run(const CommandArgs& args);
int command_history(const CommandArgs& args);
int command_bisect(const CommandArgs& args);
// `gatebench results REPORT.json -o docs/RESULTS.md`: the results page of one run.
int command_results(const CommandArgs& args);
// `gatebench gate BASE HEAD`: the exact macro gate between two commits (docs/gating.md).
int command_gate(const CommandArgs& args);

}  // namespace gatebench::tools
