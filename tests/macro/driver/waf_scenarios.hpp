#pragma once
// Helpers of the WAF peer's end-to-end tests (modsecurity_scenarios_test, vpatch_scenarios_test):
// a scenario of macro.json by name, and a service of a finished round started again from the
// configuration the run rendered into the round's directory, as it ran.
#include <chrono>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "macro/driver/system/children.hpp"
#include "macro/driver/system/net_probe.hpp"
#include "macro/driver/system/toolbox.hpp"

namespace gatebench::macro::testing {

inline const nlohmann::json* scenario(const nlohmann::json& report, const std::string& name) {
  for (const auto& each : report["scenarios"])
    if (each["name"] == name) return &each;
  return nullptr;
}

// `exe` (a tool name, found as the driver finds it) with `args`, its output to `log`.
inline ChildProcess restart(const std::string& exe, const std::vector<std::string>& args,
                            const std::filesystem::path& log) {
  SpawnSpec spec;
  spec.exe = *Toolbox().find(exe);
  spec.args = args;
  spec.out = Stream::to_file(log.string());
  spec.err = spec.out;
  return ChildProcess::spawn(spec);
}

// An nginx of the round (`backend`, `proxy`): its rendered <service>.conf and prefix directory.
inline ChildProcess restart_nginx(const std::filesystem::path& run_dir,
                                  const std::string& service) {
  return restart(
      "nginx",
      {"-p", (run_dir / service).string() + "/", "-c", (run_dir / (service + ".conf")).string()},
      run_dir / (service + ".again.log"));
}

// True once 127.0.0.1:port answers HTTP, within 30 s (the CRS takes about a second to load).
inline bool answers(int port) {
  using namespace std::chrono_literals;
  for (int i = 0; i < 300; ++i) {
    if (http_status(port, "/", 1s)) return true;
    std::this_thread::sleep_for(100ms);
  }
  return false;
}

}  // namespace gatebench::macro::testing
