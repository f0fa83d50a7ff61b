#pragma once
// `gatebench-macro target check FILE` (`gatebench target check FILE`, docs/targets.md): the
// target file validated as a run would validate it, then the target started once per feature it
// offers, with the shipped backend, and one request of that feature's first workload sent through
// it (curl, over HTTP/2 for an HTTP/2 workload): its status and headers are printed, so a user
// learns before a long run that a feature does not answer as meant.
#include <string>
#include <vector>

namespace gatebench::macro {

// `args`: what follows "target" on the command line. 0 every feature answered 2xx, 1 one did not
// or could not start; throws common::UsageError (exit 2) for bad arguments or a bad target file,
// before anything starts.
int target_command(const std::vector<std::string>& args);

std::string target_help_text();

}  // namespace gatebench::macro
