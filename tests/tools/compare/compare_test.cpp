// The gate on synthetic inputs with known outcomes (data/make_compare_fixtures.py), the golden
// Markdown, and the exit-code contract of `gatebench compare`.
#include "tools/src/compare/compare.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <map>

#include "macro/common/detectable.hpp"
#include "macro/common/usage_error.hpp"
#include "tests/tools/tool_test_support.hpp"
#include "tools/src/results/json_file.hpp"

namespace gatebench::tools {
namespace {

std::map<std::string, const CompareRow*> by_name(const Comparison& c, const std::string& measure) {
  std::map<std::string, const CompareRow*> m;
  for (const auto& r : c.rows)
    if (r.measure == measure || measure.empty()) m[r.name] = &r;
  return m;
}

Comparison compare_files(const std::string& base, const std::string& head,
                         const CompareOptions& opt = {}) {
  return compare_result_sets(load_result_set(test::data(base)), load_result_set(test::data(head)),
                             opt);
}

TEST(CompareMicro, KnownOutcomes) {
  const auto c = compare_files("gbench_base.json", "gbench_head.json");
  const auto rows = by_name(c, "");
  EXPECT_EQ(rows.at("cmp/gatecore/regressed")->verdict, Verdict::regression);
  EXPECT_EQ(rows.at("cmp/gatecore/improved")->verdict, Verdict::improvement);
  EXPECT_EQ(rows.at("cmp/gatecore/unchanged")->verdict, Verdict::no_change);
  // Significant (p < 0.05) but below the 5% minimum change.
  EXPECT_EQ(rows.at("cmp/gatecore/small_shift")->verdict, Verdict::no_change);
  EXPECT_LT(*rows.at("cmp/gatecore/small_shift")->p_value, 0.05);
  EXPECT_EQ(rows.at("cmp/gatecore/few_reps")->verdict, Verdict::too_few_repetitions);
  EXPECT_EQ(rows.at("cmp/peer/skipped")->verdict, Verdict::skipped);
  EXPECT_EQ(rows.at("cmp/gatecore/removed")->verdict, Verdict::removed);
  EXPECT_EQ(rows.at("cmp/gatecore/added")->verdict, Verdict::added);
  EXPECT_TRUE(c.has_regression());
  EXPECT_NEAR(*rows.at("cmp/gatecore/regressed")->change, 0.10, 1e-9);
}

TEST(CompareMicro, AggregateRowsAreNotSamples) {
  const auto set = load_result_set(test::data("gbench_base.json"));
  ASSERT_TRUE(set.micro);
  const auto* b = set.micro->find("cmp/gatecore/regressed");
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(b->cpu_ns.size(), 9u);
  EXPECT_EQ(set.micro->find("cmp/gatecore/regressed_median"), nullptr);
}

TEST(CompareMicro, MinimumChangeAndMetricAreOptions) {
  CompareOptions opt;
  opt.min_change = 0.02;
  auto c = compare_files("gbench_base.json", "gbench_head.json", opt);
  EXPECT_EQ(by_name(c, "")["cmp/gatecore/small_shift"]->verdict, Verdict::regression);
  opt.metric = TimeMetric::real_time;
  c = compare_files("gbench_base.json", "gbench_head.json", opt);
  EXPECT_EQ(by_name(c, "")["cmp/gatecore/small_shift"]->measure, "real_time_ns");
  opt.min_repetitions = 3;
  c = compare_files("gbench_base.json", "gbench_head.json", opt);
  EXPECT_NE(by_name(c, "")["cmp/gatecore/few_reps"]->verdict, Verdict::too_few_repetitions);
}

TEST(CompareMicro, SameFileHasNoRegression) {
  const auto c = compare_files("gbench_head.json", "gbench_head.json");
  EXPECT_FALSE(c.has_regression());
  for (const auto& r : c.rows)
    if (r.p_value) {
      EXPECT_EQ(r.verdict, Verdict::no_change) << r.name;
    }
}

TEST(CompareInstructions, ThresholdIsOnePercent) {
  const auto c = compare_files("instructions_base.json", "instructions_head.json");
  const auto rows = by_name(c, "instructions");
  EXPECT_EQ(rows.at("cmp/gatecore/a")->verdict, Verdict::regression);   // +1.0%
  EXPECT_EQ(rows.at("cmp/gatecore/b")->verdict, Verdict::no_change);    // +0.9%
  EXPECT_EQ(rows.at("cmp/gatecore/c")->verdict, Verdict::improvement);  // -10%
}

// gatebench.macro/1 holds one round per scenario: too few for the test, whatever the shift.
TEST(CompareMacro, V1FileIsTooFewRounds) {
  const auto c = compare_files("macro_base.json", "macro_head.json");
  EXPECT_FALSE(c.has_regression());
  std::size_t measured = 0;
  for (const auto& r : c.rows) {
    EXPECT_NE(r.name, "nginx-baseline");  // the baseline's own drift never gates
    if (r.measure == "scenario") continue;
    ++measured;
    EXPECT_EQ(r.verdict, Verdict::too_few_rounds) << r.name << " " << r.measure;
    EXPECT_EQ(r.base_n, 1u);
    EXPECT_EQ(r.head_n, 1u);
  }
  EXPECT_EQ(measured, 9u);  // three scenarios x (CPU per request, vs nginx, p99 vs nginx)
  EXPECT_EQ(by_name(c, "scenario").at("gateway-https-newconn")->verdict, Verdict::skipped);
}

TEST(CompareMacro, FailedInHeadIsARegression) {
  const auto base = load_result_set(test::data("macro_base.json"));
  auto head = load_result_set(test::data("macro_base.json"));
  ASSERT_TRUE(head.macro && head.macro->scenarios.size() > 1);
  MacroScenario& s = head.macro->scenarios.at(1);
  s.status = "failed";
  s.reason = "gateway exited";
  const auto c = compare_result_sets(base, head, {});
  const CompareRow* row = by_name(c, "scenario").at("gateway-default");
  EXPECT_EQ(row->verdict, Verdict::regression);
  EXPECT_EQ(row->note, "HEAD failed: gateway exited");
}

// macro2_{base,head}_N.json (make_compare_fixtures.py): HEAD's machine is 10% slower for nginx
// too, so only the shifted scenarios may move.
class CompareMacro2 : public ::testing::TestWithParam<int> {};

TEST_P(CompareMacro2, KnownShiftsGiveTheirVerdicts) {
  const int n = GetParam();
  const auto c = compare_files("macro2_base_" + std::to_string(n) + ".json",
                               "macro2_head_" + std::to_string(n) + ".json");
  const auto cpu = by_name(c, "cpu_vs_load");
  const auto vs = by_name(c, "vs_nginx");
  const auto p99 = by_name(c, "p99_vs_nginx");
  EXPECT_EQ(cpu.count("nginx-baseline"), 0u);
  for (const auto* rows : {&cpu, &vs, &p99})
    EXPECT_EQ(rows->at("gateway-default")->verdict, Verdict::no_change);
  EXPECT_EQ(cpu.at("gateway-protected")->verdict, Verdict::regression);
  EXPECT_EQ(vs.at("gateway-protected")->verdict, Verdict::no_change);
  EXPECT_EQ(vs.at("gateway-queue")->verdict, Verdict::regression);
  EXPECT_EQ(cpu.at("gateway-queue")->verdict, Verdict::no_change);
  EXPECT_EQ(p99.at("gateway-challenge-pass")->verdict, Verdict::regression);
  EXPECT_EQ(vs.at("gateway-challenge-pass")->verdict, Verdict::no_change);
  EXPECT_NEAR(*cpu.at("gateway-protected")->change, 0.10, 0.03);
  EXPECT_NEAR(*vs.at("gateway-queue")->change, -0.10, 0.03);
  EXPECT_NEAR(*p99.at("gateway-challenge-pass")->change, 0.30, 0.03);
  EXPECT_LT(*cpu.at("gateway-protected")->p_value, 0.05);
  for (const auto& r : c.rows)
    if (r.measure != "scenario") {
      EXPECT_EQ(r.base_n, static_cast<std::size_t>(n)) << r.name;
      EXPECT_EQ(r.head_n, static_cast<std::size_t>(n)) << r.name;
    }
  const CompareRow* invalid = by_name(c, "scenario").at("gateway-https-keepalive");
  EXPECT_EQ(invalid->verdict, Verdict::regression);
  EXPECT_EQ(invalid->note.rfind("HEAD failed: round 2: load invalid: ", 0), 0u) << invalid->note;
  EXPECT_EQ(invalid->head_n, static_cast<std::size_t>(n - 1));
  EXPECT_TRUE(c.has_regression());
}

TEST_P(CompareMacro2, SameFileHasNoRegression) {
  const std::string f = "macro2_head_" + std::to_string(GetParam()) + ".json";
  const auto c = compare_files(f, f);
  for (const auto& r : c.rows) {
    if (r.measure == "scenario") {
      EXPECT_EQ(r.verdict, Verdict::skipped) << r.name;  // failed on both sides
      EXPECT_NE(r.note.find("BASE failed: round 2"), std::string::npos) << r.note;
    } else {
      EXPECT_EQ(r.verdict, Verdict::no_change) << r.name << " " << r.measure;
    }
  }
  EXPECT_FALSE(c.has_regression());
}

// Every tested macro measure carries what it could have seen: the MDC at the rounds' pooled
// spread and the measure's line, and a "no change" in the Markdown says of what size.
TEST_P(CompareMacro2, EveryTestedMeasureSaysWhatItCouldSee) {
  const auto n = static_cast<std::size_t>(GetParam());
  const auto c = compare_files("macro2_base_" + std::to_string(n) + ".json",
                               "macro2_head_" + std::to_string(n) + ".json");
  const CompareOptions lines;
  const std::string md = comparison_markdown(c);
  const auto j = comparison_json(c);
  std::size_t checked = 0;
  for (std::size_t i = 0; i < c.rows.size(); ++i) {
    const CompareRow& r = c.rows[i];
    if (r.section != "macro" || r.measure == "scenario") continue;
    ASSERT_TRUE(r.round_spread) << r.name << " " << r.measure;
    ASSERT_TRUE(r.mdc) << r.name << " " << r.measure;
    const double line = r.measure == "cpu_vs_load" ? lines.cpu_threshold
                        : r.measure == "vs_nginx"  ? lines.vs_nginx_threshold
                                                   : lines.p99_threshold;
    EXPECT_DOUBLE_EQ(*r.mdc, *common::minimum_detectable_change(*r.round_spread, n, n, line));
    EXPECT_GT(*r.mdc, line);
    EXPECT_DOUBLE_EQ(j["rows"][i]["mdc"].get<double>(), *r.mdc);
    if (r.verdict == Verdict::no_change) {
      EXPECT_NE(md.find("no change of " + common::percent_text(*r.mdc) + " or more"),
                std::string::npos)
          << r.name << " " << r.measure;
    }
    ++checked;
  }
  EXPECT_GE(checked, 9u);
  // More rounds at a like spread see smaller changes.
  if (n == 9) {
    const auto five = compare_files("macro2_base_5.json", "macro2_head_5.json");
    EXPECT_LT(*by_name(c, "cpu_vs_load").at("gateway-default")->mdc,
              *by_name(five, "cpu_vs_load").at("gateway-default")->mdc);
  }
}

INSTANTIATE_TEST_SUITE_P(Rounds, CompareMacro2, ::testing::Values(5, 9));

TEST(CompareMacro2Rounds, ThreeRoundsAreTooFewUnlessAllowed) {
  auto c = compare_files("macro2_base_3.json", "macro2_head_3.json");
  for (const auto& r : c.rows)
    if (r.measure != "scenario") {
      EXPECT_EQ(r.verdict, Verdict::too_few_rounds) << r.name << " " << r.measure;
      EXPECT_EQ(r.base_n, 3u);
      EXPECT_NE(r.note.find("need >= 5 ok rounds"), std::string::npos);
    }
  // The failed scenario still fails the gate, however few its rounds.
  EXPECT_EQ(by_name(c, "scenario").at("gateway-https-keepalive")->verdict, Verdict::regression);
  CompareOptions opt;
  opt.min_rounds = 3;
  c = compare_files("macro2_base_3.json", "macro2_head_3.json", opt);
  // 3 against 3 rounds cannot reach p < 0.05 (the smallest two-sided p is 0.08).
  for (const auto& r : c.rows)
    if (r.measure != "scenario") {
      EXPECT_EQ(r.verdict, Verdict::no_change) << r.name << " " << r.measure;
      EXPECT_GT(*r.p_value, 0.05);
      // ... so such a comparison could have seen nothing, and its "no change" says so.
      EXPECT_TRUE(r.round_spread) << r.name;
      EXPECT_FALSE(r.mdc) << r.name;
    }
  EXPECT_NE(comparison_markdown(c).find("| nothing ("), std::string::npos);
}

TEST(CompareMacro2Rounds, FailedBaselineFailsTheGate) {
  const auto c = compare_files("macro2_base_5.json", "macro2_head_baseline_failed.json");
  const CompareRow* row = by_name(c, "scenario").at("gateway-default");
  EXPECT_EQ(row->verdict, Verdict::regression);
  EXPECT_EQ(row->note.rfind("HEAD failed: baseline nginx-baseline failed: round 3: ", 0), 0u)
      << row->note;
  EXPECT_EQ(by_name(c, "scenario").count("nginx-baseline"), 0u);
  EXPECT_TRUE(c.has_regression());
}

TEST(CompareMacro2Rounds, MinimumChangesAreOptions) {
  CompareOptions opt;
  opt.cpu_threshold = 0.15;
  opt.vs_nginx_threshold = 0.15;
  opt.p99_threshold = 0.40;
  const auto c = compare_files("macro2_base_5.json", "macro2_head_5.json", opt);
  EXPECT_EQ(by_name(c, "cpu_vs_load").at("gateway-protected")->verdict, Verdict::no_change);
  EXPECT_EQ(by_name(c, "vs_nginx").at("gateway-queue")->verdict, Verdict::no_change);
  EXPECT_EQ(by_name(c, "p99_vs_nginx").at("gateway-challenge-pass")->verdict, Verdict::no_change);
}

TEST(CompareMacro2Rounds, WithoutBaselineP99IsAbsolute) {
  auto base = load_result_set(test::data("macro2_base_5.json"));
  const auto head = load_result_set(test::data("macro2_head_5.json"));
  for (auto& s : base.macro->scenarios)
    for (auto& r : s.rounds) r.p99_vs_nginx.reset();
  const auto c = compare_result_sets(base, head, {});
  EXPECT_TRUE(by_name(c, "p99_vs_nginx").empty());
  const auto p99 = by_name(c, "p99_us");
  EXPECT_EQ(p99.at("gateway-challenge-pass")->verdict, Verdict::regression);
  EXPECT_EQ(p99.at("gateway-default")->verdict, Verdict::no_change);
}

TEST(CompareMacro2Rounds, ReadsTheRoundsAndTheDriversFigures) {
  const auto set = load_result_set(test::data("macro2_head_5.json"));
  ASSERT_TRUE(set.macro);
  EXPECT_EQ(set.kind, "macro");
  const MacroScenario* s = set.macro->find("gateway-https-keepalive");
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->status, "failed");
  EXPECT_EQ(s->rounds_planned, 5u);
  EXPECT_EQ(s->rounds_ok, 4u);
  ASSERT_EQ(s->rounds.size(), 5u);
  EXPECT_EQ(s->rounds[1].status, "failed");
  EXPECT_FALSE(s->rounds[1].rps);
  ASSERT_NE(s->interval("cpu_us_per_request"), nullptr);
  EXPECT_EQ(s->interval("cpu_us_per_request")->n, 4u);
  EXPECT_DOUBLE_EQ(s->interval("cpu_us_per_request")->level, 0.875);
  EXPECT_TRUE(s->cpu_us_per_request.load && s->cpu_us_per_request.backend);
  EXPECT_EQ(s->baseline, "nginx-baseline");
}

TEST(CompareRender, MarkdownMatchesGolden) {
  auto c = compare_files("gbench_base.json", "gbench_head.json");
  c.base_file = "gbench_base.json";
  c.head_file = "gbench_head.json";
  const std::string golden = read_text_file(test::data("compare_golden.md"));
  EXPECT_EQ(comparison_markdown(c), golden);
}

TEST(CompareRender, JsonCarriesVerdictsAndOptions) {
  const auto c = compare_files("gbench_base.json", "gbench_head.json");
  const auto j = comparison_json(c);
  EXPECT_EQ(j["schema"], "gatebench.compare/1");
  EXPECT_EQ(j["regression"], true);
  EXPECT_EQ(j["options"]["min_change"], 0.05);
  EXPECT_EQ(j["rows"][0]["verdict"], "regression");
}

TEST(CompareInput, NonFiniteNumbersFromGoogleBenchmarkAreNull) {
  // Google Benchmark 1.7.1 writes NaN for the cv of a constant counter.
  const auto dir = test::scratch_dir("compare-nan");
  const auto file = (dir / "nan.json").string();
  std::ofstream(file) << R"({"benchmarks": [{"name": "a", "run_type": "iteration", "real_time": 1,
      "cpu_time": 1, "items_per_second": NaN, "label": "NaN stays text"},
      {"name": "a_cv", "run_name": "a", "run_type": "aggregate", "real_time": -Infinity,
       "cpu_time": 1}]})";
  const auto set = load_result_set(file);
  ASSERT_TRUE(set.micro);
  EXPECT_EQ(set.micro->find("a")->cpu_ns.size(), 1u);
  EXPECT_TRUE(set.micro->find("a")->items_per_second.empty());
  EXPECT_EQ(load_json_file(file)["benchmarks"][0]["label"], "NaN stays text");
  std::filesystem::remove_all(dir);
}

