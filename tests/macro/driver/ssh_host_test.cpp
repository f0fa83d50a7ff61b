#include "macro/driver/runtime/ssh_host.hpp"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <filesystem>
#include <thread>

#include "macro/driver/results/run_support.hpp"

namespace gatebench::macro {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

Host ssh_host() {
  Host h;
  h.name = "nsa";
  h.kind = HostKind::ssh;
  h.address = "10.77.255.254";
  h.user = "root";
  h.port = 2222;
  h.key = "/tmp/k";
  h.ssh_options = {"StrictHostKeyChecking=no"};
  return h;
}

CaptureResult run_sh(const std::string& script) {
  SpawnSpec spec;
  spec.exe = "sh";
  spec.args = {"-c", script};
  return common::capture(spec);
}

bool contains(const std::vector<std::string>& args, const std::string& word) {
  return std::find(args.begin(), args.end(), word) != args.end();
}

TEST(SshHost, CommandsShareOneConnectionAndCarryTheHostsSettings) {
  SshHost host(ssh_host(), "/tmp/cm");
  const auto args = host.ssh_args("uname -sr", false);
  for (const char* word : {"ControlMaster=no", "BatchMode=yes", "Port=2222", "User=root",
                           "IdentityFile=/tmp/k", "StrictHostKeyChecking=no"})
    EXPECT_TRUE(contains(args, word)) << word;
  EXPECT_TRUE(std::any_of(args.begin(), args.end(), [](const std::string& a) {
    return a.starts_with("ControlPath=/tmp/cm/");
  }));
  // ssh keeps the first value of a setting: the file's options precede the driver's defaults.
  const auto own = std::find(args.begin(), args.end(), "StrictHostKeyChecking=no");
  const auto timeout = std::find(args.begin(), args.end(), "ConnectTimeout=5");
  EXPECT_LT(own - args.begin(), timeout - args.begin());
  ASSERT_GE(args.size(), 3u);
  EXPECT_EQ(args[args.size() - 3], "10.77.255.254");
  EXPECT_EQ(args[args.size() - 2], "--");
  EXPECT_EQ(args.back(), "uname -sr");
  EXPECT_FALSE(contains(args, "-tt"));
  EXPECT_TRUE(contains(host.ssh_args("x", true), "-tt"));
  const auto master = host.master_args();
  EXPECT_TRUE(contains(master, "-M"));
  EXPECT_TRUE(contains(master, "-N"));
}

TEST(SshHost, DryRunRecordsEveryCommandInOrderAndContactsNothing) {
  std::vector<std::string> log;
  const auto start = std::chrono::steady_clock::now();
  {
    SshHost host(ssh_host(), "/tmp/cm", &log);
    host.connect(10s);
    host.run("mkdir -p /w", 10s);
    host.copy_to({"/bin/gatebench-load"}, "/w/bin", 10s);
    ChildProcess none = host.start(
        {"/w/bin/gatebench-load", {"-d", "1s", "http://x/"}, "/w", "/w/out", "/w/err", {}},
        "/tmp/never-written");
    EXPECT_EQ(none.pid(), -1);
    host.copy_from("/w/load.json", "/tmp/load.json", 10s);
  }  // disconnects
  // 10.77.255.254 is not reachable: a connection attempt would have taken its timeout.
  EXPECT_LT(std::chrono::steady_clock::now() - start, 1s);
  ASSERT_EQ(log.size(), 6u);
  EXPECT_TRUE(log[0].starts_with("ssh -M -N")) << log[0];
  EXPECT_NE(log[1].find("'mkdir -p /w'"), std::string::npos) << log[1];
  EXPECT_TRUE(log[2].starts_with("scp -q -p")) << log[2];
  EXPECT_NE(log[2].find("10.77.255.254:/w/bin/"), std::string::npos) << log[2];
  EXPECT_TRUE(log[3].starts_with("ssh -tt")) << log[3];
  EXPECT_NE(log[3].find("setsid /w/bin/gatebench-load -d 1s http://x/"), std::string::npos);
  EXPECT_NE(log[4].find("10.77.255.254:/w/load.json /tmp/load.json"), std::string::npos);
  EXPECT_TRUE(log[5].starts_with("ssh -O exit")) << log[5];
  EXPECT_FALSE(fs::exists("/tmp/never-written"));
}

TEST(SshHost, RemoteCpuIsReadFromTheWrappersTimes) {
  // bash's and dash's `times`: the shell's line, then its children's.
  EXPECT_DOUBLE_EQ(
      *parse_remote_cpu_s("gatebench-pgid 9\r\ngatebench-times\r\n0m0.002s 0m0.000s\r\n"
                          "1m2.500s 0m0.250s\r\n"),
      62.75);
  EXPECT_DOUBLE_EQ(*parse_remote_cpu_s("gatebench-times\n0m0.000000s 0m0.000000s\n"
                                       "0m0.150000s 0m0.030000s\n"),
                   0.18);
  EXPECT_FALSE(parse_remote_cpu_s("gatebench-pgid 9\r\n").has_value());
  EXPECT_FALSE(parse_remote_cpu_s("gatebench-times\nx\nn/a\n").has_value());
}

TEST(SshHost, RemotePgidIsReadFromTheWrappersOutput) {
  EXPECT_EQ(parse_remote_pgid("gatebench-pgid 4242\r\n"), 4242);
  EXPECT_EQ(parse_remote_pgid("Warning: Permanently added\r\ngatebench-pgid 17\r\n"), 17);
  EXPECT_EQ(parse_remote_pgid(""), 0);
}

// The wrapper as the remote shell runs it, here under sh: a hang-up of its session (SIGHUP, as
// sshd's pty gives it when the connection ends) stops the program's whole group.
TEST(RemoteWrapper, AHangUpKillsTheProgramsGroup) {
  const fs::path dir = fs::temp_directory_path() / ("gb-wrapper-" + std::to_string(getpid()));
  fs::create_directories(dir);
  RemoteCommand command{"sh",
                        {"-c", "sleep 30 & sleep 30"},
                        dir.string(),
                        (dir / "out").string(),
                        (dir / "err").string(),
                        {}};
  SpawnSpec spec;
  spec.exe = "sh";
  spec.args = {"-c", remote_wrapper(command)};
  spec.out = Stream::to_file((dir / "wrapper.log").string());
  ChildProcess wrapper = ChildProcess::spawn(spec);
  long pgid = 0;
  for (int i = 0; i < 100 && pgid == 0; ++i) {
    std::this_thread::sleep_for(20ms);
    pgid = parse_remote_pgid(read_text((dir / "wrapper.log").string()));
  }
  ASSERT_GT(pgid, 1);
  std::this_thread::sleep_for(100ms);  // both sleeps started
  EXPECT_EQ(::kill(static_cast<pid_t>(-pgid), 0), 0);
  EXPECT_NE(pgid, wrapper.pid());  // its own group, not the wrapper's
  ::kill(wrapper.pid(), SIGHUP);
  const auto status = wrapper.wait_for(5s);
  ASSERT_TRUE(status.has_value());
  EXPECT_TRUE(WIFEXITED(*status));
  EXPECT_EQ(WEXITSTATUS(*status), 129);
  errno = 0;
  EXPECT_EQ(::kill(static_cast<pid_t>(-pgid), 0), -1);
  EXPECT_EQ(errno, ESRCH);
  fs::remove_all(dir);
}

TEST(RemoteWrapper, TheProgramsExitStatusIsTheWrappers) {
  const fs::path dir = fs::temp_directory_path() / ("gb-wrapper-x-" + std::to_string(getpid()));
  fs::create_directories(dir);
  RemoteCommand command{"sh",
                        {"-c", "echo to-err >&2; exit 3"},
                        dir.string(),
                        (dir / "out").string(),
                        (dir / "err").string(),
                        {}};
  const CaptureResult r = run_sh(remote_wrapper(command));
  ASSERT_TRUE(WIFEXITED(r.status));
  EXPECT_EQ(WEXITSTATUS(r.status), 3);
  EXPECT_GT(parse_remote_pgid(r.output), 1);
  EXPECT_EQ(read_text((dir / "err").string()), "to-err\n");
  // A service's environment goes in front of its program.
  RemoteCommand with_env = command;
  with_env.args = {"-c", "echo \"$GB_A $GB_B\" >&2"};
  with_env.env = {{"GB_A", "one"}, {"GB_B", "two words"}};
  const CaptureResult e = run_sh(remote_wrapper(with_env));
  EXPECT_EQ(WEXITSTATUS(e.status), 0) << e.output;
  EXPECT_EQ(read_text((dir / "err").string()), "one two words\n");
  // A run directory that is not there: 126, before anything starts.
  RemoteCommand missing = command;
  missing.cwd = (dir / "nope").string();
  const CaptureResult m = run_sh(remote_wrapper(missing));
  EXPECT_EQ(WEXITSTATUS(m.status), 126);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace gatebench::macro
