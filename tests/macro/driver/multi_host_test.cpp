// gatebench-macro with the load generator on another host over ssh (docs/multi-host.md). A
// network namespace with an sshd stands in for the host (ssh_namespace.hpp). Needs root
// (namespaces), /usr/sbin/sshd and nginx; everything it creates is removed, also on failure.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <thread>

#include "driver_exe.hpp"
#include "macro/common/json_field.hpp"
#include "macro/driver/results/run_support.hpp"
#include "macro/driver/system/env_info.hpp"
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

// The shipped scenarios: their listeners bind ${listen.<role>} (template_addresses_test).
std::string shipped_scenarios() {
  return (fs::path(source_dir()) / "macro" / "scenarios").string();
}

std::string joined(const std::vector<std::string>& lines) {
  std::string out;
  for (const auto& line : lines) out += line + "\n";
  return out;
}

// Processes whose command line names the hosts' work directory: gatebench-load left running there.
bool nothing_left_on_the_host(const SshNamespace& host) {
  for (int i = 0; i < 50; ++i) {
    if (processes_mentioning(host.workdir()).empty()) return true;
    std::this_thread::sleep_for(100ms);
  }
  return false;
}

// One 1 s round of `scenarios` against services here, the load placed by `place`.
std::vector<std::string> driver_args(const SshNamespace& host, const std::string& scenarios,
                                     const std::string& place, int offset, const std::string& out,
                                     const std::string& duration = "1s") {
  return {"--scenario-dir", shipped_scenarios(),
          "--scenarios",    scenarios,
          "--hosts",        host.hosts_file({"nsa"}),
          "--place",        place,
          "--rounds",       "1",
          "--warmup",       "0",
          "--duration",     duration,
          "--connections",  "4",
          "--threads",      "1",
          "--port-offset",  std::to_string(offset),
          "--out",          out};
}

// gateway-default and its baseline nginx-baseline in one 1 s round placed by `place`: the driver
// exited 0 and its macro.json (null when it did not get that far; the failures are recorded).
nlohmann::json run_both(const SshNamespace& host, const std::string& place, int offset,
                        const std::string& out) {
  const CaptureResult r = run_driver(driver_args(host, "gateway-default", place, offset, out), 90s);
  EXPECT_TRUE(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0) << r.output;
  if (!fs::exists(out + "/macro.json")) return nullptr;
  nlohmann::json report = common::read_json_file(out + "/macro.json");
  EXPECT_EQ(report["scenarios"].size(), 2u);
  return report;
}

TEST(MultiHost, NginxBaselineAndGatewayDefaultWithTheLoadOverSsh) {
  if (auto reason = testing::namespace_host_skip_reason(); !reason.empty()) GTEST_SKIP() << reason;
  SshNamespace host;
  if (auto why = host.start(); !why.empty()) GTEST_SKIP() << "skipped: " << why;
  const std::string out = host.dir() + "/out";
  const nlohmann::json report = run_both(host, "load=nsa", testing::port_offset(), out);
  ASSERT_TRUE(report.is_object());
  for (const auto& s : report["scenarios"]) {
    SCOPED_TRACE(s["name"].get<std::string>());
    testing::expect_ran_clean(s);
    const auto& round = s["rounds"][0];
    EXPECT_EQ(round["window"]["source"], "synchronised start");
    EXPECT_GT(round["cpu_us_per_request"]["target"].get<double>(), 0);
    // The generator's CPU on its host, from the wrapper's `times` there.
    EXPECT_GT(round["details"]["load_host_cpu_s"]["nsa"].get<double>(), 0);
    EXPECT_GT(round["cpu_us_per_request"]["load"].get<double>(), 0);
    // The generator ran there: its result was pulled back next to the merged one.
    const std::string dir = out + "/round-1/" + s["name"].get<std::string>();
    EXPECT_TRUE(fs::exists(dir + "/load-measure-nsa.json"));
    const auto cmd = read_text(dir + "/load-measure-nsa.cmd");
    EXPECT_NE(cmd.find("--start-at"), std::string::npos) << cmd;
    EXPECT_NE(cmd.find("http://10.77."), std::string::npos) << cmd;
  }
  const auto& nsa = report["env"]["hosts"]["nsa"];
  EXPECT_EQ(nsa["kind"], "ssh");
  EXPECT_EQ(nsa["roles"], nlohmann::json::array({"load"}));
  EXPECT_GE(nsa["cpus"].get<int>(), 1);
  EXPECT_TRUE(nsa["kernel"].is_string());
  EXPECT_EQ(report["env"]["hosts"]["here"]["roles"],
            nlohmann::json::array({"backend", "control", "gateway"}));
  // The session directory is gone from the host, and nothing runs there or here.
  EXPECT_TRUE(!fs::exists(host.workdir()) || fs::is_empty(host.workdir()));
  EXPECT_TRUE(nothing_left_on_the_host(host));
  EXPECT_TRUE(processes_mentioning(out).empty());
}