TEST(CompareInput, AggregatesOnlyFileUsesTheMedianAsOneSample) {
  // --benchmark_report_aggregates_only writes no repetitions; the report still needs a figure.
  const auto dir = test::scratch_dir("compare-aggregates");
  const auto file = (dir / "agg.json").string();
  std::ofstream(file) << R"({"benchmarks": [
      {"name": "a_mean", "run_name": "a", "run_type": "aggregate", "aggregate_name": "mean",
       "real_time": 9, "cpu_time": 9},
      {"name": "a_median", "run_name": "a", "run_type": "aggregate", "aggregate_name": "median",
       "real_time": 5, "cpu_time": 4, "items_per_second": 250000000},
      {"name": "b", "run_type": "iteration", "real_time": 2, "cpu_time": 2},
      {"name": "b_median", "run_name": "b", "run_type": "aggregate", "aggregate_name": "median",
       "real_time": 7, "cpu_time": 7}]})";
  const auto set = load_result_set(file);
  ASSERT_TRUE(set.micro);
  ASSERT_NE(set.micro->find("a"), nullptr);
  EXPECT_EQ(set.micro->find("a")->cpu_ns, std::vector<double>{4.0});
  EXPECT_EQ(set.micro->find("a")->items_per_second, std::vector<double>{250000000.0});
  EXPECT_EQ(set.micro->find("b")->cpu_ns, std::vector<double>{2.0});  // repetitions win
  std::filesystem::remove_all(dir);
}

