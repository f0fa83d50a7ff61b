#pragma once
// `target check NAME` on a shipped target that offers plain HTTP, HTTPS (keep-alive and new
// connections) and HTTP/2: exit 0, one 2xx answer per feature, nothing left running.
#include <gtest/gtest.h>

#include <filesystem>
#include <initializer_list>
#include <string>

#include "driver_exe.hpp"
#include "macro/driver/system/toolbox.hpp"
#include "port_offset.hpp"

namespace gatebench::macro::testing {

// ci/setup installs every tool these tests start: a missing one fails, never skips.
inline void expect_installed(std::initializer_list<const char*> tools) {
  Toolbox toolbox;
  for (const char* tool : tools)
    EXPECT_TRUE(toolbox.find(tool)) << tool << " missing: run ci/setup";
}

inline void expect_check_answers_every_feature(const std::string& target) {
  const std::string out = unique_dir(target + "-check");
  std::filesystem::remove_all(out);
  const CaptureResult r = run_driver(
      {"target", "check", target, "--port-offset", std::to_string(port_offset()), "--out", out},
      std::chrono::seconds(120));
  EXPECT_EQ(exit_code(r), 0) << r.output;
  for (const char* want :
       {"feature plain (workload plain)", "feature https (workload https-keepalive)",
        "feature https-full (workload https-newconn)", "feature h2 (workload h2)", "HTTP/1.1 200",
        "HTTP/2 200", "every feature answered 2xx"})
    EXPECT_NE(r.output.find(want), std::string::npos) << want << "\n" << r.output;
  EXPECT_TRUE(processes_mentioning(out).empty());
  std::filesystem::remove_all(out);
}

}  // namespace gatebench::macro::testing
