// docs/targets.md's example target (lighttpd), extracted from the page itself, checked with
// `target check` and run against nginx on the plain, HTTPS keep-alive and HTTPS new-connection
// workloads: the page cannot drift from the code.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "driver_exe.hpp"
#include "macro/driver/system/net_probe.hpp"
#include "port_offset.hpp"

namespace gatebench::macro {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;
using testing::exit_code;
using testing::processes_mentioning;
using testing::run_driver;
using testing::unique_dir;

// Every fenced block that follows a line "<!-- target-example: NAME -->", by NAME.
std::map<std::string, std::string> examples(const std::string& page) {
  std::map<std::string, std::string> out;
  std::istringstream lines(page);
  std::string line, name, body;
  enum { outside, marked, inside } state = outside;
  const std::string marker = "<!-- target-example: ";
  while (std::getline(lines, line)) {
    if (state == outside && line.rfind(marker, 0) == 0) {
      name = line.substr(marker.size(), line.find(" -->") - marker.size());
      state = marked;
    } else if (state == marked && line.rfind("```", 0) == 0) {
      body.clear();
      state = inside;
    } else if (state == inside && line.rfind("```", 0) == 0) {
      out[name] = body;
      state = outside;
    } else if (state == inside) {
      body += line + "\n";
    }
  }
  return out;
}

TEST(TargetsDoc, LighttpdExampleChecksAndRunsAgainstNginx) {
  std::ifstream in(std::string(GATEBENCH_SOURCE_DIR) + "/docs/targets.md");
  ASSERT_TRUE(in);
  std::stringstream page;
  page << in.rdbuf();
  const auto files = examples(page.str());
  ASSERT_EQ(files.size(), 4u);
  ASSERT_TRUE(files.contains("lighttpd.json"));
  for (int port : {18080, 18081, 18443})
    if (!port_free(port + testing::port_offset()))
      GTEST_SKIP() << "skipped: port " << port + testing::port_offset() << " busy";

  // A directory outside the checkout: the templates are found beside the target file.
  const std::string dir = unique_dir("targets-doc");
  fs::remove_all(dir);
  fs::create_directories(dir);
  for (const auto& [name, text] : files) std::ofstream(dir + "/" + name) << text;
  const std::string target = dir + "/lighttpd.json";

  CaptureResult r = run_driver({"target", "check", target, "--port-offset",
                                std::to_string(testing::port_offset()), "--out", dir + "/check"},
                               60s);
  EXPECT_EQ(exit_code(r), 0) << r.output;
  for (const char* want :
       {"feature plain (workload plain)", "feature https (workload https-keepalive)",
        "feature https-full (workload https-newconn)", "every feature answered 2xx"})
    EXPECT_NE(r.output.find(want), std::string::npos) << want << "\n" << r.output;

  const std::string out = dir + "/run";
  r = run_driver({"--target", target, "--workloads", "plain,https-keepalive,https-newconn",
                  "--quick", "--rounds", "1", "--warmup", "0", "--duration", "1s", "--threads", "1",
                  "--port-offset", std::to_string(testing::port_offset()), "--out", out},
                 120s);
  ASSERT_EQ(exit_code(r), 0) << r.output;
  std::ifstream report_file(out + "/macro.json");
  const nlohmann::json report = nlohmann::json::parse(report_file);
  std::map<std::string, std::string> status;
  for (const auto& s : report["scenarios"]) {
    status[s["name"].get<std::string>()] = s["status"].get<std::string>();
    EXPECT_EQ(s["errors"], 0) << s["name"];
  }
  EXPECT_EQ(status, (std::map<std::string, std::string>{{"lighttpd-plain", "ok"},
                                                        {"lighttpd-https-keepalive", "ok"},
                                                        {"lighttpd-https-newconn", "ok"},
                                                        {"nginx-plain", "ok"},
                                                        {"nginx-https-keepalive", "ok"},
                                                        {"nginx-https-newconn", "ok"}}));
  for (const auto& s : report["scenarios"]) {
    if (s["name"].get<std::string>().rfind("lighttpd-", 0) == 0) {
      EXPECT_TRUE(s["vs_nginx"].is_number()) << s["name"];
    }
  }
  EXPECT_TRUE(processes_mentioning(dir).empty());
  fs::remove_all(dir);
}

}  // namespace
}  // namespace gatebench::macro
