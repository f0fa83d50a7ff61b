// "What each feature costs" from the counts `gatebench run` makes by default: a real
// instructions.json (gatebench-macro --instructions 100 over gateway-default and every feature
// scenario, data/feature_counts.json) gives every feature row its instructions and system calls
// per request, with no macro.json at all.
#include <gtest/gtest.h>

#include "tests/tools/tool_test_support.hpp"
#include "tools/src/report/report_ablation.hpp"
#include "tools/src/report/report_model.hpp"
#include "tools/src/report/report_writers.hpp"
#include "tools/src/results/format.hpp"
#include "tools/src/results/macro_instructions.hpp"

namespace gatebench::tools {
namespace {

std::size_t column(const ReportTable& t, const std::string& head) {
  const auto it = std::find(t.head.begin(), t.head.end(), head);
  EXPECT_NE(it, t.head.end()) << head;
  return static_cast<std::size_t>(it - t.head.begin());
}

TEST(FeatureCosts, ARealCountFileGivesEveryFeatureRowAFigure) {
  const MacroInstructionRun counted = load_macro_instructions(test::data("feature_counts.json"));
  const auto rules = default_attribution_rules();
  const ReportModel m = build_report_model(nullptr, nullptr, nullptr, rules, nullptr, &counted);
  const ReportTable t = ablation_table(m);
  std::size_t features = 0;
  for (const auto& r : rules) features += r.baseline == kAblationBaseline ? 1 : 0;
  ASSERT_EQ(t.rows.size(), features);
  const std::size_t ir = column(t, "instructions/req Δ");
  const std::size_t sc = column(t, "system calls/req Δ");
  for (const auto& row : t.rows) {
    EXPECT_NE(row[ir], "–") << row[0];
    EXPECT_NE(row[sc], "–") << row[0];
    for (const auto& cell : row) EXPECT_EQ(cell.find("not resolved"), std::string::npos) << cell;
  }
  // Each figure is the file's own difference: TLS keep-alive adds a record layer's work and
  // the read that returns "want read" (docs/attribution.md), the access log off saves work.
  for (const auto& a : m.attribution) {
    if (a.rule.baseline != kAblationBaseline) continue;
    ASSERT_TRUE(a.difference_ir && a.difference_syscalls) << a.rule.label;
    const auto* s = counted.find(a.rule.scenario);
    const auto* b = counted.find(a.rule.baseline);
    EXPECT_DOUBLE_EQ(*a.difference_ir, *s->instructions_per_request - *b->instructions_per_request);
    EXPECT_DOUBLE_EQ(*a.difference_syscalls, *s->syscalls_per_request - *b->syscalls_per_request);
    if (a.rule.scenario == "gateway-https-keepalive") {
      EXPECT_GT(*a.difference_ir, 5000);
    }
    if (a.rule.scenario == "ablation-nolog") {
      EXPECT_LT(*a.difference_ir, 0);
    }
  }
  // report.md shows the same figures: ablation-iplist's row with its instruction difference.
  const std::string md = report_markdown(m);
  const auto* iplist = counted.find("ablation-iplist");
  const auto* base = counted.find("gateway-default");
  const std::string row =
      "| IP list (1,000 CIDRs) | ablation-iplist | – | – | " +
      fmt_count(*iplist->instructions_per_request - *base->instructions_per_request) + " | ";
  EXPECT_NE(md.find(row), std::string::npos) << md;
}

}  // namespace
}  // namespace gatebench::tools
