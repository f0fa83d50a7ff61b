#include "macro/driver/measure/search.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <memory>

#include "macro/driver/plan/plan.hpp"

namespace gatebench::macro {
namespace {

// A target of closed-loop capacity 10,000 req/s whose p99 stays within 2 ms up to `limit`
// offered req/s. `stalls`: the first runs of these labels fail as a stall of the machine would.
struct FakeTarget {
  double limit = 0;
  std::vector<std::string> stalls;
  std::vector<std::string> labels;  // every run, in order

  Measurement run(const std::string& label, std::optional<double> rate) {
    labels.push_back(label);
    Measurement m;
    m.load.requests = 1000;
    if (!rate) {
      m.load.rps = 10000;
      m.load.p99_us = limit >= 10000 ? 1500 : 8000;
      return m;
    }
    const bool stalled = std::find(stalls.begin(), stalls.end(), label) != stalls.end();
    m.load.rps = *rate;
    m.load.p99_us = *rate <= limit && !stalled ? 1500 : 8000;
    return m;
  }
};

struct SearchResult {
  SearchOutcome outcome;
  std::vector<std::string> labels;
};

SearchResult search(double limit, std::vector<std::string> stalls = {}) {
  FakeTarget target{limit, std::move(stalls), {}};
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> null(std::fopen("/dev/null", "w"), std::fclose);
  Progress progress(null.get(), false);
  SearchOutcome outcome = search_max_throughput(
      [&](const std::string& label, std::optional<double> rate) { return target.run(label, rate); },
      2000, progress, 1);
  return {std::move(outcome), target.labels};
}

// The run's estimate counts kSearchRuns load runs per search: every search but one whose capacity
// already passes takes exactly that many, wherever the limit lies.
TEST(Search, SpendsExactlyItsBudgetOfRuns) {
  for (double limit : {9700.0, 8000.0, 6000.0, 5000.0, 3000.0, 1000.0, 100.0, 0.0}) {
    SCOPED_TRACE(limit);
    const SearchResult r = search(limit);
    EXPECT_EQ(r.labels.size(), static_cast<std::size_t>(kSearchRuns));
    EXPECT_EQ(r.outcome.steps.size(), static_cast<std::size_t>(kSearchRuns));
    EXPECT_EQ(r.labels.front(), "search-capacity");
  }
}

// Down to 30% of the capacity the budget narrows the bracket to 5% of its top, as the stop rule
// it replaced did: the best passing rate is within 5% below the limit.
TEST(Search, FindsTheLimitWithin5PercentDownTo30PercentOfCapacity) {
  for (double limit : {9700.0, 8000.0, 6000.0, 4500.0, 3000.0}) {
    SCOPED_TRACE(limit);
    const SearchResult r = search(limit);
    ASSERT_TRUE(r.outcome.best.has_value());
    EXPECT_LE(r.outcome.best->load.rps, limit);
    EXPECT_GE(r.outcome.best->load.rps, 0.95 * limit);
  }
}

TEST(Search, AFailingRateIsMeasuredTwiceAndBoundsTheBracketOnlyThen) {
  // 10,000 fails twice; 5,000 passes; 7,500 stalls once and passes again: it is the lower bound,
  // so the next rate is 8,750.
  const SearchResult r = search(8000, {"search-3"});
  ASSERT_GE(r.labels.size(), 6u);
  EXPECT_EQ(r.labels[1], "search-1");
  EXPECT_EQ(r.labels[2], "search-1-again");
  EXPECT_EQ(r.labels[3], "search-2");
  EXPECT_EQ(r.labels[4], "search-3");
  EXPECT_EQ(r.labels[5], "search-3-again");
  EXPECT_EQ(r.outcome.steps[6]["offered"], 8750.0);
  EXPECT_EQ(r.labels.size(), static_cast<std::size_t>(kSearchRuns));
}

TEST(Search, NoPassingRateLeavesNoBest) {
  const SearchResult r = search(0);
  EXPECT_FALSE(r.outcome.best.has_value());
  // The last run of the budget is a rate's first attempt: its second would exceed the budget.
  EXPECT_EQ(r.labels.back(), "search-6");
}

TEST(Search, ACapacityThatPassesEndsTheSearchAfterTwoRuns) {
  const SearchResult r = search(20000);
  EXPECT_EQ(r.labels, (std::vector<std::string>{"search-capacity", "search-1"}));
  ASSERT_TRUE(r.outcome.best.has_value());
  EXPECT_EQ(r.outcome.best->load.rps, 10000);
}

}  // namespace
}  // namespace gatebench::macro
