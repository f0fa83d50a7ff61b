// `gatebench run` when a macro scenario fails: the report is still written, with the failure and
// its reason, and the exit status is 1. The scenario's only service is `false`, which exits at
// once, so the driver fails it within a second.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include "tests/tools/tool_test_support.hpp"
#include "tools/src/results/json_file.hpp"

namespace gatebench::tools {
namespace {

namespace fs = std::filesystem;

// gatebench-macro of the same build tree (build/X/tools/src/gatebench -> build/X/macro/driver).
fs::path macro_driver() {
  return fs::path(GATEBENCH_EXE).parent_path().parent_path().parent_path() / "macro" / "driver" /
         "gatebench-macro";
}

// DIR/scenarios/broken.json: one service, `false`, which exits at once, so the driver fails the
// scenario within a second. `port`: one no shipped scenario uses, so a concurrent macro run does
// not make the test skip.
void write_broken_scenario(const fs::path& dir, int port) {
  fs::create_directories(dir / "scenarios");
  std::ofstream(dir / "scenarios" / "broken.json") << R"({
    "name": "broken", "description": "a service that exits at once",
    "ports": {"backend": )" << port << R"(},
    "services": [{"name": "backend", "role": "backend", "binary": "false",
                  "ready": {"port": "backend", "timeout_s": 2}}],
    "load": {"port": "backend"}})";
}

TEST(RunCli, FailedScenarioStillYieldsTheReportAndExitOne) {
  if (!fs::exists(macro_driver()))
    GTEST_SKIP() << macro_driver().string() << " not built (target gatebench-macro)";
  const auto dir = test::scratch_dir("run-failed");
  write_broken_scenario(dir, 28931);
  const auto out = dir / "results";
  const auto err = (dir / "err.txt").string();
  const int rc = test::run_gatebench("run --no-micro --scenarios broken --scenario-dir " +
                                         (dir / "scenarios").string() + " --out " + out.string(),
                                     "/dev/null", err);
  ASSERT_TRUE(fs::exists(out / "macro" / "macro.json")) << read_text_file(err);
  const auto macro = load_json_file((out / "macro" / "macro.json").string());
  const auto& scenario = macro["scenarios"][0];
  if (scenario["status"] == "skipped")
    GTEST_SKIP() << "driver skipped the scenario: " << scenario["reason"].dump();
  EXPECT_EQ(scenario["status"], "failed");
  EXPECT_EQ(rc, 1) << read_text_file(err);
  for (const char* f : {"report.json", "report.md", "report.html"})
    EXPECT_TRUE(fs::exists(out / f)) << f;
  const std::string md = read_text_file((out / "report.md").string());
  const std::string reason = scenario["reason"].get<std::string>();
  EXPECT_FALSE(reason.empty());
  EXPECT_NE(md.find("| broken | all | failed | " + reason), std::string::npos) << md;
  // Bad input is still exit 2, with nothing run.
  EXPECT_EQ(test::run_gatebench("run --no-micro --rounds x --out " + (dir / "bad").string()), 2);
  fs::remove_all(dir);
}

// Issue 43: a bad duration or macro option is exit 2 naming the option before any step runs:
// the micro step (minutes) would otherwise run first and the macro step fail after it.
TEST(RunCli, BadMacroOptionsAreExit2BeforeAnyStep) {
  const auto dir = test::scratch_dir("run-bad-duration");
  const auto err = (dir / "err.txt").string();
  auto refused = [&](const std::string& options, const std::string& message) {
    const auto out = dir / "out";
    EXPECT_EQ(test::run_gatebench("run " + options + " --out " + out.string(), "/dev/null", err), 2)
        << options;
    const std::string text = read_text_file(err);
    EXPECT_NE(text.find(message), std::string::npos) << options << ": " << text;
    EXPECT_FALSE(fs::exists(out)) << options << ": a step ran or wrote";
  };
  // The syntax, in gatebench run itself, even when the macro step is left out.
  refused("--duration 2x", "--duration: unknown unit 'x' in '2x'");
  refused("--no-macro --duration 2x", "--duration: unknown unit 'x' in '2x'");
  refused("--duration -1s", "--duration: '-1s' is negative");
  if (!fs::exists(macro_driver()))
    GTEST_SKIP() << macro_driver().string() << " not built (target gatebench-macro)";
  // gatebench-macro's own rules, from its dry run, before the micro step.
  refused("--duration 50ms", "--duration: must be at least 100ms");
  refused("--rounds 0", "--rounds");
  refused("--scenarios no-such-scenario", "no-such-scenario");
  fs::remove_all(dir);
}

// run.json measures what processes outside the run took of the CPU, before it (busy_percent) and
// over it (others_percent). A thread of this test spins through the run: it is no descendant of
// `gatebench run`, so it counts as other work, whatever else the machine does (other work only
// adds). One busy thread is 1/cpus of the machine; the bounds leave room for a thread that a
// loaded CI machine does not let run all the time.
TEST(RunCli, RunJsonMeasuresWhatOtherProcessesTook) {
  if (!fs::exists(macro_driver()))
    GTEST_SKIP() << macro_driver().string() << " not built (target gatebench-macro)";
  const auto dir = test::scratch_dir("run-others");
  write_broken_scenario(dir, 28932);
  std::atomic<bool> stop{false};
  std::thread spinner([&] {
    volatile unsigned long spins = 0;
    while (!stop.load(std::memory_order_relaxed)) spins = spins + 1;
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  const auto out = dir / "results";
  test::run_gatebench("run --no-micro --no-counts --scenarios broken --scenario-dir " +
                          (dir / "scenarios").string() + " --out " + out.string(),
                      "/dev/null", (dir / "err.txt").string());
  stop = true;
  spinner.join();
  ASSERT_TRUE(fs::exists(out / "run.json")) << read_text_file((dir / "err.txt").string());
  const auto run = load_json_file((out / "run.json").string());
  const double machine = 100.0 / std::max(1u, std::thread::hardware_concurrency());
  ASSERT_TRUE(run.contains("others_percent")) << run.dump(1);
  EXPECT_GT(run["others_percent"].get<double>(), machine * 0.3) << run.dump(1);
  EXPECT_LE(run["others_percent"].get<double>(), 100.0) << run.dump(1);
  ASSERT_TRUE(run["start"].contains("busy_percent")) << run.dump(1);
  EXPECT_GT(run["start"]["busy_percent"].get<double>(), machine * 0.3) << run.dump(1);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace gatebench::tools
