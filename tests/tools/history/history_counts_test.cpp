// The exact counts per request in the history (docs/history.md): `history add` keeps each ok
// scenario's instructions and system calls per request from instructions.json and from a
// report's macro_instructions, and a step in them is a change point at the first commit where
// it moved by at least the exact threshold (detect_exact_steps), found by `show` and, at the
// newest point already, by `check`. A real SQLite database in a temporary directory.
#include <gtest/gtest.h>

#include <filesystem>

#include "macro/common/macro_instructions.hpp"
#include "tests/tools/tool_test_support.hpp"
#include "tools/src/history/change_points.hpp"
#include "tools/src/history/history_db.hpp"
#include "tools/src/results/json_file.hpp"

namespace gatebench::tools {
namespace {

namespace fs = std::filesystem;

TEST(ExactSteps, AStepIsFoundAtTheFirstPointThatMovedByTheThreshold) {
  const std::vector<double> x = {7000, 7000, 7000, 7070, 7070, 7070.5, 6990, 6990};
  const auto c = detect_exact_steps(x, 0.01);
  ASSERT_EQ(c.size(), 2u);
  EXPECT_EQ(c[0].index, 3u);  // +1.0%: the compare gate's line, reached
  EXPECT_NEAR(c[0].size, (7070.5 + 2 * 7070 - 3 * 7000) / 3 / 7000, 1e-12);  // means
  EXPECT_EQ(c[1].index, 6u);                                                 // and back
  EXPECT_LT(c[1].size, 0);
  EXPECT_EQ(c[0].p_value, 0);
  // 0.99% is no step; two steps of 0.6% are one once they add up to 1% from the segment start.
  EXPECT_TRUE(detect_exact_steps(std::vector<double>{7000, 7069, 7069}, 0.01).empty());
  const auto creep = detect_exact_steps(std::vector<double>{1000, 1006, 1012, 1012}, 0.01);
  ASSERT_EQ(creep.size(), 1u);
  EXPECT_EQ(creep[0].index, 2u);
  // One point after the step is enough: counts have no noise to average out.
  const auto last = detect_exact_steps(std::vector<double>{4, 4, 4, 5}, 0.01);
  ASSERT_EQ(last.size(), 1u);
  EXPECT_EQ(last[0].index, 3u);
  EXPECT_TRUE(detect_exact_steps(std::vector<double>{}, 0.01).empty());
  EXPECT_TRUE(detect_exact_steps(std::vector<double>{0, 0}, 0.01).empty());
  EXPECT_EQ(detect_exact_steps(std::vector<double>{0, 1}, 0.01).size(), 1u);
}

struct Counts {
  fs::path dir = test::scratch_dir("history-counts");
  std::string db = (dir / "history.sqlite").string();
  std::string out = (dir / "out.txt").string(), err = (dir / "err.txt").string();
  ~Counts() { fs::remove_all(dir); }

