#include "macro/driver/system/env_info.hpp"

#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <ctime>
#include <filesystem>
#include <sstream>
#include <utility>

#include "macro/common/build_info.hpp"
#include "macro/common/child_process.hpp"
#include "macro/common/machine_cpu.hpp"

namespace gatebench::macro {

std::string source_dir() {
  return std::string(build_source_dir());
}

int online_cpus() {
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n > 0 ? static_cast<int>(n) : 1;
}

std::optional<std::string> program_version(const std::string& exe) {
  static const std::map<std::string, std::string> kVersionFlag = {
      {"nginx", "-v"},      {"haproxy", "-v"},
      {"caddy", "version"}, {"lighttpd", "-v"},
      {"apache2", "-v"},    {"h2o", "--version"},
      {"varnishd", "-V"},   {"redis-server", "--version"},
      {"wrk", "-v"},        {"h2load", "--version"}};
  const auto flag = kVersionFlag.find(std::filesystem::path(exe).filename().string());
  if (flag == kVersionFlag.end()) return std::nullopt;
  common::CaptureOptions options;
  options.timeout = std::chrono::seconds(2);
  options.merge_errors = true;  // nginx answers on stderr
  common::SpawnSpec spec = common::command({exe, flag->second});
  spec.in = common::Stream::discard();
  common::CaptureResult r;
  try {
    r = common::capture(std::move(spec), options);
  } catch (const std::exception&) {
    return std::nullopt;
  }
  // wrk -v exits 1 after its version line: the line, not the status, is the answer.
  std::istringstream lines(r.output);
  for (std::string line; std::getline(lines, line);)
    if (std::any_of(line.begin(), line.end(), [](char c) { return c >= '0' && c <= '9'; })) {
      while (!line.empty() && (line.back() == ' ' || line.back() == '\r')) line.pop_back();
      return line.substr(0, 120);
    }
  return std::nullopt;
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
