// Services on a host reached through podman's remote API (hosts file kind "podman",
// docs/multi-host.md). A network namespace stands in for the engine's machine (ssh_namespace.hpp),
// and a `podman system service` started in it, with its own storage and a unix socket, for its
// engine; the namespace's sshd runs the load there. Needs root, podman, /usr/sbin/sshd and nginx;
// everything it creates is removed, also on failure. --runtime kube plays Pods there as well.
#include "macro/driver/runtime/engine_host.hpp"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "driver_exe.hpp"
#include "macro/common/json_field.hpp"
#include "macro/driver/results/run_support.hpp"
#include "macro/driver/runtime/ssh_host.hpp"
#include "macro/driver/system/toolbox.hpp"
#include "port_offset.hpp"
#include "ssh_namespace.hpp"

namespace gatebench::macro {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;
using testing::ok;
using testing::processes_mentioning;
using testing::run_driver;
using testing::SshNamespace;
using testing::unique_dir;

TEST(EngineInfo, ReadsTheKernelAndCpuCountAfterAnyWarnings) {
  const HostEnv env = parse_engine_info(
      "WARN[0000] a warning first\n{\"host\": {\"kernel\": \"6.1.0-13-amd64\", \"cpus\": 8}}",
      "pod");
  EXPECT_EQ(env.kernel, "Linux 6.1.0-13-amd64");
  EXPECT_EQ(env.cpus, 8);
  EXPECT_TRUE(env.cpu_model.empty());
  for (const char* text : {"", "Error: unable to connect", "{\"store\": {}}", "{\"host\": "}) {
    try {
      parse_engine_info(text, "pod");
      ADD_FAILURE() << "no error for '" << text << "'";
    } catch (const RemoteError& e) {
      EXPECT_EQ(std::string(e.what()).rfind("pod: podman info printed no machine description", 0),
                0u)
          << e.what();
    }
  }
}

// `podman system service` in the namespace of `host`: its own storage under `dir`, the API on
// `dir`/podman.sock. A private /dev/shm (a mount namespace of its own) keeps its containers' shm
// off this machine's. Stopped, its containers removed, by the destructor.
class EngineInNamespace {
 public:
  explicit EngineInNamespace(std::string dir) : dir_(std::move(dir)) {}
  ~EngineInNamespace() {
    if (service_.pid() > 0) {
      ok({"podman", "--remote", "--url", url(), "pod", "rm", "-a", "-f", "-t", "0"});
      ok({"podman", "--remote", "--url", url(), "rm", "-a", "-f", "-t", "0"});
      service_.stop(5000ms);
    }
  }
  EngineInNamespace(const EngineInNamespace&) = delete;
  EngineInNamespace& operator=(const EngineInNamespace&) = delete;

  // Empty when the engine answers; else why not.
  std::string start(const std::string& netns) {
    fs::create_directories(dir_);
    SpawnSpec spec;
    spec.exe = "nsenter";
    spec.args = {"--net=/run/netns/" + netns,
                 "unshare",
                 "-m",
                 "sh",
                 "-c",
                 "mount -t tmpfs tmpfs /dev/shm && exec podman --root " + dir_ + "/root" +
                     " --runroot " + dir_ + "/runroot --tmpdir " + dir_ +
                     "/tmp system service --time 0 " + url()};
    spec.out = Stream::to_file(dir_ + "/service.log");
    spec.err = Stream::to_file(dir_ + "/service.log");
    service_ = ChildProcess::spawn(spec);
    for (int i = 0; i < 300; ++i) {
      if (fs::exists(dir_ + "/podman.sock") && ok({"podman", "--remote", "--url", url(), "info"}))
        return "";
      if (service_.exit_status()) break;
      std::this_thread::sleep_for(100ms);
    }
    return "podman system service did not start: " + last_line(read_text(dir_ + "/service.log"));
  }
  std::string url() const { return "unix://" + dir_ + "/podman.sock"; }
  // Names of the containers the engine lists, or "(engine gone)".
  std::vector<std::string> containers() const {
    const CaptureResult r = run_capture(
        "podman", {"--remote", "--url", url(), "ps", "-a", "--format", "{{.Names}}"}, 20s);
    if (!WIFEXITED(r.status) || WEXITSTATUS(r.status) != 0) return {"(engine gone)"};
    std::vector<std::string> names;
    std::istringstream in(r.output);
    for (std::string name; in >> name;) names.push_back(name);
    return names;
  }

