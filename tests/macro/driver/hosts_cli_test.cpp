// gatebench-macro's --hosts and --place on the command line: bad input exits 2 before anything
// starts, and a dry run prints every command each host would see without contacting any.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "driver_exe.hpp"

namespace gatebench::macro {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;
using testing::exit_code;
using testing::run_driver;
using testing::unique_dir;

// A dry run's commands for one host: from its heading `heading` to the next heading `until`
// (or the end).
std::string host_section(const std::string& text, const std::string& heading,
                         const std::string& until) {
  const auto a = text.find(heading);
  if (a == std::string::npos) return "";
  const auto b = until.empty() ? std::string::npos : text.find(until);
  return b != std::string::npos && b > a ? text.substr(a, b - a) : text.substr(a);
}

// Each of `steps` occurs in `text`, in this order.
::testing::AssertionResult in_order(const std::string& text,
                                    const std::vector<const char*>& steps) {
  std::size_t at = 0;
  for (const char* step : steps) {
    const auto next = text.find(step, at);
    if (next == std::string::npos)
      return ::testing::AssertionFailure() << step << " after " << at << " in\n" << text;
    at = next;
  }
  return ::testing::AssertionSuccess();
}

// 10.77.255.254 is nobody's address here: contacting it would hang until ssh's timeout.
const char* kHosts = R"({"hosts": {
  "nsa": {"kind": "ssh", "address": "10.77.255.254", "user": "root",
          "options": ["StrictHostKeyChecking=no"], "workdir": "/tmp/gb-remote"},
  "nsb": {"kind": "ssh", "address": "10.77.255.250"},
  "pod": {"kind": "podman", "url": "unix:///run/gb-none.sock", "address": "10.77.255.249"},
  "here": {"kind": "local", "address": "10.77.255.253"}}})";

class HostsCli : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = unique_dir("hosts-cli");
    fs::create_directories(dir_);
    std::ofstream(dir_ + "/hosts.json") << kHosts;
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string hosts() const { return dir_ + "/hosts.json"; }
  std::string dir_;
};

TEST_F(HostsCli, BadHostsOrPlacementExitTwoNamingWhatIsWrong) {
  std::ofstream(dir_ + "/bad.json") << R"({"hosts": {"a": {"kind": "ssh", "address": "x",
                                           "port": 70000}}})";
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"--place", "load=nsa"}, "--place: needs --hosts FILE"},
      {{"--hosts", dir_ + "/bad.json"}, dir_ + "/bad.json: /hosts/a/port"},
      {{"--hosts", dir_ + "/none.json"}, dir_ + "/none.json"},
      {{"--hosts", hosts(), "--place", "load=nsz"}, "--place: load=nsz: no host 'nsz'"},
      {{"--hosts", hosts(), "--place", "gateway=nsa+nsb"}, "only the load runs on several hosts"},
      {{"--hosts", hosts(), "--place", "load=nsa", "--load", "wrk"}, "needs --load gatebench"},
      {{"--hosts", hosts(), "--place", "load=pod"}, "'pod' is a container engine"},
      {{"--hosts", hosts(), "--runtime", "podman"}, "--hosts: only with --runtime process"},
      {{"--hosts", hosts(), "--runtime", "kube", "--place", "gateway=nsa"},
       "--place: gateway=nsa: --runtime kube runs the services as Pods here or on podman hosts"}};
  for (const auto& [args, message] : cases) {
    std::vector<std::string> full = {"--dry-run", "--scenarios", "nginx-baseline"};
    full.insert(full.end(), args.begin(), args.end());
    const CaptureResult r = run_driver(full);
    EXPECT_EQ(exit_code(r), 2) << args[0] << ": " << r.output;
    EXPECT_NE(r.output.find(message), std::string::npos) << r.output;
  }
}

TEST_F(HostsCli, DryRunPrintsEachHostsCommandsInOrderAndContactsNothing) {
  const std::string out = dir_ + "/out";
  const auto start = std::chrono::steady_clock::now();
  const CaptureResult r = run_driver({"--dry-run", "--scenarios", "nginx-baseline", "--hosts",
                                      hosts(), "--place", "load=nsa+nsb", "--warmup", "1s",
                                      "--duration", "2s", "--connections", "5", "--out", out});
  EXPECT_LT(std::chrono::steady_clock::now() - start, 5s);
  ASSERT_EQ(exit_code(r), 0) << r.output;
  const std::string& text = r.output;
  // The generators reach the proxy at its host's address from the hosts file.
  EXPECT_NE(text.find("http://10.77.255.253:18081/"), std::string::npos) << text;
  const auto remote = text.find("remote commands, in order (dry run: no host is contacted)");
  ASSERT_NE(remote, std::string::npos) << text;
  const auto a = text.find("host nsa (ssh root@10.77.255.254, port 22):", remote);
  const auto b = text.find("host nsb (ssh 10.77.255.250, port 22):", remote);
  ASSERT_NE(a, std::string::npos) << text;
  ASSERT_NE(b, std::string::npos) << text;
  const std::string nsa = text.substr(a, b - a);
  // In order: connect, prepare, copy the generator, warm-up and measured runs, results back,
  // clean-up, disconnect.
  EXPECT_TRUE(
      in_order(nsa, {"ssh -M -N", "mkdir -p /tmp/gb-remote/gb-", "scp -q -p",
                     "gatebench-load --help", "ssh -tt", "-d 1s", "scp -q -p", "load-warmup.json",
                     "ssh -tt", "-d 2s", "load-measure.json", "rm -rf", "ssh -O exit"}));
  // 5 connections over two hosts: 3 and 2, one --start-at instant for both.
  EXPECT_NE(nsa.find("-c 3"), std::string::npos) << nsa;
  EXPECT_NE(text.substr(b).find("-c 2"), std::string::npos) << text.substr(b);
  EXPECT_NE(nsa.find("--start-at "), std::string::npos) << nsa;
  EXPECT_NE(nsa.find("<unix-ms>"), std::string::npos) << nsa;
  EXPECT_FALSE(fs::exists(out));
}

