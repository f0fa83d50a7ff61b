#pragma once
// The machine and build a macro run happened on, recorded in macro.json's "env".
#include <string>
#include <vector>

#include "macro/driver/system/cpu_layout.hpp"

namespace gatebench::macro {

// One host of a multi-host run (docs/multi-host.md): where it is and the machine it is.
struct HostEnv {
  std::string name;
  std::string kind;  // "local", "ssh" or "podman"
  std::string address;
  std::vector<std::string> roles;  // what --place put there
  std::string cpu_model;
  int cpus = 0;  // 0: not known (the host was not reached)
  std::string kernel;
};

struct EnvInfo {
  // The commit the driver was built from (gatebench::build_commit(): 40 hex digits, or "unknown"
  // for a build outside a git checkout), not the checkout's HEAD when the driver runs.
  std::string commit;
  bool dirty = false;  // the build's tree had uncommitted changes to tracked files
  std::string cpu_model;
  int cpus = 0;
  std::string kernel;
  std::string compiler;        // the compiler that built the driver
  std::string date;            // when the run started, UTC, as micro.json's context.date
  std::vector<HostEnv> hosts;  // --hosts runs only; empty otherwise
};

// source_dir is no longer read (the commit is the build's); kept so callers need not change.
EnvInfo collect_env_info(const std::string& source_dir);
int online_cpus();
// The checkout this driver was built from (default scenario directory, git commit).
std::string source_dir();

}  // namespace gatebench::macro