 private:
  std::string dir_;
  ChildProcess service_;
};

std::string skip_reason() {
  if (auto reason = testing::namespace_host_skip_reason({"podman", "nsenter", "unshare", "tar"});
      !reason.empty())
    return reason;
  // The images are built by the engine here (docs/containers.md says how to make it work).
  if (!ok({"podman", "info"})) return "skipped: podman info failed here (see docs/containers.md)";
  return "";
}

// Both forms of a service on an engine host, one namespace: a container (--runtime process) and
// a Kubernetes Pod played there (--runtime kube).
TEST(EngineHost, GatewayThroughThePodmanRemoteApiAsContainerAndAsPodWithTheLoadOverSsh) {
  if (auto reason = skip_reason(); !reason.empty()) GTEST_SKIP() << reason;
  SshNamespace host;
  if (auto why = host.start(); !why.empty()) GTEST_SKIP() << "skipped: " << why;
  EngineInNamespace engine(host.dir() + "/engine");
  if (auto why = engine.start(host.netns()); !why.empty()) GTEST_SKIP() << "skipped: " << why;
  // The namespace is two hosts: "nsa" over ssh and "pod" through its engine, one address.
  nlohmann::json hosts = common::read_json_file(host.hosts_file({"nsa"}));
  hosts["hosts"]["pod"] = {{"kind", "podman"}, {"url", engine.url()}, {"address", host.address()}};
  const std::string hosts_path = host.dir() + "/engine-hosts.json";
  std::ofstream(hosts_path) << hosts.dump(2);

  std::vector<std::string> runtimes = {"process"};
  // The engine there plays Pods with this machine's catatonit (the same binary).
  if (Toolbox().find("catatonit"))
    runtimes.push_back("kube");
  else
    std::cout << "skipped the --runtime kube part: catatonit not installed\n";
  for (const std::string& runtime : runtimes) {
    SCOPED_TRACE("--runtime " + runtime);
    const std::string out = host.dir() + "/out-" + runtime;
    const CaptureResult r =
        run_driver({"--scenario-dir", (fs::path(source_dir()) / "macro" / "scenarios").string(),
                    "--scenarios",    "gateway-default",
                    "--runtime",      runtime,
                    "--hosts",        hosts_path,
                    "--place",        "gateway=pod,load=nsa",
                    "--rounds",       "1",
                    "--warmup",       "0",
                    "--duration",     "2s",
                    "--connections",  "4",
                    "--threads",      "1",
                    "--port-offset",  std::to_string(testing::port_offset()),
                    "--out",          out},
                   240s);
    ASSERT_TRUE(WIFEXITED(r.status)) << r.output;
    EXPECT_EQ(WEXITSTATUS(r.status), 0) << r.output;
    ASSERT_TRUE(fs::exists(out + "/macro.json")) << r.output;
    const nlohmann::json report = common::read_json_file(out + "/macro.json");
    // gateway-default and its baseline nginx-baseline, both proxies in containers there.
    ASSERT_EQ(report["scenarios"].size(), 2u);
    for (const auto& s : report["scenarios"]) {
      SCOPED_TRACE(s["name"].get<std::string>());
      testing::expect_ran_clean(s);
      const auto& round = s["rounds"][0];
      // The target's CPU comes from the remote engine's stats of its container.
      EXPECT_GT(round["cpu_us_per_request"]["target"].get<double>(), 0);
      EXPECT_GT(round["details"]["load_host_cpu_s"]["nsa"].get<double>(), 0);
      // The gateway role's service (nginx-baseline's is its proxy) was started there.
      const std::string dir = out + "/round-1/" + s["name"].get<std::string>();
      const std::string service = s["name"] == "nginx-baseline" ? "proxy" : "gateway";
      const std::string cmd = read_text(dir + "/" + service + ".cmd");
      EXPECT_EQ(cmd.rfind("on pod: ", 0), 0u) << cmd;
      if (runtime == "kube") {
        // Its Pod selects the node by its name in the hosts file; the backend's Pod is here.
        const std::string manifest = read_text(dir + "/kube/" + service + ".yaml");
        EXPECT_NE(manifest.find("nodeSelector:\n    \"kubernetes.io/hostname\": \"pod\""),
                  std::string::npos)
            << manifest;
        EXPECT_EQ(manifest.find("hostPath"), std::string::npos) << manifest;
        EXPECT_NE(read_text(dir + "/kube/backend.yaml").find("hostPath"), std::string::npos);
      }
    }
    const auto& pod = report["env"]["hosts"]["pod"];
    EXPECT_EQ(pod["kind"], "podman");
    EXPECT_EQ(pod["roles"], nlohmann::json::array({"gateway"}));
    EXPECT_GE(pod["cpus"].get<int>(), 1);
    EXPECT_EQ(pod["kernel"].get<std::string>().rfind("Linux ", 0), 0u) << pod;
    // Nothing is left there (Pods' infra containers included), here or on the ssh host.
    EXPECT_EQ(engine.containers(), std::vector<std::string>{});
    EXPECT_TRUE(processes_mentioning(out).empty());
    EXPECT_TRUE(processes_mentioning(host.workdir()).empty());
  }
}

TEST(EngineHost, AnEngineThatDoesNotAnswerFailsTheScenarioNamingTheHost) {
  Toolbox tools;
  for (const char* tool : {"podman", "nginx", "gatebench-gateway", "gatebench-control"})
    if (!tools.find(tool)) GTEST_SKIP() << "skipped: " << tool << " not found";
  const std::string dir = unique_dir("engine-gone");
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::ofstream(dir + "/hosts.json") << R"({"hosts": {
    "gone": {"kind": "podman", "url": "unix://)" +
                                            dir + R"(/no.sock", "address": "127.0.0.1"},
    "here": {"kind": "local", "address": "127.0.0.1"}}})";
  const CaptureResult r =
      run_driver({"--scenarios", "gateway-default", "--hosts", dir + "/hosts.json", "--place",
                  "gateway=gone", "--rounds", "1", "--warmup", "0", "--duration", "1s",
                  "--port-offset", std::to_string(testing::port_offset()), "--out", dir + "/out"},
                 90s);
  ASSERT_TRUE(WIFEXITED(r.status)) << r.output;
  EXPECT_EQ(WEXITSTATUS(r.status), 1) << r.output;
  const nlohmann::json report = common::read_json_file(dir + "/out/macro.json");
  ASSERT_EQ(report["scenarios"].size(), 2u);
  for (const auto& s : report["scenarios"]) {
    EXPECT_EQ(s["status"], "failed");
    const std::string reason = s["reason"];
    EXPECT_NE(reason.find(" on gone: podman info"), std::string::npos) << reason;
    EXPECT_NE(reason.find(dir + "/no.sock"), std::string::npos) << reason;
  }
  // The backend and the control plane here were stopped.
  EXPECT_TRUE(processes_mentioning(dir).empty());
  fs::remove_all(dir);
}

}  // namespace
}  // namespace gatebench::macro
