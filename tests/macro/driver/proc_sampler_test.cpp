#include "macro/driver/system/proc_sampler.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>

namespace gatebench::macro {
namespace {

TEST(ProcStat, ParsesCommWithSpacesAndParentheses) {
  // pid (comm) state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime stime
  // cutime cstime priority nice threads itreal starttime vsize rss ...
  const std::string line =
      "4242 (nginx: worker (x) ) S 4241 4241 4241 0 -1 4194624 10 0 0 0 150 50 0 0 20 0 1 0 "
      "123 1000000 300 18446744073709551615";
  ProcInfo p;
  ASSERT_TRUE(parse_proc_stat(line, p));
  EXPECT_EQ(p.pid, 4242);
  EXPECT_EQ(p.comm, "nginx: worker (x) ");
  EXPECT_EQ(p.ppid, 4241);
  EXPECT_EQ(p.pgrp, 4241);
  EXPECT_EQ(p.cpu_ticks, 200u);
  EXPECT_EQ(p.rss_bytes, 300u * static_cast<uint64_t>(sysconf(_SC_PAGESIZE)));
  EXPECT_FALSE(parse_proc_stat("12 (short) S 1 2", p));
  EXPECT_FALSE(parse_proc_stat("garbage", p));
}

ProcInfo proc(pid_t pid, pid_t ppid, pid_t pgrp, const char* comm, uint64_t ticks) {
  ProcInfo p;
  p.pid = pid;
  p.ppid = ppid;
  p.pgrp = pgrp;
  p.comm = comm;
  p.cpu_ticks = ticks;
  p.rss_bytes = 1 << 20;
  return p;
}

TEST(ProcTree, GroupMembersAndDescendants) {
  std::vector<ProcInfo> all = {proc(10, 1, 10, "master", 0), proc(11, 10, 10, "worker", 0),
                               proc(12, 11, 12, "helper", 0),  // left the group
                               proc(13, 12, 12, "grandchild", 0), proc(20, 1, 20, "other", 0)};
  auto tree = select_trees(all, {10});
  std::vector<pid_t> pids;
  for (const auto* p : tree) pids.push_back(p->pid);
  std::sort(pids.begin(), pids.end());
  EXPECT_EQ(pids, (std::vector<pid_t>{10, 11, 12, 13}));
  EXPECT_TRUE(select_trees(all, {99}).empty());
}

TEST(TreeSampler, CpuPercentCountsOnlyTheInterval) {
  const double hz = static_cast<double>(sysconf(_SC_CLK_TCK));
  const auto t = [&](double seconds) { return static_cast<uint64_t>(seconds * hz); };
  TreeSampler sampler({10}, false);
  // Ticks before start are not counted; a process that appears later counts from zero.
  sampler.start({proc(10, 1, 10, "nginx", t(5)), proc(11, 10, 10, "nginx", t(1))}, 0);
  sampler.sample({proc(10, 1, 10, "nginx", t(5.5)), proc(11, 10, 10, "nginx", t(2)),
                  proc(12, 10, 10, "control", t(0.5))},
                 1.0);
  // pid 11 exits before the last sample: its last reading still counts.
  TreeSample last =
      sampler.sample({proc(10, 1, 10, "nginx", t(6)), proc(12, 10, 10, "control", t(1))}, 2.0);
  EXPECT_NEAR(last.cpu_percent, 100.0, 1.0);  // 0.5 + 0.5 CPU-seconds in one second
  TreeUsage usage = sampler.usage(2.0);
  // nginx: 1 + 1 CPU-seconds, control: 1 CPU-second, over 2 s.
  EXPECT_NEAR(usage.cpu_percent, 150.0, 1.0);
  EXPECT_NEAR(usage.cpu_by_process.at("nginx"), 100.0, 1.0);
  EXPECT_NEAR(usage.cpu_by_process.at("control"), 50.0, 1.0);
  EXPECT_EQ(usage.max_processes, 3);
  EXPECT_NEAR(usage.peak_rss_mb, 3.0, 1e-9);
}

TEST(ProcScan, NamesComeFromTheExecutable) {
  ProcInfo self;
  self.pid = getpid();
  self.comm = "cut-at-15-chars";
  // The test binary's name is longer than 15 characters: comm would cut it.
  EXPECT_EQ(process_name(self).rfind("test_macro_driver_proc_sampler", 0), 0u)
      << process_name(self);
  ProcInfo gone;
  gone.pid = 999999999;
  gone.comm = "fallback";
  EXPECT_EQ(process_name(gone), "fallback");
}

TEST(ProcScan, FindsThisProcess) {
  auto all = scan_proc();
  auto self =
      std::find_if(all.begin(), all.end(), [](const ProcInfo& p) { return p.pid == getpid(); });
  ASSERT_NE(self, all.end());
  EXPECT_EQ(self->pgrp, getpgrp());
  EXPECT_GT(pss_bytes(*self), 0u);
}

}  // namespace
}  // namespace gatebench::macro
