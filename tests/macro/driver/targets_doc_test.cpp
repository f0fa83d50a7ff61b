// docs/targets.md's example target (lighttpd), extracted from the page itself, checked with
// `target check` and run against nginx on the plain, HTTPS keep-alive and HTTPS new-connection
// workloads: the page cannot drift from the code. The same for its image example (the reference
// gateway built into an image, run with --runtime podman).
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "doc_examples.hpp"
#include "driver_exe.hpp"
#include "macro/driver/system/net_probe.hpp"
#include "macro/driver/system/toolbox.hpp"
#include "port_offset.hpp"

namespace gatebench::macro {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;
using testing::examples;
using testing::exit_code;
using testing::processes_mentioning;
using testing::run_driver;
using testing::unique_dir;

TEST(TargetsDoc, LighttpdExampleChecksAndRunsAgainstNginx) {
  const auto files = examples(testing::targets_page());
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

// The image under test, removed (with any container of it) however the test ends.
struct ImageGuard {
  std::string tag;
  ~ImageGuard() {
    const CaptureResult ps = run_capture("podman", {"ps", "-aq", "--filter", "ancestor=" + tag},
                                         std::chrono::seconds(15));
    std::istringstream ids(ps.output);
    for (std::string id; ids >> id;) run_capture("podman", {"rm", "-f", id}, 15s);
    run_capture("podman", {"rmi", "-f", tag}, 30s);
  }
};

// The section "Your gateway as an image": the Containerfile and target files of the page, an
// image built from this build's gateway and the libraries ldd lists, `target check` and a
// one-round run of the plain workload against nginx with --runtime podman.
TEST(TargetsDoc, ImageExampleBuildsChecksAndRuns) {
  const int kImageOffset = testing::port_offset();
  const auto gateway = Toolbox().find("gatebench-gateway");
  ASSERT_TRUE(gateway.has_value()) << "gatebench-gateway not built";

  std::string tmpl = (fs::temp_directory_path() / "gatebench-image-XXXXXX").string();
  ASSERT_NE(mkdtemp(tmpl.data()), nullptr);
  const std::string dir = tmpl;
  // A tag of this run's own, in place of the page's.
  const ImageGuard image{"localhost/gatebench-doc-mygw:" + std::to_string(getpid())};
  ASSERT_EQ(testing::write_image_example(dir, *gateway, image.tag), "");
  CaptureResult r = run_capture(
      "podman", {"build", "-q", "-t", image.tag, "-f", dir + "/Containerfile", dir + "/context"},
      120s);
  ASSERT_TRUE(r.succeeded()) << r.output;
  r = run_capture("podman", {"image", "inspect", "--format", "{{.Digest}}", image.tag}, 30s);
  ASSERT_TRUE(r.succeeded()) << r.output;
  const std::string digest = r.output.substr(0, r.output.find('\n'));
  ASSERT_EQ(digest.rfind("sha256:", 0), 0u) << digest;

  const std::string target = dir + "/mygw.json";
  const std::string offset = std::to_string(kImageOffset);
  r = run_driver({"target", "check", target, "--runtime", "podman", "--port-offset", offset,
                  "--out", dir + "/check"},
                 120s);
  EXPECT_EQ(exit_code(r), 0) << r.output;
  const std::vector<std::string> wants = {"feature plain (workload plain)",
                                          "image " + image.tag + ": id ", "digest " + digest,
                                          "every feature answered 2xx"};
  for (const std::string& want : wants)
    EXPECT_NE(r.output.find(want), std::string::npos) << want << "\n" << r.output;

  const std::string out = dir + "/run";
  r = run_driver({"--runtime", "podman", "--target", target, "--workloads", "plain", "--quick",
                  "--rounds", "1", "--warmup", "0", "--duration", "1s", "--threads", "1",
                  "--port-offset", offset, "--out", out},
                 240s);
  ASSERT_EQ(exit_code(r), 0) << r.output;
  std::ifstream report_file(out + "/macro.json");
  const nlohmann::json report = nlohmann::json::parse(report_file);
  EXPECT_EQ(report["env"]["runtime"], "podman");
  std::map<std::string, std::string> status;
  for (const auto& s : report["scenarios"]) {
    status[s["name"].get<std::string>()] = s["status"].get<std::string>();
    EXPECT_EQ(s["errors"], 0) << s["name"];
    if (s["name"] == "mygw-plain") {
      ASSERT_TRUE(s.contains("images")) << s.dump();
      EXPECT_EQ(s["images"]["mygw"]["image"], image.tag);
      EXPECT_EQ(s["images"]["mygw"]["digest"], digest);
      EXPECT_EQ(s["images"]["mygw"]["id"].get<std::string>().size(), 64u);
      EXPECT_TRUE(s["vs_nginx"].is_number());
    } else {
      EXPECT_FALSE(s.contains("images")) << s["name"];
    }
  }
  EXPECT_EQ(status,
            (std::map<std::string, std::string>{{"mygw-plain", "ok"}, {"nginx-plain", "ok"}}));
  // No container of the image is left: the driver removed them.
  r = run_capture("podman", {"ps", "-aq", "--filter", "ancestor=" + image.tag}, 15s);
  EXPECT_EQ(r.output, "");
  EXPECT_TRUE(processes_mentioning(dir).empty());
  fs::remove_all(dir);
}

}  // namespace
}  // namespace gatebench::macro
