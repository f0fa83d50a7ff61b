#include "macro/driver/system/env_info.hpp"

#include <sys/utsname.h>
#include <unistd.h>

#include <ctime>

#include "macro/common/build_info.hpp"
#include "macro/common/machine_cpu.hpp"

namespace gatebench::macro {

std::string source_dir() {
  return std::string(build_source_dir());
}

int online_cpus() {
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n > 0 ? static_cast<int>(n) : 1;
}

EnvInfo collect_env_info(const std::string& /*source_dir*/) {
  EnvInfo env;
  env.cpus = online_cpus();
  env.compiler = std::string(build_compiler());
  utsname u{};
  if (uname(&u) == 0) env.kernel = std::string(u.sysname) + " " + u.release;
  env.cpu_model = common::cpu_model();
  env.commit = std::string(build_commit());
  env.dirty = build_dirty();
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  char date[32];
  if (gmtime_r(&now, &utc) && std::strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%S+00:00", &utc))
    env.date = date;
  return env;
}

}  // namespace gatebench::macro
