// --runtime kube (docs/containers.md): each service a Kubernetes Pod manifest, played by the
// local podman (`podman kube play`), its Pod taken down after the run. The integration tests need
// a working podman (ci/setup configures it) and skip with the reason otherwise.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "driver_exe.hpp"
#include "macro/common/json_field.hpp"
#include "macro/driver/results/run_support.hpp"
#include "macro/driver/runtime/kube_pod.hpp"
#include "macro/driver/system/net_probe.hpp"
#include "macro/driver/system/toolbox.hpp"
#include "port_offset.hpp"

namespace gatebench::macro {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;
using testing::processes_mentioning;
using testing::unique_dir;

TEST(KubeName, IsAnRfc1123Label) {
  EXPECT_EQ(kube_name("gb-12-gateway-default-gateway"), "gb-12-gateway-default-gateway");
  EXPECT_EQ(kube_name("gb-12-waf_crs-Proxy"), "gb-12-waf-crs-proxy");
  EXPECT_EQ(kube_name("_x_"), "x");
  EXPECT_EQ(kube_name("---"), "x");
  EXPECT_EQ(kube_name(std::string(70, 'a')), std::string(63, 'a'));
  // Cut at 63 characters, then no '-' at the end.
  EXPECT_EQ(kube_name(std::string(62, 'a') + "-b"), std::string(62, 'a'));
}

TEST(KubePod, ManifestCarriesTheServiceAsOneContainer) {
  KubePod pod;
  pod.name = "gb-1-direct-backend";
  pod.container = "backend";
  pod.image = "localhost/gatebench-nginx:latest";
  pod.exe = "/usr/sbin/nginx";
  pod.args = {"-c", "/out/round-1/direct/backend.conf", "say \"hi\""};
  pod.env = {{"GOMAXPROCS", "2"}};
  pod.labels = {{kDriverLabel, "1"}};
  pod.host_paths = {"/out/round-1/direct", "/src/configs"};
  pod.deadline_s = 300;
  const std::string y = pod_manifest(pod);
  for (const char* line :
       {"apiVersion: v1\nkind: Pod\nmetadata:\n  name: \"gb-1-direct-backend\"\n",
        "    \"gatebench.dev/driver-pid\": \"1\"\n", "  hostNetwork: true\n",
        "  restartPolicy: Never\n", "  activeDeadlineSeconds: 300\n",
        "  - name: \"backend\"\n    image: \"localhost/gatebench-nginx:latest\"\n",
        "    imagePullPolicy: IfNotPresent\n", "    command: [\"/usr/sbin/nginx\"]\n",
        "    - \"-c\"\n    - \"/out/round-1/direct/backend.conf\"\n",
        // Quotes inside an argument survive as JSON/YAML escapes.
        "    - \"say \\\"hi\\\"\"\n", "    - name: \"GOMAXPROCS\"\n      value: \"2\"\n",
        "    - name: \"v1\"\n      mountPath: \"/src/configs\"\n",
        "  - name: \"v0\"\n    hostPath:\n      path: \"/out/round-1/direct\"\n      type: "
        "Directory\n"})
    EXPECT_NE(y.find(line), std::string::npos) << line << " not in\n" << y;
  EXPECT_EQ(y.find("nodeSelector"), std::string::npos) << y;
}

TEST(KubePod, ANodeIsSelectedByItsHostname) {
  KubePod pod;
  pod.name = "gb-1-direct-gateway";
  pod.container = "gateway";
  pod.node = "gw1";
  const std::string y = pod_manifest(pod);
  EXPECT_NE(y.find("  nodeSelector:\n    \"kubernetes.io/hostname\": \"gw1\"\n"), std::string::npos)
      << y;
  EXPECT_EQ(y.find("volumes"), std::string::npos) << y;
}

std::string podman_skip_reason() {
  Toolbox tools;
  for (const char* tool :
       {"podman", "nginx", "gatebench-load", "gatebench-gateway", "gatebench-control"})
    if (!tools.find(tool)) return std::string("skipped: ") + tool + " not found";
  const CaptureResult info = run_capture(*tools.find("podman"), {"info"}, 30s);
  if (!info.succeeded()) return "skipped: podman info failed (see docs/containers.md)";
  for (int port : {18080 + testing::port_offset(), 18081 + testing::port_offset()})
    if (!port_free(port)) return "skipped: port " + std::to_string(port) + " busy";
  return "";
}

// Names of the Pods whose driver label is `pid` ("" for any driver's).
std::vector<std::string> pods_of(const std::string& pid) {
  const CaptureResult r =
      run_capture("podman",
                  {"pod", "ps", "--filter",
                   std::string("label=") + kDriverLabel + (pid.empty() ? "" : "=" + pid),
                   "--format", "{{.Name}}"},
                  30s);
  std::vector<std::string> names;
  std::istringstream in(r.output);
  for (std::string n; in >> n;) names.push_back(n);
  return names;
}

TEST(KubeRuntime, ScenariosRunAsPodsAndNoPodIsLeft) {
  if (auto reason = podman_skip_reason(); !reason.empty()) GTEST_SKIP() << reason;
  const std::string out = unique_dir("kube");
  fs::remove_all(out);
  SpawnSpec spec;
  spec.exe = GATEBENCH_MACRO_EXE;
  spec.args = {"--runtime",     "kube",
               "--scenarios",   "gateway-default",
               "--rounds",      "1",
               "--warmup",      "0",
               "--duration",    "1s",
               "--connections", "4",
               "--port-offset", std::to_string(testing::port_offset()),
               "--out",         out};
  fs::create_directories(out);
  spec.err = Stream::to_file(out + ".stderr");
  ChildProcess driver = ChildProcess::spawn(spec);
  const std::string pid = std::to_string(driver.pid());
  const auto status = driver.wait_for(180s);
  ASSERT_TRUE(status.has_value()) << "the kube run did not finish within 180 s";
  EXPECT_TRUE(WIFEXITED(*status) && WEXITSTATUS(*status) == 0) << read_text(out + ".stderr");
  const auto report = common::read_json_file(out + "/macro.json");
  EXPECT_EQ(report["env"]["runtime"], "kube");
  ASSERT_EQ(report["scenarios"].size(), 2u);
  for (const auto& s : report["scenarios"]) {
    const std::string name = s["name"];
    SCOPED_TRACE(name);
    EXPECT_EQ(s["status"], "ok") << s["reason"];
    EXPECT_GT(s["requests"].get<double>(), 0);
    EXPECT_EQ(s["errors"], 0);
    // The target's CPU from the engine's stats of the played containers.
    EXPECT_GT(s["rounds"][0]["cpu_us_per_request"]["target"].get<double>(), 0);
    // The manifests stay in the run directory: kubectl apply -f takes them as they are.
    const std::string manifest = out + "/round-1/" + name + "/kube/" +
                                 (name == "nginx-baseline" ? "proxy" : "gateway") + ".yaml";
    EXPECT_NE(read_text(manifest).find("kind: Pod"), std::string::npos) << manifest;
  }
  EXPECT_TRUE(pods_of(pid).empty());
  EXPECT_TRUE(processes_mentioning(out).empty());

  // A Pod of a driver that died (SIGKILL) is removed by the next kube run; here by its own call.
  SpawnSpec exits;
  exits.exe = "true";
  ChildProcess gone = ChildProcess::spawn(exits);
  const std::string dead = std::to_string(gone.pid());
  gone.wait_for(10s);
  KubePod orphan;
  orphan.name = "gb-" + dead + "-orphan";
  orphan.container = "proxy";
  orphan.image = "localhost/gatebench-nginx:latest";  // built by the run above
  orphan.exe = "/usr/sbin/nginx";
  orphan.args = {"-v"};
  orphan.labels = {{kDriverLabel, dead}};
  write_text(out + "/orphan.yaml", pod_manifest(orphan));
  const ContainerEngine engine{"podman", *Toolbox().find("podman"), "", {}, {}};
  ASSERT_NO_THROW(play_pod(engine, out + "/orphan.yaml"));
  EXPECT_EQ(pods_of(dead), std::vector<std::string>{orphan.name});
  const auto removed = remove_orphan_pods(engine);
  EXPECT_NE(std::find(removed.begin(), removed.end(), orphan.name), removed.end());
  EXPECT_TRUE(pods_of(dead).empty());
  fs::remove_all(out);
  fs::remove(out + ".stderr");
}

}  // namespace
}  // namespace gatebench::macro
