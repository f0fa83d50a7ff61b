#pragma once
// The machine and build a macro run happened on, recorded in macro.json's "env".
#include <map>
#include <optional>
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
  // The third-party programs the run started or loaded with, by file name: their own version
  // line ("nginx version: nginx/1.22.1"), so a result says which nginx it was measured against.
  std::map<std::string, std::string> versions;
};

// The version line of a program this file knows how to ask (nginx -v, haproxy -v, caddy
// version, wrk -v, h2load --version, ...: each has its own flag, and a guessed one could start a
// server), by its file name; nothing for any other program (gatebench's own binaries are the
// build's commit) or when it gives no answer with a number in it within 2 s.
std::optional<std::string> program_version(const std::string& exe);

// source_dir is no longer read (the commit is the build's); kept so callers need not change.
EnvInfo collect_env_info(const std::string& source_dir);
int online_cpus();
// The checkout this driver was built from (default scenario directory, git commit).
std::string source_dir();

}  // namespace gatebench::macro
