#include "macro/driver/system/env_info.hpp"

#include <sys/utsname.h>
#include <unistd.h>

#include <ctime>
#include <fstream>

#include "build_info/build_info.hpp"

#ifndef GATEBENCH_COMPILER
#define GATEBENCH_COMPILER "unknown"
#endif

namespace gatebench::macro {

#ifndef GATEBENCH_SOURCE_DIR
#define GATEBENCH_SOURCE_DIR "."
#endif

std::string source_dir() {
  return GATEBENCH_SOURCE_DIR;
}

int online_cpus() {
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n > 0 ? static_cast<int>(n) : 1;
}

EnvInfo collect_env_info(const std::string& /*source_dir*/) {
  EnvInfo env;
  env.cpus = online_cpus();
  env.compiler = GATEBENCH_COMPILER;
  utsname u{};
  if (uname(&u) == 0) env.kernel = std::string(u.sysname) + " " + u.release;
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line;
  while (std::getline(cpuinfo, line)) {
    if (line.starts_with("model name")) {
      size_t colon = line.find(':');
      if (colon != std::string::npos)
        env.cpu_model = line.substr(line.find_first_not_of(" \t", colon + 1));
      break;
    }
  }
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