TEST_F(HostsCli, DryRunPrintsTheCommandsOfAGatewayOnAnSshHost) {
  const CaptureResult r =
      run_driver({"--dry-run", "--scenarios", "gateway-default", "--hosts", hosts(), "--place",
                  "gateway=nsa", "--warmup", "0", "--duration", "1s", "--out", dir_ + "/out"});
  ASSERT_EQ(exit_code(r), 0) << r.output;
  const std::string& text = r.output;
  // The load here reaches the gateway at nsa's address; the gateway is probed there too.
  EXPECT_NE(text.find("http://10.77.255.254:18081/"), std::string::npos) << text;
  EXPECT_NE(text.find("ready  http://10.77.255.254:18081/"), std::string::npos) << text;
  // Rendered for its host: its run directory there, the configs copied next to it.
  EXPECT_NE(text.find("--config /tmp/gb-remote/gb-"), std::string::npos) << text;
  const auto remote = text.find("host nsa (ssh root@10.77.255.254, port 22):");
  ASSERT_NE(remote, std::string::npos) << text;
  const std::string nsa = text.substr(remote);
  EXPECT_TRUE(in_order(nsa, {"ssh -M -N", "mkdir -p /tmp/gb-remote/gb-", "scp -q -p -r", "/configs",
                             "gatebench-gateway", "gatebench-gateway --help", "gateway.json",
                             "tls.crt", "ssh -tt", "setsid ", "/proc/uptime", "kill -TERM -PGID",
                             "gateway.stderr", "rm -rf", "ssh -O exit"}));
  // nginx-baseline's proxy is the gateway role too: nginx is looked up there, not copied.
  EXPECT_NE(nsa.find("command -v nginx"), std::string::npos) << nsa;
  // The backend and the control plane stay here: nothing of theirs goes to nsa.
  EXPECT_EQ(nsa.find("gatebench-control"), std::string::npos) << nsa;
  EXPECT_EQ(nsa.find("backend.conf"), std::string::npos) << nsa;
}

TEST_F(HostsCli, DryRunPrintsTheEngineCommandsOfAGatewayThroughTheRemoteApi) {
  const CaptureResult r = run_driver({"--dry-run", "--scenarios", "gateway-default", "--hosts",
                                      hosts(), "--place", "gateway=pod,load=nsa", "--warmup", "0",
                                      "--duration", "1s", "--out", dir_ + "/out"});
  ASSERT_EQ(exit_code(r), 0) << r.output;
  const std::string& text = r.output;
  // Reached at the engine host's address, probed there from here.
  EXPECT_NE(text.find("ready  http://10.77.255.249:18081/"), std::string::npos) << text;
  EXPECT_NE(text.find("a container through the engine's remote API"), std::string::npos) << text;
  ASSERT_NE(text.find("host nsa (ssh"), std::string::npos) << text;
  const std::string pod =
      host_section(text, "host pod (podman --url unix:///run/gb-none.sock):", "host nsa (ssh");
  ASSERT_FALSE(pod.empty()) << text;
  // In order: the engine's machine, the image built here and loaded there once, the container
  // created, the run directory copied in, the attached start, and the clean-up. nginx-baseline's
  // proxy (an nginx image) goes the same way.
  EXPECT_TRUE(in_order(
      pod, {"podman --remote --url unix:///run/gb-none.sock info --format json",
            "here: podman build -q -t localhost/gatebench-", "here: podman save -q -o",
            " load -q -i ", " create --rm --name gb-", "--network host", "--timeout ",
            "here: tar -C / -cf", " cp - gb-", " start -a gb-", " stop -t 3 gb-", " rm -f gb-"}));
  // No CPU pinning there: the layout is this machine's.
  EXPECT_EQ(pod.find("--cpuset-cpus"), std::string::npos) << pod;
  EXPECT_FALSE(fs::exists(dir_ + "/out"));
}

TEST_F(HostsCli, DryRunPrintsThePodCommandsOfAGatewayOnAPodmanNode) {
  const CaptureResult r =
      run_driver({"--dry-run", "--runtime", "kube", "--scenarios", "gateway-default", "--hosts",
                  hosts(), "--place", "gateway=pod,load=nsa", "--warmup", "0", "--duration", "1s",
                  "--out", dir_ + "/out"});
  ASSERT_EQ(exit_code(r), 0) << r.output;
  const std::string& text = r.output;
  EXPECT_NE(text.find("on     pod, a Pod (node pod) through the engine's remote API"),
            std::string::npos)
      << text;
  ASSERT_NE(text.find("host nsa (ssh"), std::string::npos) << text;
  const std::string pod =
      host_section(text, "host pod (podman --url unix:///run/gb-none.sock):", "host nsa (ssh");
  ASSERT_FALSE(pod.empty()) << text;
  // The Pod is played stopped, its files copied in, started, followed, and stopped and removed.
  EXPECT_TRUE(in_order(
      pod, {" info --format json", " load -q -i ", " kube play --start=false ",
            "/round-1/gateway-default/kube/gateway.yaml", "here: tar -C / -cf", " cp - gb-",
            " pod start gb-", " logs -f gb-", " pod stop -t 3 gb-", " pod rm -f gb-"}));
  EXPECT_EQ(pod.find(" create --rm"), std::string::npos) << pod;
  EXPECT_FALSE(fs::exists(dir_ + "/out"));
}

}  // namespace
}  // namespace gatebench::macro