TEST(MultiHost, TwoGeneratorsMergeIntoOneResult) {
  if (auto reason = testing::namespace_host_skip_reason(); !reason.empty()) GTEST_SKIP() << reason;
  SshNamespace host;
  if (auto why = host.start(); !why.empty()) GTEST_SKIP() << "skipped: " << why;
  const std::string out = host.dir() + "/out";
  // One generator over ssh, one on this machine, against nginx-baseline's proxy here.
  const CaptureResult r = run_driver(
      driver_args(host, "nginx-baseline", "load=nsa+here", testing::port_offset(), out), 90s);
  ASSERT_TRUE(WIFEXITED(r.status)) << r.output;
  EXPECT_EQ(WEXITSTATUS(r.status), 0) << r.output;
  const std::string dir = out + "/round-1/nginx-baseline";
  const auto a = common::read_json_file(dir + "/load-measure-nsa.json");
  const auto b = common::read_json_file(dir + "/load-measure-here.json");
  const auto merged = common::read_json_file(dir + "/load-measure.json");
  EXPECT_EQ(a["config"]["connections"], 2);
  EXPECT_EQ(b["config"]["connections"], 2);
  EXPECT_EQ(merged["requests"].get<uint64_t>(),
            a["requests"].get<uint64_t>() + b["requests"].get<uint64_t>());
  EXPECT_EQ(merged["latency_histogram"]["count"].get<uint64_t>(),
            a["latency_histogram"]["count"].get<uint64_t>() +
                b["latency_histogram"]["count"].get<uint64_t>());
  EXPECT_EQ(merged["merged_from"].size(), 2u);
  const nlohmann::json report = common::read_json_file(out + "/macro.json");
  EXPECT_EQ(report["scenarios"][0]["requests"], merged["requests"]);
  EXPECT_TRUE(nothing_left_on_the_host(host));
}

TEST(MultiHost, AKilledDriverLeavesNothingRunningOnTheHost) {
  if (auto reason = testing::namespace_host_skip_reason(); !reason.empty()) GTEST_SKIP() << reason;
  SshNamespace host;
  if (auto why = host.start(); !why.empty()) GTEST_SKIP() << "skipped: " << why;
  const std::string out = host.dir() + "/out";
  fs::create_directories(out);
  SpawnSpec spec;
  spec.exe = GATEBENCH_MACRO_EXE;
  spec.args = driver_args(host, "nginx-baseline", "load=nsa", testing::port_offset(), out, "60s");
  spec.err = Stream::to_file(out + "/driver.stderr");
  ChildProcess driver = ChildProcess::spawn(spec);
  // The generator runs on the host once its command line (naming the work directory) shows up.
  bool running = false;
  for (int i = 0; i < 300 && !running; ++i) {
    std::this_thread::sleep_for(100ms);
    // "PID: <workdir>/.../bin/gatebench-load ...": the generator itself, not the ssh client or
    // the remote shell whose command lines name it too.
    for (const auto& p : processes_mentioning(host.workdir()))
      if (p.find(": " + host.workdir()) != std::string::npos) running = true;
  }
  ASSERT_TRUE(running) << read_text(out + "/driver.stderr");
  // No clean-up by the driver: its ssh clients die with it, the sessions hang up, the wrapper
  // on the host kills the generator's group.
  const pid_t pid = driver.pid();
  ::kill(pid, SIGKILL);
  driver.wait();
  // What the killed driver could not clean up here: its connections' socket directory.
  fs::remove_all(fs::temp_directory_path() / ("gbssh-" + std::to_string(pid)));
  EXPECT_TRUE(nothing_left_on_the_host(host)) << joined(processes_mentioning(host.workdir()));
  for (const auto& p : processes_mentioning(out)) ::kill(std::stoi(p), SIGKILL);
}