TEST(CompareInput, NothingInCommonIsBadInput) {
  EXPECT_THROW(compare_files("gbench_base.json", "macro_head.json"), common::UsageError);
}

TEST(CompareInput, ErrorsNameFileAndField) {
  const auto dir = test::scratch_dir("compare-input");
  const auto bad = (dir / "bad.json").string();
  std::ofstream(bad) << R"({"benchmarks": [{"name": "x", "real_time": "fast", "cpu_time": 1}]})";
  try {
    load_result_set(bad);
    FAIL() << "expected common::UsageError";
  } catch (const common::UsageError& e) {
    EXPECT_EQ(std::string(e.what()), bad + ": /benchmarks/0/real_time: expected a number");
  }
  std::ofstream(bad) << R"({"schema": "gatebench.macro/1", "scenarios": [{"name": "a",
      "status": "ok", "latency_us": {"p50": 1, "mean": 2}, "cpu_percent": null}]})";
  try {
    load_result_set(bad);
    FAIL() << "expected common::UsageError";
  } catch (const common::UsageError& e) {
    EXPECT_EQ(std::string(e.what()), bad + ": /scenarios/0/rps: missing (expected a number)");
  }
  std::ofstream(bad) << R"({"schema": "gatebench.macro/1", "scenarios": [{"name": "a",
      "status": "done"}]})";
  EXPECT_THROW(load_result_set(bad), common::UsageError);
  std::ofstream(bad) << R"({"schema": "gatebench.macro/2", "scenarios": [{"name": "a",
      "status": "failed", "rounds": [{"status": "ok", "rps": 1}, {"status": "broken"}]}]})";
  try {
    load_result_set(bad);
    FAIL() << "expected common::UsageError";
  } catch (const common::UsageError& e) {
    EXPECT_EQ(std::string(e.what()),
              bad + ": /scenarios/0/rounds/1/status: expected ok, skipped or failed, got 'broken'");
  }
  std::ofstream(bad) << R"({"schema": "gatebench.macro/2", "scenarios": [{"name": "a",
      "status": "ok", "rps": 1, "intervals": {"rps": {"median": 1, "lo": 1, "hi": 2}}}]})";
  try {
    load_result_set(bad);
    FAIL() << "expected common::UsageError";
  } catch (const common::UsageError& e) {
    EXPECT_EQ(std::string(e.what()),
              bad + ": /scenarios/0/intervals/rps/n: missing (expected an integer)");
  }
  std::filesystem::remove_all(dir);
}