  // instructions.json of run i: gateway-default and nginx-baseline ok, gateway-h2 failed.
  std::string write(int i, double instructions, double syscalls) const {
    common::MacroCountFile f;
    char commit[48];
    std::snprintf(commit, sizeof commit, "%08x%032x", 0xc0ffee00u + static_cast<unsigned>(i), 0u);
    char date[32];
    std::snprintf(date, sizeof date, "2026-12-07T01:%02d:00Z", i);
    f.env = {{"commit", commit}, {"dirty", false},           {"cpu_model", "EPYC"}, {"cpus", 2},
             {"kernel", "6.1"},  {"compiler", "GNU 12.2.0"}, {"date", date}};
    common::MacroScenarioCount gw;
    gw.name = "gateway-default";
    gw.method = "toggle";
    gw.instructions_per_request = instructions;
    gw.syscalls_per_request = syscalls;
    gw.wait_syscalls_per_request = 2;
    common::MacroScenarioCount nginx = gw;
    nginx.name = "nginx-baseline";
    nginx.method = "process-tree";
    nginx.instructions_per_request = 21422.6;
    nginx.syscalls_per_request = 5.01;
    common::MacroScenarioCount failed;
    failed.name = "gateway-h2";
    failed.status = "failed";
    failed.reason = "the load completed 199 of 200 requests";
    f.scenarios = {gw, nginx, failed};
    const std::string file = (dir / ("counts-" + std::to_string(i) + ".json")).string();
    write_text_file(file, common::to_json(f).dump(1));
    return file;
  }
  int run(const std::string& args) const { return test::run_gatebench(args, out, err); }
};

const HistorySeries* series_of(const std::vector<HistorySeries>& all, const std::string& subject,
                               const std::string& figure) {
  for (const auto& s : all)
    if (s.subject == subject && s.figure == figure) return &s;
  return nullptr;
}

TEST(HistoryCounts, AddKeepsInstructionsAndSyscallsPerRequestOfOkScenarios) {
  Counts c;
  ASSERT_EQ(c.run("history add " + c.write(1, 7040.02, 4.02) + " --db " + c.db), 0)
      << read_text_file(c.err);
  const auto all = HistoryDb(c.db, false).series();
  ASSERT_EQ(all.size(), 4u);  // two ok scenarios x two figures; the failed one has none
  const HistorySeries* ir = series_of(all, "gateway-default", "instructions_per_request");
  ASSERT_NE(ir, nullptr);
  EXPECT_EQ(ir->source, "macro");
  EXPECT_EQ(ir->unit, "instructions");
  EXPECT_TRUE(ir->lower_is_better);
  ASSERT_EQ(ir->points.size(), 1u);
  EXPECT_DOUBLE_EQ(ir->points[0].value, 7040.02);
  EXPECT_EQ(ir->points[0].commit.substr(0, 8), "c0ffee01");
  EXPECT_EQ(ir->points[0].time, "2026-12-07T01:01:00Z");
  const HistorySeries* sys = series_of(all, "nginx-baseline", "syscalls_per_request");
  ASSERT_NE(sys, nullptr);
  EXPECT_EQ(sys->unit, "calls");
  EXPECT_DOUBLE_EQ(sys->points[0].value, 5.01);
  EXPECT_EQ(series_of(all, "gateway-h2", "instructions_per_request"), nullptr);
}

TEST(HistoryCounts, AReportsCountsJoinItsMacroRun) {
  Counts c;
  nlohmann::json report = load_json_file(test::data("report_golden.json"));
  report["macro_instructions"] = {{"env", nlohmann::json::object()},
                                  {"method", nlohmann::json::object()},
                                  {"scenarios",
                                   {{{"name", "gateway-default"},
                                     {"status", "ok"},
                                     {"reason", ""},
                                     {"instructions_per_request", 6886.02}}}}};
  const std::string file = (c.dir / "report.json").string();
  write_text_file(file, report.dump(1));
  ASSERT_EQ(c.run("history add " + file + " --db " + c.db), 0) << read_text_file(c.err);
  const HistoryDb db(c.db, false);
  EXPECT_EQ(db.run_count(), 2);  // micro and macro, the counts in the macro run
  const auto all = db.series();
  const HistorySeries* ir = series_of(all, "gateway-default", "instructions_per_request");
  ASSERT_NE(ir, nullptr);
  EXPECT_DOUBLE_EQ(ir->points[0].value, 6886.02);
  // A report whose counts are malformed is bad input naming the file and the field.
  report["macro_instructions"]["scenarios"][0]["instructions_per_request"] = "many";
  write_text_file(file, report.dump(1));
  EXPECT_EQ(c.run("history add " + file + " --db " + c.db), 2);
  EXPECT_NE(read_text_file(c.err).find("/macro_instructions"), std::string::npos)
      << read_text_file(c.err);
}

TEST(HistoryCounts, AStepIsAChangePointAtItsFirstCommit) {
  Counts c;
  // Instructions: +1.5% from run 4; system calls: one more per request from run 6 (the newest).
  std::string files;
  for (int i = 1; i <= 6; ++i)
    files += " " + c.write(i, i >= 4 ? 7145.6 : 7040.02, i >= 6 ? 5.02 : 4.02);
  ASSERT_EQ(c.run("history add" + files + " --db " + c.db), 0) << read_text_file(c.err);
  ASSERT_EQ(c.run("history show --db " + c.db + " --filter gateway-default"), 0);
  const std::string md = read_text_file(c.out);
  EXPECT_NE(md.find("| `gateway-default` | instructions_per_request | "), std::string::npos) << md;
  EXPECT_NE(md.find("c0ffee0400 | 4 | 7,040 | 7,146 | +1.5% | exact | regression"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("c0ffee0600 | 6 | 4.020 | 5.020 | +24.9% | exact | regression"),
            std::string::npos)
      << md;
  // check: the newest point alone is enough for an exact step; the instruction step is three
  // runs old, outside --recent 2.
  EXPECT_EQ(c.run("history check --db " + c.db + " --recent 2"), 1);
  const std::string check = read_text_file(c.out);
  EXPECT_NE(check.find("regression: gateway-default syscalls_per_request +24.9% (exact) from run "
                       "6 of 6"),
            std::string::npos)
      << check;
  EXPECT_EQ(check.find("instructions_per_request"), std::string::npos) << check;
  // A wider line sees neither step as a regression of the newest points.
  EXPECT_EQ(c.run("history check --db " + c.db + " --exact-threshold 30%"), 0)
      << read_text_file(c.out);
  EXPECT_EQ(c.run("history check --db " + c.db + " --exact-threshold x"), 2);
}

}  // namespace
}  // namespace gatebench::tools