TEST(MultiHost, AnUnreachableHostFailsTheScenarioNamingIt) {
  Toolbox tools;
  for (const char* tool : {"nginx", "ssh", "gatebench-load"})
    if (!tools.find(tool)) GTEST_SKIP() << "skipped: " << tool << " not found";
  const std::string dir = unique_dir("refused");
  fs::remove_all(dir);
  fs::create_directories(dir);
  // Port 1 of this machine: ssh's connection is refused at once.
  std::ofstream(dir + "/hosts.json") << R"({"hosts": {
    "gone": {"kind": "ssh", "address": "127.0.0.1", "port": 1, "options": ["ConnectTimeout=2"]},
    "here": {"kind": "local", "address": "127.0.0.1"}}})";
  const CaptureResult r =
      run_driver({"--scenarios", "direct", "--hosts", dir + "/hosts.json", "--place", "load=gone",
                  "--rounds", "1", "--warmup", "0", "--duration", "1s", "--port-offset",
                  std::to_string(testing::port_offset()), "--out", dir + "/out"},
                 60s);
  ASSERT_TRUE(WIFEXITED(r.status)) << r.output;
  EXPECT_EQ(WEXITSTATUS(r.status), 1) << r.output;
  const nlohmann::json report = common::read_json_file(dir + "/out/macro.json");
  // direct and its baseline nginx-baseline: each round failed at the load's start.
  ASSERT_EQ(report["scenarios"].size(), 2u);
  for (const auto& s : report["scenarios"]) {
    EXPECT_EQ(s["status"], "failed");
    const std::string reason = s["reason"];
    EXPECT_NE(reason.find("load on gone: ssh"), std::string::npos) << reason;
  }
  EXPECT_TRUE(processes_mentioning(dir).empty());
  fs::remove_all(dir);
}

// The workdir is shared ground on the host (binaries are copied there and run as root): one that
// someone else could write to, made before the run, is refused with its name, and nothing runs.
TEST(MultiHost, AWorkdirOthersCanWriteIsRefused) {
  if (auto reason = testing::namespace_host_skip_reason(); !reason.empty()) GTEST_SKIP() << reason;
  SshNamespace host;
  if (auto why = host.start(); !why.empty()) GTEST_SKIP() << "skipped: " << why;
  fs::create_directories(host.workdir());
  fs::permissions(host.workdir(), fs::perms::all);  // 0777, as another user could leave it
  const std::string out = host.dir() + "/out";
  const CaptureResult r = run_driver(
      driver_args(host, "gateway-default", "load=nsa", testing::port_offset(), out), 60s);
  ASSERT_TRUE(WIFEXITED(r.status)) << r.output;
  EXPECT_NE(WEXITSTATUS(r.status), 0) << r.output;
  const std::string text = r.output + (fs::exists(out + "/macro.json")
                                           ? common::read_json_file(out + "/macro.json").dump()
                                           : std::string());
  EXPECT_NE(text.find(host.workdir() + " on nsa must be a directory of this user with mode 0700"),
            std::string::npos)
      << text;
  EXPECT_TRUE(fs::is_empty(host.workdir()));  // no session directory, no binary copied
  EXPECT_TRUE(processes_mentioning(out).empty());
}

// Processes on the host (its work directory in their command line) that are not ssh's.
std::vector<std::string> services_on_the_host(const SshNamespace& host) {
  std::vector<std::string> out;
  for (const auto& p : processes_mentioning(host.workdir()))
    if (p.find(": " + host.workdir()) != std::string::npos ||
        p.find("nginx: master") != std::string::npos)
      out.push_back(p);
  return out;
}

