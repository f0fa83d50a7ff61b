// `gatebench bisect` on a generated git repository of 32 commits whose "benchmark" is a shell
// script printing Google Benchmark JSON: 9 repetitions of calib/work, 10% slower from one
// commit on. The first bad commit is found in at most log2(32) + 2 builds; a commit measured
// "not sure" first is measured again; BAD without a regression and bad input fail.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>

#include "macro/common/child_process.hpp"
#include "tests/tools/tool_test_support.hpp"
#include "tools/src/results/json_file.hpp"

namespace gatebench::tools {
namespace {

namespace fs = std::filesystem;

// The benchmark: slow (0 or 1) and n come from files of the commit; with $MARKS set, the first
// measurement of a slow commit is only 3% slower (compare: significant but small, "not sure").
constexpr const char* kBenchScript = R"(#!/bin/sh
slow=$(cat slow); n=$(cat n); factor=1.10
if [ "$slow" = 0 ]; then factor=1.0
elif [ -n "$MARKS" ] && [ ! -e "$MARKS/$n" ]; then touch "$MARKS/$n"; factor=1.03; fi
{
  printf '{"context": {"date": "2026-12-01T10:00:00+00:00", "num_cpus": 2}, "benchmarks": ['
  for r in 0 1 2 3 4 5 6 7 8; do
    t=$(awk -v f="$factor" -v r="$r" 'BEGIN { printf "%.3f", 100 * f * (1 + 0.001 * r) }')
    [ "$r" = 0 ] || printf ','
    printf '{"name": "calib/work", "run_name": "calib/work", "run_type": "iteration", '
    printf '"repetitions": 9, "repetition_index": %s, "iterations": 1000, ' "$r"
    printf '"real_time": %s, "cpu_time": %s, "time_unit": "ns"}' "$t" "$t"
  done
  printf ']}\n'
} > "$GATEBENCH_OUT"
)";

// The macro benchmark: a gatebench.macro/2 file of 10 rounds of scenario gateway-x whose CPU per
// request (relative to the load generator's) is 10% higher on slow commits.
constexpr const char* kMacroBenchScript = R"(#!/bin/sh
slow=$(cat slow); factor=1.10
[ "$slow" = 0 ] && factor=1.0
{
  printf '{"schema": "gatebench.macro/2", "env": {"commit": "x"}, "run": {"rounds": %s}, ' "$GATEBENCH_ROUNDS"
  printf '"scenarios": [{"name": "gateway-x", "status": "ok", "reason": "", ' 
  printf '"rounds_planned": %s, "rounds_ok": %s, "rps": 30000, "rounds": [' "$GATEBENCH_ROUNDS" "$GATEBENCH_ROUNDS"
  for r in $(seq 1 "$GATEBENCH_ROUNDS"); do
    t=$(awk -v f="$factor" -v r="$r" 'BEGIN { printf "%.3f", 20 * f * (1 + 0.002 * r) }')
    [ "$r" = 1 ] || printf ','
    printf '{"round": %s, "status": "ok", "reason": "", "rps": 30000, ' "$r"
    printf '"cpu_us_per_request": {"target": %s, "load": 10, "backend": 15}}' "$t"
  done
  printf ']}]}\n'
} > "$GATEBENCH_OUT"
)";

struct Repo {
  fs::path dir = test::scratch_dir("bisect");
  std::string repo = (dir / "repo").string();
  std::string out = (dir / "out.txt").string(), err = (dir / "err.txt").string();
  std::string builds = (dir / "builds.txt").string();

  // 32 commits, 0 .. 31; from `first_bad` on the benchmark is 10% slower.
  explicit Repo(int first_bad) {
    fs::create_directories(repo);
    write_text_file(repo + "/bench.sh", kBenchScript);
    write_text_file(repo + "/macro_bench.sh", kMacroBenchScript);
    const std::string script = (dir / "make-repo.sh").string();
    write_text_file(script, "set -e\ncd '" + repo +
                                "'\ngit init -q .\ngit config user.email t@example.com\n"
                                "git config user.name test\nfor i in $(seq 0 31); do\n"
                                "  echo $i > n\n  if [ $i -ge " +
                                std::to_string(first_bad) +
                                " ]; then echo 1 > slow; else echo 0 > slow; fi\n"
                                "  git add -A\n  git commit -q -m \"commit $i\"\ndone\n");
    EXPECT_EQ(std::system(("sh " + script + " >/dev/null").c_str()), 0);
  }
  ~Repo() { fs::remove_all(dir); }
  std::string sha(int i) const {
    return common::output_of({"git", "-C", repo, "rev-parse", "HEAD~" + std::to_string(31 - i)})
        .substr(0, 40);
  }
  int bisect(const std::string& extra = "", const std::string& select = "--filter '^calib/'") {
    return test::run_gatebench("bisect " + sha(0) + " " + sha(31) + " --repo " + repo + " " +
                                   select + " --min-change 5% --work " + (dir / "work").string() +
                                   " --build 'echo built >> " + builds + "' " + extra,
                               out, err);
  }
  int build_count() const {
    const std::string text = fs::exists(builds) ? read_text_file(builds) : "";
    return static_cast<int>(std::count(text.begin(), text.end(), '\n'));
  }
};

