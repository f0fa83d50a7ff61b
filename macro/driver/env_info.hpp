#pragma once
// The machine and build a macro run happened on, recorded in macro.json's "env".
#include <string>

#include "macro/driver/cpu_layout.hpp"

namespace gatebench::macro {

struct EnvInfo {
  std::string commit;  // git rev-parse HEAD of the source tree, "unknown" outside a checkout
  std::string cpu_model;
  int cpus = 0;
  std::string kernel;
  std::string compiler;  // the compiler that built the driver
};

EnvInfo collect_env_info(const std::string& source_dir);
int online_cpus();
// The checkout this driver was built from (default scenario directory, git commit).
std::string source_dir();

}  // namespace gatebench::macro
