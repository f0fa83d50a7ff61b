// p-values against scipy.stats.mannwhitneyu(alternative='two-sided') as Google Benchmark's
// compare.py calls it; data/mann_whitney_golden.json was computed offline by
// data/make_mann_whitney_golden.py (scipy 1.10.1).
#include "tools/src/compare/mann_whitney.hpp"

#include <gtest/gtest.h>

#include <vector>

#include "tests/tools/tool_test_support.hpp"
#include "tools/src/results/json_file.hpp"

namespace gatebench::tools {
namespace {

TEST(MannWhitney, MatchesScipyGoldenValues) {
  const auto golden = load_json_file(test::data("mann_whitney_golden.json"));
  ASSERT_GE(golden["cases"].size(), 10u);
  for (const auto& c : golden["cases"]) {
    SCOPED_TRACE(c["name"].get<std::string>());
    const auto x = c["x"].get<std::vector<double>>();
    const auto y = c["y"].get<std::vector<double>>();
    const auto r = mann_whitney_two_sided(x, y);
    EXPECT_DOUBLE_EQ(r.u1, c["u1"].get<double>());
    const double p = c["p"].get<double>();
    EXPECT_NEAR(r.p, p, 1e-12 + 1e-9 * p);
  }
}

TEST(MannWhitney, SymmetricInItsArguments) {
  const std::vector<double> a{1, 3, 5, 7, 9, 11, 13, 15, 17};
  const std::vector<double> b{2, 2, 6, 8, 10, 12, 14, 16, 30};
  EXPECT_DOUBLE_EQ(mann_whitney_two_sided(a, b).p, mann_whitney_two_sided(b, a).p);
}

TEST(MannWhitney, CompletelySeparatedNineVsNine) {
  // U = 0 with n1 = n2 = 9: z = (81 - 40.5 - 0.5) / sqrt(9 * 9 * 19 / 12) = 3.5324...
  std::vector<double> a, b;
  for (int i = 0; i < 9; ++i) {
    a.push_back(i);
    b.push_back(100 + i);
  }
  const auto r = mann_whitney_two_sided(a, b);
  EXPECT_DOUBLE_EQ(r.u1, 0.0);
  EXPECT_NEAR(r.z, 40.0 / std::sqrt(81.0 * 19.0 / 12.0), 1e-12);
  EXPECT_NEAR(r.p, 0.000412295, 1e-8);
}

TEST(MannWhitney, IdenticalSamplesGivePOne) {
  const std::vector<double> a(9, 3.0);
  EXPECT_EQ(mann_whitney_two_sided(a, a).p, 1.0);
}

TEST(MannWhitney, EmptySampleIsAnError) {
  const std::vector<double> a{1.0}, none;
  EXPECT_THROW(mann_whitney_two_sided(a, none), std::invalid_argument);
}

}  // namespace
}  // namespace gatebench::tools
