#include "macro/common/child_process.hpp"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace gatebench::common {
namespace {

using namespace std::chrono_literals;

bool process_exists(pid_t pid) {
  return kill(pid, 0) == 0 || errno == EPERM;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

struct TempDir {
  std::filesystem::path path =
      std::filesystem::temp_directory_path() / ("gatebench-child-test-" + std::to_string(getpid()));
  TempDir() { std::filesystem::create_directories(path); }
  ~TempDir() { std::filesystem::remove_all(path); }
};

TEST(ChildProcess, ExitStatusOutputEnvAndCwd) {
  TempDir dir;
  SpawnSpec spec;
  spec.exe = "sh";  // found on PATH
  spec.args = {"-c", "echo $GB_TEST_VALUE; pwd; echo oops >&2; exit 3"};
  spec.env = {{"GB_TEST_VALUE", "hello"}};
  spec.cwd = dir.path.string();
  spec.out = Stream::to_file((dir.path / "out.txt").string());
  spec.err = spec.out;
  ChildProcess child = ChildProcess::spawn(spec);
  const int status = child.wait();
  EXPECT_TRUE(WIFEXITED(status));
  EXPECT_EQ(exit_code(status), 3);
  EXPECT_EQ(describe_wait_status(status), "exited with status 3");
  EXPECT_EQ(read_file((dir.path / "out.txt").string()),
            "hello\n" + std::filesystem::canonical(dir.path).string() + "\noops\n");
}

TEST(ChildProcess, SignalledChild) {
  SpawnSpec spec;
  spec.exe = "/bin/sh";
  spec.args = {"-c", "kill -KILL $$"};
  ChildProcess child = ChildProcess::spawn(spec);
  const auto status = child.wait_for(10s);
  ASSERT_TRUE(status);
  EXPECT_TRUE(WIFSIGNALED(*status));
  EXPECT_EQ(exit_code(*status), 128 + SIGKILL);
  EXPECT_EQ(describe_wait_status(*status), "killed by signal 9");
}

TEST(ChildProcess, WaitForGivesUpOnARunningChild) {
  SpawnSpec spec;
  spec.exe = "/bin/sleep";
  spec.args = {"30"};
  ChildProcess child = ChildProcess::spawn(spec);
  const pid_t pid = child.pid();
  EXPECT_FALSE(child.wait_for(50ms));
  EXPECT_TRUE(child.alive());
  EXPECT_TRUE(child.stop(1000ms));
  EXPECT_FALSE(process_exists(pid));
}

TEST(ChildProcess, DestructionStopsTheWholeGroup) {
  TempDir dir;
  const std::string pids = (dir.path / "pids").string();
  pid_t leader = -1;
  {
    SpawnSpec spec;
    spec.exe = "/bin/sh";
    // The grandchild ignores SIGTERM, so only the SIGKILL after the grace period ends it.
    spec.args = {"-c", "sh -c 'trap \"\" TERM; sleep 30' & echo $! > " + pids + "; sleep 30"};
    ChildProcess child = ChildProcess::spawn(spec);
    leader = child.pid();
    for (int i = 0; i < 500 && read_file(pids).empty(); ++i) usleep(10'000);
  }
  const pid_t grandchild = static_cast<pid_t>(std::stol(read_file(pids)));
  EXPECT_FALSE(process_exists(leader));
  // The grandchild is a child of the leader, not of this process: it may linger as a zombie of
  // init for a moment, but it is in no state to run.
  for (int i = 0; i < 300 && process_exists(grandchild); ++i) usleep(10'000);
  std::ifstream stat("/proc/" + std::to_string(grandchild) + "/stat");
  std::string line;
  if (std::getline(stat, line)) {
    EXPECT_NE(line.find(") Z"), std::string::npos) << line;
  }
}

TEST(ChildProcess, WithoutOwnGroupStopReachesTheChild) {
  SpawnSpec spec;
  spec.exe = "/bin/sleep";
  spec.args = {"30"};
  spec.own_group = false;
  ChildProcess child = ChildProcess::spawn(spec);
  EXPECT_EQ(getpgid(child.pid()), getpgrp());
  const pid_t pid = child.pid();
  EXPECT_TRUE(child.stop(1000ms));
  EXPECT_FALSE(process_exists(pid));
}

TEST(ChildProcess, MissingBinaryIsASpawnError) {
  SpawnSpec spec;
  spec.exe = "/nonexistent/gatebench-no-such-binary";
  try {
    ChildProcess::spawn(spec);
    FAIL() << "no error";
  } catch (const SpawnError& e) {
    EXPECT_NE(std::string(e.what()).find("cannot start /nonexistent/gatebench-no-such-binary"),
              std::string::npos)
        << e.what();
  }
  spec.exe = "gatebench-no-such-binary";
  EXPECT_THROW(ChildProcess::spawn(spec), SpawnError);
  reap_exited();
  EXPECT_EQ(waitpid(-1, nullptr, WNOHANG), -1);  // no child at all, not even a zombie
}

TEST(ChildProcess, CaptureSeparatesOrMergesStreams) {
  SpawnSpec spec;
  spec.exe = "/bin/sh";
  spec.args = {"-c", "echo out; echo err >&2"};
  const CaptureResult apart = capture(spec);
  EXPECT_EQ(exit_code(apart.status), 0);
  EXPECT_EQ(apart.output, "out\n");
  EXPECT_EQ(apart.errors, "err\n");
  CaptureOptions merge;
  merge.merge_errors = true;
  const CaptureResult merged = capture(spec, merge);
  EXPECT_EQ(merged.output, "out\nerr\n");
  EXPECT_EQ(run_to_exit(spec), 0);
}

TEST(ChildProcess, CaptureTimesOutAndIsInterrupted) {
  SpawnSpec spec;
  spec.exe = "/bin/sleep";
  spec.args = {"30"};
  CaptureOptions short_limit;
  short_limit.timeout = 100ms;
  const CaptureResult slow = capture(spec, short_limit);
  EXPECT_TRUE(slow.timed_out);
  CaptureOptions stop_at_once;
  stop_at_once.interrupted = [] { return true; };
  const CaptureResult stopped = capture(spec, stop_at_once);
  EXPECT_TRUE(stopped.interrupted);
  reap_exited();
  EXPECT_EQ(waitpid(-1, nullptr, WNOHANG), -1);
}

TEST(ChildProcess, ForegroundCommands) {
  TempDir dir;
  const std::string out = (dir.path / "out.txt").string();
  const SpawnSpec spec = command({"sh", "-c", "echo to-file"}, out);
  EXPECT_FALSE(spec.own_group);
  EXPECT_EQ(spec.err.kind, Stream::Kind::inherit);
  EXPECT_EQ(run_to_exit(spec), 0);
  EXPECT_EQ(read_file(out), "to-file\n");
  EXPECT_EQ(run_to_exit(command({"sh", "-c", "exit 4"})), 4);
  EXPECT_EQ(output_of({"sh", "-c", "echo listed"}), "listed\n");
  try {
    output_of({"sh", "-c", "echo why >&2; exit 5"});
    FAIL() << "no error";
  } catch (const SpawnError& e) {
    EXPECT_STREQ(e.what(), "sh exited with code 5: why\n");
  }
  EXPECT_THROW(command({}), SpawnError);
}

TEST(ChildProcess, PinsTheChild) {
  TempDir dir;
  const std::string out = (dir.path / "cpus.txt").string();
  SpawnSpec spec;
  spec.exe = "/bin/sh";
  spec.args = {"-c", "grep Cpus_allowed_list /proc/self/status"};
  spec.out = Stream::to_file(out);
  spec.cpus = {0};
  ChildProcess child = ChildProcess::spawn(spec);
  ASSERT_TRUE(child.wait_for(5s).has_value());
  EXPECT_EQ(read_file(out), "Cpus_allowed_list:\t0\n");
}

TEST(ChildProcess, PinningToAMissingCpuFails) {
  SpawnSpec spec;
  spec.exe = "/bin/true";
  spec.cpus = {1000};
  try {
    ChildProcess::spawn(spec);
    FAIL() << "no error";
  } catch (const SpawnError& e) {
    EXPECT_NE(std::string(e.what()).find("cannot pin to CPUs 1000"), std::string::npos) << e.what();
  }
  spec.cpus = {-1};
  EXPECT_THROW(ChildProcess::spawn(spec), SpawnError);
}

TEST(ChildProcess, FindsProgramsOnPath) {
  EXPECT_FALSE(find_on_path("sh").empty());
  EXPECT_TRUE(find_on_path("gatebench-no-such-binary").empty());
  // Extra directories are searched after PATH (daemons in sbin).
  TempDir dir;
  const std::string tool = (dir.path / "gatebench-extra-tool").string();
  std::ofstream(tool) << "#!/bin/sh\n";
  EXPECT_TRUE(find_on_path("gatebench-extra-tool", {dir.path.string()}).empty());  // not executable
  std::filesystem::permissions(tool, std::filesystem::perms::owner_all);
  EXPECT_EQ(find_on_path("gatebench-extra-tool", {dir.path.string()}), tool);
  EXPECT_TRUE(is_executable_file(tool));
  EXPECT_FALSE(is_executable_file(dir.path.string()));  // a directory is not a program
}

}  // namespace
}  // namespace gatebench::common
