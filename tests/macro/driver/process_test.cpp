#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <fstream>
#include <thread>

#include "macro/driver/children.hpp"
#include "macro/driver/cpu_layout.hpp"
#include "macro/driver/net_probe.hpp"
#include "macro/driver/proc_sampler.hpp"

namespace gatebench::macro {
namespace {

using namespace std::chrono_literals;

std::optional<int> wait_exit(ChildProcess& child, std::chrono::milliseconds limit) {
  auto deadline = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < deadline) {
    if (auto status = child.exit_status()) return status;
    std::this_thread::sleep_for(5ms);
  }
  return std::nullopt;
}

std::vector<pid_t> members_of_group(pid_t pgid) {
  std::vector<pid_t> out;
  for (const auto& p : scan_proc()) {
    if (p.pgrp == pgid) out.push_back(p.pid);
  }
  return out;
}

TEST(Process, StopReachesTheWholeGroup) {
  become_subreaper();
  SpawnSpec spec;
  spec.exe = "/bin/sh";
  // Two grandchildren, one of which ignores SIGTERM: only SIGKILL ends it.
  spec.args = {"-c", "sleep 30 & (trap '' TERM; sleep 30) & wait"};
  ChildProcess child = ChildProcess::spawn(spec);
  const pid_t pgid = child.pid();
  for (int i = 0; i < 200 && members_of_group(pgid).size() < 3; ++i)
    std::this_thread::sleep_for(5ms);
  EXPECT_GE(members_of_group(pgid).size(), 3u);
  EXPECT_TRUE(child.alive());
  EXPECT_TRUE(child.stop(200ms));
  EXPECT_TRUE(members_of_group(pgid).empty());
  EXPECT_TRUE(stray_children().empty());
}

TEST(Process, ExitStatusAndOutputFiles) {
  const std::string out = ::testing::TempDir() + "gatebench-process-out.txt";
  SpawnSpec spec;
  spec.exe = "/bin/sh";
  spec.args = {"-c", "echo hello $GB_TEST_VAR; exit 3"};
  spec.env = {{"GB_TEST_VAR", "world"}};
  spec.out = Stream::to_file(out);
  ChildProcess child = ChildProcess::spawn(spec);
  auto status = wait_exit(child, 5000ms);
  ASSERT_TRUE(status.has_value());
  EXPECT_EQ(describe_wait_status(*status), "exited with status 3");
  std::ifstream in(out);
  std::string line;
  std::getline(in, line);
  EXPECT_EQ(line, "hello world");
  std::remove(out.c_str());
}

TEST(Process, MissingExecutableIsASpawnError) {
  SpawnSpec spec;
  spec.exe = "/nonexistent/gatebench-nothing";
  try {
    ChildProcess::spawn(spec);
    FAIL();
  } catch (const SpawnError& e) {
    EXPECT_NE(std::string(e.what()).find("cannot start /nonexistent/gatebench-nothing"),
              std::string::npos)
        << e.what();
  }
}

TEST(Process, PinsTheChild) {
  const std::string out = ::testing::TempDir() + "gatebench-process-cpus.txt";
  SpawnSpec spec;
  spec.exe = "/bin/sh";
  spec.args = {"-c", "grep Cpus_allowed_list /proc/self/status"};
  spec.out = Stream::to_file(out);
  spec.cpus = parse_cpu_set("0").cpus;
  ChildProcess child = ChildProcess::spawn(spec);
  ASSERT_TRUE(wait_exit(child, 5000ms).has_value());
  std::ifstream in(out);
  std::string line;
  std::getline(in, line);
  EXPECT_EQ(line, "Cpus_allowed_list:\t0");
  std::remove(out.c_str());
}

TEST(Process, PinningToAMissingCpuFails) {
  SpawnSpec spec;
  spec.exe = "/bin/true";
  spec.cpus = parse_cpu_set("4000").cpus;
  EXPECT_THROW(ChildProcess::spawn(spec), SpawnError);
}

TEST(Process, RunCaptureTimesOut) {
  CaptureResult r = run_capture("/bin/sleep", {"10"}, 100ms);
  EXPECT_TRUE(r.timed_out);
  CaptureResult ok = run_capture("/bin/sh", {"-c", "echo out; echo err >&2"}, 5000ms);
  EXPECT_EQ(ok.status, 0);
  EXPECT_EQ(ok.output, "out\nerr\n");
}

TEST(NetProbe, PortFreeBusyAndProbes) {
  // Find a free port, occupy it with a listener, and probe it.
  int port = 0;
  for (int p = 31000; p < 31100; ++p) {
    if (port_free(p)) {
      port = p;
      break;
    }
  }
  ASSERT_NE(port, 0);
  EXPECT_FALSE(tcp_connects(port, 100ms));
  EXPECT_FALSE(http_status(port, "/", 100ms).has_value());
  SpawnSpec spec;
  spec.exe = "/usr/bin/python3";
  if (access(spec.exe.c_str(), X_OK) != 0) GTEST_SKIP() << "skipped: python3 not installed";
  spec.args = {"-c",
               "import socket,sys\n"
               "s=socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)\n"
               "s.bind(('127.0.0.1'," +
                   std::to_string(port) +
                   ")); s.listen(8)\n"
                   "while True:\n"
                   "  c,_=s.accept(); c.recv(1024); c.sendall(b'HTTP/1.1 204 No "
                   "Content\\r\\n\\r\\n'); c.close()\n"};
  ChildProcess server = ChildProcess::spawn(spec);
  bool up = false;
  for (int i = 0; i < 400 && !up; ++i) {
    up = tcp_connects(port, 50ms);
    if (!up) std::this_thread::sleep_for(10ms);
  }
  ASSERT_TRUE(up);
  EXPECT_FALSE(port_free(port));
  EXPECT_EQ(http_status(port, "/", 2000ms), 204);
  EXPECT_TRUE(server.stop(1000ms));
}

}  // namespace
}  // namespace gatebench::macro