TEST(Bisect, FindsTheInjectedRegressionInAtMostLog2Plus2Builds) {
  if (common::find_on_path("git").empty()) GTEST_SKIP() << "git not installed";
  for (int first_bad : {1, 19, 31}) {
    SCOPED_TRACE(first_bad);
    Repo r(first_bad);
    ASSERT_EQ(r.bisect("--bench 'sh bench.sh'"), 0)
        << read_text_file(r.out) << read_text_file(r.err);
    const std::string out = read_text_file(r.out);
    EXPECT_NE(out.find("first bad commit: " + r.sha(first_bad) + " commit " +
                       std::to_string(first_bad) + "\n"),
              std::string::npos)
        << out;
    EXPECT_NE(out.find("last good commit: " + r.sha(first_bad - 1)), std::string::npos) << out;
    EXPECT_LE(r.build_count(), 5 + 2) << out;                         // log2(32) + 2
    EXPECT_NE(out.find("**regression**"), std::string::npos) << out;  // the evidence
    // The worktree is gone; git no longer lists it.
    EXPECT_FALSE(fs::exists(r.dir / "work" / "tree"));
  }
}

TEST(Bisect, MacroScenarioFindsTheCommitWhereCpuPerRequestRose) {
  if (common::find_on_path("git").empty()) GTEST_SKIP() << "git not installed";
  Repo r(23);
  ASSERT_EQ(r.bisect("--bench 'sh macro_bench.sh' --rounds 8", "--scenario gateway-x"), 0)
      << read_text_file(r.out) << read_text_file(r.err);
  const std::string out = read_text_file(r.out);
  EXPECT_NE(out.find("first bad commit: " + r.sha(23) + " commit 23\n"), std::string::npos) << out;
  EXPECT_NE(out.find(": bad (gateway-x cpu_vs_load +10.0%"), std::string::npos) << out;
  EXPECT_NE(out.find("| gateway-x | cpu_vs_load |"), std::string::npos) << out;  // the evidence
  EXPECT_LE(r.build_count(), 5 + 2) << out;

  Repo same(40);  // never slower: nothing to search
  EXPECT_EQ(same.bisect("--bench 'sh macro_bench.sh'", "--scenario gateway-x"), 1);
  EXPECT_NE(read_text_file(same.out).find("BAD is not a regression"), std::string::npos);
  // A scenario neither run has, or both selectors, or --instructions with --scenario: exit 2.
  EXPECT_EQ(same.bisect("--bench 'sh macro_bench.sh'", "--scenario nope-x"), 2);
  EXPECT_EQ(same.bisect("--bench 'sh macro_bench.sh'", "--scenario gateway-x --filter x"), 2);
  EXPECT_EQ(same.bisect("--instructions", "--scenario gateway-x"), 2);
  EXPECT_EQ(same.bisect("--rounds 5"), 2);  // --rounds without --scenario
}

TEST(Bisect, NotSureMeasuresAgainInsteadOfGuessing) {
  if (common::find_on_path("git").empty()) GTEST_SKIP() << "git not installed";
  Repo r(12);
  const auto marks = r.dir / "marks";
  fs::create_directories(marks);
  ASSERT_EQ(r.bisect("--bench 'MARKS=" + marks.string() + " sh bench.sh'"), 0)
      << read_text_file(r.out) << read_text_file(r.err);
  const std::string out = read_text_file(r.out);
  EXPECT_NE(out.find(": not sure (calib/work +3.0%"), std::string::npos) << out;
  EXPECT_NE(out.find("), measuring again"), std::string::npos) << out;
  EXPECT_NE(out.find("first bad commit: " + r.sha(12)), std::string::npos) << out;
  EXPECT_LE(r.build_count(), 7) << out;  // a second measurement is no second build
}

TEST(Bisect, NoRegressionAtBadOrBadInputFails) {
  if (common::find_on_path("git").empty()) GTEST_SKIP() << "git not installed";
  Repo none(40);  // never slow
  EXPECT_EQ(none.bisect("--bench 'sh bench.sh'"), 1) << read_text_file(none.out);
  EXPECT_NE(read_text_file(none.out).find("BAD is not a regression"), std::string::npos);
  EXPECT_EQ(test::run_gatebench("bisect " + none.sha(0) + " --filter x --repo " + none.repo,
                                none.out, none.err),
            2);
  EXPECT_EQ(
      test::run_gatebench("bisect " + none.sha(0) + " " + none.sha(3) + " --repo " + none.repo,
                          none.out, none.err),
      2);  // no --filter
  EXPECT_EQ(test::run_gatebench(
                "bisect " + none.sha(3) + " " + none.sha(0) + " --filter x --repo " + none.repo,
                none.out, none.err),
            2);  // BAD before GOOD
  EXPECT_EQ(test::run_gatebench("bisect --help", none.out), 0);
}

}  // namespace
}  // namespace gatebench::tools
