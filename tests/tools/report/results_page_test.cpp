// `gatebench results`: the page of one run, a draft whenever the run was not quiet and clean.
#include "tools/src/report/results_page.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "tests/tools/tool_test_support.hpp"
#include "tools/src/results/json_file.hpp"

namespace gatebench::tools {
namespace {

using nlohmann::json;

json quiet_run() {
  return {{"schema", "gatebench.run/1"},
          {"command", "gatebench run --out out"},
          {"commit", "0123456789abcdef0123456789abcdef01234567"},
          {"dirty", false},
          {"cpu_model", "AMD EPYC"},
          {"cpus", 2},
          {"kernel", "Linux 6.1"},
          {"start",
           {{"load_average", {0.12, 0.30, 0.41}},
            {"steal_percent", 0.0},
            {"time", "2026-12-07T03:00:00Z"}}},
          {"end",
           {{"load_average", {1.21, 0.90, 0.60}},
            {"steal_percent", 0.5},
            {"time", "2026-12-07T03:12:00Z"}}}};
}

ResultsInputs inputs() {
  ResultsInputs in;
  in.run = quiet_run();
  common::MacroResult& macro = in.report.macro.emplace();
  macro.env.commit = "0123456789abcdef0123456789abcdef01234567";
  macro.env.dirty = false;
  in.report_md = "# gatebench report\n\n## Seed scenarios\n\n| a |\n|---|\n| 1 |\n";
  in.command = "gatebench results out/report.json -o docs/RESULTS.md";
  return in;
}

TEST(ResultsPage, AQuietCleanRunIsNoDraft) {
  const ResultsInputs in = inputs();
  EXPECT_TRUE(draft_reasons(in).empty());
  const std::string page = results_page(in);
  EXPECT_EQ(page.find("Draft"), std::string::npos) << page;
  EXPECT_NE(page.find("| run | `gatebench run --out out` |"), std::string::npos) << page;
  EXPECT_NE(page.find("0123456789abcdef0123456789abcdef01234567 (clean tree)"), std::string::npos);
  EXPECT_NE(page.find("| machine | AMD EPYC, 2 CPUs, Linux 6.1 |"), std::string::npos);
  EXPECT_NE(page.find("| start | 2026-12-07T03:00:00Z, load average 0.12 / 0.30 / 0.41 (1 / 5 / "
                      "15 min), steal 0.0% |"),
            std::string::npos)
      << page;
  EXPECT_NE(page.find("`gatebench results out/report.json -o docs/RESULTS.md`"), std::string::npos);
  // The report's sections sit one level under the page's title; its own title is dropped.
  EXPECT_NE(page.find(" |\n\n### Seed scenarios\n"), std::string::npos) << page;
  EXPECT_EQ(page.find("gatebench report\n"), std::string::npos) << page;
}

TEST(ResultsPage, LoadStealDirtinessAndMixedCommitsMakeADraft) {
  ResultsInputs in = inputs();
  in.run["start"]["load_average"][0] = 2.7;
  in.run["end"]["load_average"][0] = 3.9;  // the run's own roles: not judged
  in.run["end"]["steal_percent"] = 4.0;
  in.report.macro->env.dirty = true;
  in.report.macro_instructions.emplace().env = {{"commit", "fedcba9876543210"}, {"dirty", false}};
  const auto why = draft_reasons(in);
  ASSERT_EQ(why.size(), 4u);
  EXPECT_EQ(why[0], "load average 2.70 at the run's start (quiet: below 1.5)");
  EXPECT_EQ(why[1], "steal 4.0% at the run's end (quiet: at most 2%)");
  EXPECT_EQ(why[2], "macro.json was built from a tree with uncommitted changes");
  EXPECT_EQ(why[3], "the counts' driver was built from fedcba987654, not 0123456789ab");
  const std::string page = results_page(in);
  EXPECT_NE(page.find("> **Draft**"), std::string::npos) << page;
  EXPECT_NE(page.find("> - load average 2.70 at the run's start"), std::string::npos) << page;
}

TEST(ResultsPage, MeasuredSharesDecideInsteadOfTheLoadAverage) {
  ResultsInputs in = inputs();
  // Right after a build the 1-minute average still reads 2.7, but nothing else runs.
  in.run["start"]["load_average"][0] = 2.7;
  in.run["start"]["busy_percent"] = 0.5;
  in.run["others_percent"] = 0.8;
  EXPECT_TRUE(draft_reasons(in).empty());
  const std::string page = results_page(in);
  EXPECT_NE(page.find("steal 0.0%, busy 0.5% |"), std::string::npos) << page;
  EXPECT_NE(page.find("| other processes | 0.8% of the machine's CPU during the run"),
            std::string::npos)
      << page;

  in.run["start"]["busy_percent"] = 37.0;
  in.run["others_percent"] = 12.3;
  auto why = draft_reasons(in);
  ASSERT_EQ(why.size(), 2u);
  EXPECT_EQ(why[0],
            "other processes took 37.0% of the CPU in the second before the run (quiet: at most "
            "10%)");
  EXPECT_EQ(why[1], "other processes took 12.3% of the CPU during the run (quiet: at most 5%)");

  in.run.erase("others_percent");
  why = draft_reasons(in);
  ASSERT_EQ(why.size(), 2u);
  EXPECT_EQ(why[1], "no share of other processes over the run");
}

TEST(ResultsPage, WithoutRunJsonTheMachineIsUnknown) {
  ResultsInputs in = inputs();
  in.run = nullptr;
  const auto why = draft_reasons(in);
  ASSERT_EQ(why.size(), 1u);
  EXPECT_NE(why[0].find("no run.json"), std::string::npos);
  EXPECT_NE(results_page(in).find("| commit | 0123456789abcdef"), std::string::npos);
}

TEST(ResultsCli, RefusesADraftUnlessAskedAndNamesBadInput) {
  const auto dir = test::scratch_dir("results");
  json run = quiet_run();
  run["dirty"] = true;
  write_text_file((dir / "run.json").string(), run.dump());
  write_text_file((dir / "report.json").string(), json{{"schema", "gatebench.report/1"}}.dump());
  write_text_file((dir / "report.md").string(), "# gatebench report\n\n## Seed scenarios\n");
  const std::string report = (dir / "report.json").string();
  const std::string page = (dir / "RESULTS.md").string();
  const std::string err = (dir / "err.txt").string();
  EXPECT_EQ(test::run_gatebench("results " + report + " -o " + page, "/dev/null", err), 2);
  EXPECT_FALSE(std::filesystem::exists(page));
  EXPECT_NE(read_text_file(err).find("gatebench run was built from a tree with uncommitted "
                                     "changes"),
            std::string::npos)
      << read_text_file(err);
  EXPECT_EQ(test::run_gatebench("results " + report + " -o " + page + " --draft"), 0);
  EXPECT_NE(read_text_file(page).find("> **Draft**"), std::string::npos);
  write_text_file((dir / "report.json").string(), json{{"schema", "other"}}.dump());
  EXPECT_EQ(test::run_gatebench("results " + report + " -o " + page + " --draft", "/dev/null", err),
            2);
  EXPECT_NE(read_text_file(err).find("/schema: expected gatebench.report/1"), std::string::npos);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace gatebench::tools
