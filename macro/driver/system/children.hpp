#pragma once
// The driver's view of the common child-process type (macro/common/child_process.hpp): every
// service and load run is a child in its own process group, so stopping it reaches the whole tree
// (nginx workers, gateway helpers, ...), and short helpers (openssl, git, podman) run to
// completion with a time limit that a stop signal cuts short.
#include <chrono>
#include <string>
#include <vector>

#include "macro/common/child_process.hpp"

namespace gatebench::macro {

using common::become_subreaper;
using common::CaptureResult;
using common::ChildProcess;
using common::describe_wait_status;
using common::SpawnError;
using common::SpawnSpec;
using common::Stream;

// Runs `exe` with stdout and stderr captured together; stops early on SIGINT/SIGTERM
// (stop_requested). Throws SpawnError when it cannot start.
CaptureResult run_capture(const std::string& exe, const std::vector<std::string>& args,
                          std::chrono::milliseconds timeout, const std::string& cwd = "");

// Processes (other than the driver) whose parent is the driver: left-overs after clean-up.
std::vector<pid_t> stray_children();

}  // namespace gatebench::macro