TEST(MultiHost, GatewayOnAnSshHostWithTheLoadHere) {
  if (auto reason = testing::namespace_host_skip_reason(); !reason.empty()) GTEST_SKIP() << reason;
  SshNamespace host;
  if (auto why = host.start(); !why.empty()) GTEST_SKIP() << "skipped: " << why;
  const std::string out = host.dir() + "/out";
  // nginx-baseline's proxy and gateway-default's gateway (the gateway role) run in the namespace;
  // the backend, the control plane and the load here.
  const nlohmann::json report = run_both(host, "gateway=nsa", testing::port_offset(), out);
  ASSERT_TRUE(report.is_object());
  for (const auto& s : report["scenarios"]) {
    const std::string name = s["name"];
    SCOPED_TRACE(name);
    EXPECT_EQ(s["status"], "ok") << s["reason"];
    EXPECT_EQ(s["errors"], 0);
    const std::string dir = out + "/round-1/" + name;
    // Every request the generator counted is the scenario's.
    const auto load = common::read_json_file(dir + "/load-measure.json");
    EXPECT_GT(load["requests"].get<uint64_t>(), 0u);
    EXPECT_EQ(s["requests"].get<uint64_t>(), load["requests"].get<uint64_t>());
    // The load here went to the namespace's address; the service was started there.
    EXPECT_NE(read_text(dir + "/load-measure.cmd").find("http://10.77."), std::string::npos);
    const std::string service = name == "gateway-default" ? "gateway" : "proxy";
    EXPECT_EQ(read_text(dir + "/" + service + ".cmd").rfind("on nsa: ", 0), 0u);
    // Sampled there: the target's CPU and memory from the host's /proc.
    const auto& round = s["rounds"][0];
    EXPECT_GT(round["cpu_us_per_request"]["target"].get<double>(), 0) << round.dump();
    EXPECT_GT(s["peak_mb"].get<double>(), 0) << s.dump();
    EXPECT_TRUE(fs::exists(dir + "/samples-measure-nsa.txt"));
    // Its output was pulled back.
    EXPECT_TRUE(fs::exists(dir + "/" + service + ".stderr"));
  }
  const auto& nsa = report["env"]["hosts"]["nsa"];
  EXPECT_EQ(nsa["roles"], nlohmann::json::array({"gateway"}));
  EXPECT_TRUE(!fs::exists(host.workdir()) || fs::is_empty(host.workdir()));
  EXPECT_TRUE(nothing_left_on_the_host(host)) << joined(processes_mentioning(host.workdir()));
  EXPECT_TRUE(processes_mentioning(out).empty());
}

TEST(MultiHost, ALostConnectionFailsTheScenarioNamingTheHostAndLeavesNothing) {
  if (auto reason = testing::namespace_host_skip_reason(); !reason.empty()) GTEST_SKIP() << reason;
  SshNamespace host;
  if (auto why = host.start(); !why.empty()) GTEST_SKIP() << "skipped: " << why;
  const std::string out = host.dir() + "/out";
  fs::create_directories(out);
  SpawnSpec spec;
  spec.exe = GATEBENCH_MACRO_EXE;
  spec.args =
      driver_args(host, "nginx-baseline", "gateway=nsa", testing::port_offset(), out, "30s");
  spec.out = Stream::to_file(out + "/driver.stdout");
  spec.err = Stream::to_file(out + "/driver.stderr");
  ChildProcess driver = ChildProcess::spawn(spec);
  // The proxy runs in the namespace and the load here: then the link goes down.
  bool measuring = false;
  for (int i = 0; i < 300 && !measuring; ++i) {
    std::this_thread::sleep_for(100ms);
    measuring = !services_on_the_host(host).empty() &&
                fs::exists(out + "/round-1/nginx-baseline/load-measure.cmd");
  }
  ASSERT_TRUE(measuring) << read_text(out + "/driver.stderr");
  ASSERT_TRUE(host.cut());
  const auto status = driver.wait_for(60s);
  ASSERT_TRUE(status.has_value()) << read_text(out + "/driver.stderr");
  EXPECT_TRUE(WIFEXITED(*status) && WEXITSTATUS(*status) == 1) << read_text(out + "/driver.stderr");
  const nlohmann::json report = common::read_json_file(out + "/macro.json");
  ASSERT_EQ(report["scenarios"].size(), 1u);
  const auto& s = report["scenarios"][0];
  EXPECT_EQ(s["status"], "failed");
  const std::string reason = s["reason"];
  EXPECT_NE(reason.find("proxy on nsa: ssh connection failed or lost"), std::string::npos)
      << reason;
  // sshd hangs up the session within its ClientAlive limit (6 s); the wrapper kills the group.
  bool gone = false;
  for (int i = 0; i < 150 && !gone; ++i) {
    gone = services_on_the_host(host).empty();
    if (!gone) std::this_thread::sleep_for(100ms);
  }
  EXPECT_TRUE(gone) << joined(services_on_the_host(host));
  EXPECT_TRUE(processes_mentioning(out).empty()) << joined(processes_mentioning(out));
  for (const auto& p : services_on_the_host(host)) ::kill(std::stoi(p), SIGKILL);
}

}  // namespace
}  // namespace gatebench::macro
