// The sampling loop of services on ssh hosts (remote_sampler.hpp), run here by a local shell
// against a process group of its own: the same script ssh would run there.
#include "macro/driver/measure/remote_sampler.hpp"

#include <gtest/gtest.h>
#include <sys/wait.h>

#include <chrono>
#include <thread>

#include "macro/driver/system/children.hpp"

namespace gatebench::macro {
namespace {

using namespace std::chrono_literals;

TEST(RemoteSamples, ParseStatLinesPssAndDropAnUnfinishedSample) {
  const std::string text =
      "S 100.50 7.00\n"
      "4242 (gatebench-gatew) S 1 4242 4242 0 -1 4194560 1 0 0 0 30 12 0 0 20 0 3 0 9 1 250 0 0\n"
      "4243 (a (b) c) S 4242 4242 4242 0 -1 0 0 0 0 0 5 5 0 0 20 0 1 0 9 1 10 0 0\n"
      "P 4242 Pss:     2048 kB\n"
      "P 4243\n"
      "E\n"
      "S 100.75 7.00\n"
      "4242 (gatebench-gatew) S 1 4242 4242 0 -1 0 0 0 0 0 40 15 0 0 20 0 3 0 9 1 250 0 0\n";
  const auto samples = parse_remote_samples(text);
  ASSERT_EQ(samples.size(), 1u);
  EXPECT_DOUBLE_EQ(samples[0].uptime_s, 100.5);
  ASSERT_EQ(samples[0].processes.size(), 2u);
  EXPECT_EQ(samples[0].processes[0].comm, "gatebench-gatew");
  EXPECT_EQ(samples[0].processes[0].cpu_ticks, 42u);
  EXPECT_EQ(samples[0].processes[0].pss, 2048u * 1024);
  EXPECT_EQ(samples[0].processes[1].comm, "a (b) c");
  EXPECT_EQ(samples[0].processes[1].pgrp, 4242);
  EXPECT_EQ(samples[0].processes[1].pss, 0u);  // none read: RSS stands in (TreeSampler)
}

TEST(RemoteSampling, TheScriptSamplesAGroupUntilItIsGone) {
  // A process group of its own that ends by itself: the loop then prints one empty sample and
  // exits.
  SpawnSpec sleeper;
  sleeper.exe = "sleep";
  sleeper.args = {"0.8"};
  ChildProcess group = ChildProcess::spawn(sleeper);
  // Reaped at once, as a service's wrapper reaps it: a zombie would stay in the group.
  std::thread reaper([&] { group.wait(); });
  SpawnSpec shell;
  shell.exe = "sh";
  shell.args = {"-c", remote_sampling_script(group_pattern({group.pid()}), 0.1)};
  const CaptureResult r = common::capture(shell, {10000ms, false, {}});
  reaper.join();
  ASSERT_TRUE(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0) << r.output;
  const auto samples = parse_remote_samples(r.output);
  ASSERT_GE(samples.size(), 3u) << r.output;
  for (std::size_t i = 0; i + 1 < samples.size(); ++i) {
    SCOPED_TRACE(i);
    ASSERT_EQ(samples[i].processes.size(), 1u) << r.output;
    EXPECT_EQ(samples[i].processes[0].pid, group.pid());
    EXPECT_EQ(samples[i].processes[0].comm, "sleep");
    // The last sample before the group is gone may catch the process exiting, its memory
    // already unmapped (PSS 0, where the sampler falls back to RSS).
    if (i + 2 < samples.size()) {
      EXPECT_GT(samples[i].processes[0].pss, 0u);
    }
    if (i > 0) {
      EXPECT_GT(samples[i].uptime_s, samples[i - 1].uptime_s);
    }
  }
  EXPECT_TRUE(samples.back().processes.empty());
}

}  // namespace
}  // namespace gatebench::macro
