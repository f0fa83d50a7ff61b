// The driver's part of child-process handling (macro/driver/system/children.*); the common type
// itself is tested in tests/macro/common/child_process_test.cpp.
#include "macro/driver/system/children.hpp"

#include <gtest/gtest.h>

#include <thread>

#include "macro/driver/system/proc_sampler.hpp"

namespace gatebench::macro {
namespace {

using namespace std::chrono_literals;

std::vector<pid_t> members_of_group(pid_t pgid) {
  std::vector<pid_t> out;
  for (const auto& p : scan_proc()) {
    if (p.pgrp == pgid) out.push_back(p.pid);
  }
  return out;
}

// The driver's subreaper bookkeeping: after a stop, no process of the tree is left as a child of
// the driver (stray_children), not even the one that ignored SIGTERM.
TEST(Children, StopLeavesNoStrayChildren) {
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

// run_capture: stdout and stderr merged, in order, and a time limit.
TEST(Children, RunCaptureMergesStreamsAndTimesOut) {
  CaptureResult r = run_capture("/bin/sleep", {"10"}, 100ms);
  EXPECT_TRUE(r.timed_out);
  CaptureResult ok = run_capture("/bin/sh", {"-c", "echo out; echo err >&2"}, 5000ms);
  EXPECT_EQ(ok.status, 0);
  EXPECT_EQ(ok.output, "out\nerr\n");
}

}  // namespace
}  // namespace gatebench::macro
