#pragma once
// A network namespace standing in for another host in the multi-host tests (docs/multi-host.md):
// a veth pair with addresses only on its two ends, and an sshd started in the namespace with a
// generated host key and the test's own authorized key. Needs root, ip, ssh-keygen and
// /usr/sbin/sshd; everything it creates is removed by its destructor, also on failure.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "driver_exe.hpp"
#include "macro/driver/results/run_support.hpp"
#include "macro/driver/system/toolbox.hpp"

namespace gatebench::macro::testing {

// `argv` exited 0 within 20 s.
inline bool ok(const std::vector<std::string>& argv) {
  SpawnSpec spec;
  spec.exe = argv[0];
  spec.args.assign(argv.begin() + 1, argv.end());
  const CaptureResult r = common::capture(spec, {std::chrono::milliseconds(20000), true, {}});
  return WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0;
}

inline bool tcp_open(const std::string& address, int port) {
  const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return false;
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  inet_pton(AF_INET, address.c_str(), &addr.sin_addr);
  const bool connected = connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0;
  close(fd);
  return connected;
}

// One namespace "host" with an sshd; removed (sshd stopped, veth and namespace deleted) by the
// destructor whatever happened.
class SshNamespace {
 public:
  SshNamespace() {
    // Unique per test process: names of at most 15 characters, a /30 of 10.77.0.0/16.
    const int n = static_cast<int>(getpid() % 16000);
    ns_ = "gb-h20-" + std::to_string(n);
    veth_host_ = "gbh20h" + std::to_string(n);
    veth_ns_ = "gbh20n" + std::to_string(n);
    const int a = 4 * n;
    here_ = "10.77." + std::to_string(a / 256) + "." + std::to_string(a % 256 + 1);
    there_ = "10.77." + std::to_string(a / 256) + "." + std::to_string(a % 256 + 2);
    dir_ = unique_dir("ssh-host");
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  ~SshNamespace() {
    sshd_.stop(std::chrono::milliseconds(2000));
    ok({"ip", "link", "del", veth_host_});
    ok({"ip", "netns", "del", ns_});
    std::filesystem::remove_all(dir_);
  }

  // Empty when the host is up; else why it could not be made.
  std::string start() {
    const std::vector<std::vector<std::string>> steps = {
        {"ip", "netns", "add", ns_},
        {"ip", "link", "add", veth_host_, "type", "veth", "peer", "name", veth_ns_},
        {"ip", "link", "set", veth_ns_, "netns", ns_},
        {"ip", "addr", "add", here_ + "/30", "dev", veth_host_},
        {"ip", "link", "set", veth_host_, "up"},
        {"ip", "netns", "exec", ns_, "ip", "addr", "add", there_ + "/30", "dev", veth_ns_},
        {"ip", "netns", "exec", ns_, "ip", "link", "set", veth_ns_, "up"},
        {"ip", "netns", "exec", ns_, "ip", "link", "set", "lo", "up"},
        {"ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", dir_ + "/host_key"},
        {"ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", dir_ + "/id"}};
    for (const auto& step : steps)
      if (!ok(step)) return "cannot " + step[0] + " " + step[1] + " " + step[2];
    std::filesystem::copy_file(dir_ + "/id.pub", dir_ + "/authorized_keys");
    std::ofstream(dir_ + "/sshd_config")
        << "ListenAddress " << there_ << "\nPort 22\nHostKey " << dir_ << "/host_key\n"
        << "PidFile " << dir_ << "/sshd.pid\nAuthorizedKeysFile " << dir_ << "/authorized_keys\n"
        << "PermitRootLogin prohibit-password\nPasswordAuthentication no\n"
        << "KbdInteractiveAuthentication no\nUsePAM no\nStrictModes no\n"
        << "Subsystem sftp /usr/lib/openssh/sftp-server\n"
        << "ClientAliveInterval 2\nClientAliveCountMax 3\nLogLevel ERROR\n";
    // sshd's privilege-separation directory stays: the sshd of a test running beside this one
    // (ctest -j2) needs it for each new connection.
    std::filesystem::create_directories("/run/sshd");
    SpawnSpec spec;
    spec.exe = "ip";
    spec.args = {"netns", "exec", ns_, "/usr/sbin/sshd", "-D", "-e", "-f", dir_ + "/sshd_config"};
    spec.err = Stream::to_file(dir_ + "/sshd.log");
    sshd_ = ChildProcess::spawn(spec);
    for (int i = 0; i < 100; ++i) {
      if (tcp_open(there_, 22)) return "";
      if (sshd_.exit_status()) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return "sshd did not start: " + last_line(read_text(dir_ + "/sshd.log"));
  }

  // A hosts file with this host as `names` (each its own ssh host, one machine) and the test's
  // machine as "here".
  std::string hosts_file(const std::vector<std::string>& names, int port = 22) const {
    nlohmann::json hosts = nlohmann::json::object();
    for (const auto& name : names)
      hosts[name] = {
          {"kind", "ssh"},
          {"address", there_},
          {"port", port},
          {"user", "root"},
          {"key", dir_ + "/id"},
          {"options",
           {"StrictHostKeyChecking=no", "UserKnownHostsFile=/dev/null", "LogLevel=ERROR"}},
          {"workdir", workdir()}};
    hosts["here"] = {{"kind", "local"}, {"address", here_}};
    const std::string path = dir_ + "/hosts.json";
    std::ofstream(path) << nlohmann::json{{"hosts", hosts}}.dump(2);
    return path;
  }
  std::string workdir() const { return dir_ + "/remote"; }
  // The link here goes down: the host is gone from the network, its processes stay.
  bool cut() const { return ok({"ip", "link", "set", veth_host_, "down"}); }
  const std::string& dir() const { return dir_; }
  const std::string& netns() const { return ns_; }
  const std::string& address() const { return there_; }

 private:
  std::string ns_, veth_host_, veth_ns_, here_, there_, dir_;
  ChildProcess sshd_;
};

// A scenario of a macro.json that ran: ok, requests counted, no errors.
inline void expect_ran_clean(const nlohmann::json& scenario) {
  EXPECT_EQ(scenario["status"], "ok") << scenario["reason"];
  EXPECT_GT(scenario["requests"].get<double>(), 0);
  EXPECT_EQ(scenario["errors"], 0);
}

// Why a namespace host cannot be made here (empty when it can), with the macro executables and
// `extra` tools on the PATH.
inline std::string namespace_host_skip_reason(const std::vector<const char*>& extra = {}) {
  if (geteuid() != 0) return "skipped: needs root (network namespaces)";
  if (!std::filesystem::exists("/usr/sbin/sshd"))
    return "skipped: /usr/sbin/sshd missing (openssh-server)";
  std::vector<const char*> tools = {"nginx",
                                    "ip",
                                    "ssh",
                                    "scp",
                                    "ssh-keygen",
                                    "gatebench-load",
                                    "gatebench-gateway",
                                    "gatebench-control"};
  tools.insert(tools.end(), extra.begin(), extra.end());
  Toolbox toolbox;
  for (const char* tool : tools)
    if (!toolbox.find(tool)) return std::string("skipped: ") + tool + " not found";
  return "";
}

}  // namespace gatebench::macro::testing
