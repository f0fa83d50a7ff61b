#include "macro/driver/system/env_info.hpp"

#include <sys/utsname.h>
#include <unistd.h>

#include <ctime>
#include <fstream>

#include "macro/common/build_info.hpp"

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
