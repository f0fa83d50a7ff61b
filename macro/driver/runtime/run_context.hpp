#pragma once
// What every scenario run of one driver invocation shares.
#include <string>

#include "macro/driver/plan/options.hpp"
#include "macro/driver/runtime/container.hpp"
#include "macro/driver/system/progress.hpp"

namespace gatebench::macro {

class RemoteHosts;

struct RunContext {
  const Options& options;
  Progress& progress;
  std::string out_dir;                      // absolute; artifacts are listed relative to it
  const ContainerEngine* engine = nullptr;  // null: process runtime
  RemoteHosts* remote = nullptr;            // --hosts: the ssh hosts (load_fanout.hpp)
};

// Prefix of every container name this driver process starts ("gb-<pid>-").
std::string container_prefix();

}  // namespace gatebench::macro