TEST(CompareCli, ExitCodes) {
  using test::data;
  using test::run_gatebench;
  EXPECT_EQ(run_gatebench("compare " + data("gbench_base.json") + " " + data("gbench_head.json")),
            1);
  EXPECT_EQ(run_gatebench("compare " + data("gbench_head.json") + " " + data("gbench_head.json")),
            0);
  EXPECT_EQ(run_gatebench("compare " + data("instructions_head.json") + " " +
                          data("instructions_head.json")),
            0);
  EXPECT_EQ(run_gatebench("compare " + data("gbench_base.json") + " /nonexistent.json"), 2);
  EXPECT_EQ(run_gatebench("compare " + data("gbench_base.json")), 2);
  EXPECT_EQ(run_gatebench("compare --min-change=abc " + data("gbench_base.json") + " " +
                          data("gbench_head.json")),
            2);
  EXPECT_EQ(run_gatebench("compare --help"), 0);
  EXPECT_EQ(run_gatebench("no-such-command"), 2);
}

TEST(CompareCli, BadFileIsNamedOnStderr) {
  const auto dir = test::scratch_dir("compare-cli");
  const auto bad = (dir / "broken.json").string();
  std::ofstream(bad) << "{ not json";
  const auto err = (dir / "err.txt").string();
  EXPECT_EQ(test::run_gatebench("compare " + test::data("gbench_base.json") + " " + bad,
                                "/dev/null", err),
            2);
  EXPECT_NE(read_text_file(err).find(bad + ": not valid JSON"), std::string::npos);
  std::filesystem::remove_all(dir);
}

TEST(CompareCli, WritesMarkdownAndJsonFiles) {
  const auto dir = test::scratch_dir("compare-out");
  const auto md = (dir / "gate.md").string(), js = (dir / "gate.json").string();
  EXPECT_EQ(test::run_gatebench("compare --quiet --md " + md + " --json " + js + " " +
                                test::data("macro2_base_5.json") + " " +
                                test::data("macro2_head_5.json")),
            1);
  EXPECT_NE(read_text_file(md).find("| gateway-protected | cpu_vs_load |"), std::string::npos);
  const auto j = load_json_file(js);
  EXPECT_EQ(j["regression"], true);
  EXPECT_EQ(j["options"]["min_rounds"], 5);
  // Three rounds: too few for a verdict, but the failed scenario still fails the gate.
  EXPECT_EQ(test::run_gatebench("compare " + test::data("macro2_base_3.json") + " " +
                                test::data("macro2_base_3.json")),
            0);
  EXPECT_EQ(test::run_gatebench("compare --min-rounds 1 " + test::data("macro2_base_3.json") + " " +
                                test::data("macro2_base_3.json")),
            2);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace gatebench::tools
