// The compiled evaluator and the naive engine give identical verdicts (rule, action, exploit
// category, rate limiting, decision) on generated rule sets and requests, and on the fixture
// rule sets over the fixture traffic.
#include <gtest/gtest.h>

#include "fixtures/rule_random.hpp"
#include "fixtures/rule_sets.hpp"
#include "fixtures/traffic.hpp"
#include "micro/core/rules/engine.hpp"
#include "micro/core/rules/loader.hpp"
#include "micro/peers/rules_naive.hpp"

namespace gatebench::rules {
namespace {

TEST(RuleDifferential, RandomRuleSetsAgreeWithNaive) {
  fixtures::Rng rng = fixtures::Rng(fixtures::kDefaultSeed).fork("test/rule_differential");
  constexpr int kRuleSets = 500;
  constexpr int kRequestsPerSet = 250;  // 125,000 requests in all
  std::size_t matched = 0, limited = 0, exploits = 0;
  for (int s = 0; s < kRuleSets; ++s) {
    const std::string json = fixtures::random_rule_set_json(rng);
    const RuleSet set = load_rule_set(json, "random");
    CompiledRuleSet compiled(set);
    RuleEvaluator evaluator(compiled);
    peers::NaiveRuleEngine naive(set);
    std::vector<fixtures::OwnedRequest> owned;
    for (int i = 0; i < kRequestsPerSet; ++i) owned.push_back(fixtures::random_rule_request(rng));
    const fixtures::Traffic traffic(std::move(owned));
    for (std::size_t i = 0; i < traffic.size(); ++i) {
      const std::uint64_t now = i * 200'000;  // 5,000 requests/s over 8 client addresses
      const Verdict got = evaluator.evaluate(traffic.view(i), now);
      const Verdict want = naive.evaluate(traffic.view(i), now);
      ASSERT_EQ(got, want) << "rule set " << s << " request " << i << "\n"
                           << json << "\npath " << traffic.request(i).path << " query "
                           << traffic.request(i).query;
      matched += got.rule >= 0;
      limited += got.rate_limited;
      exploits += got.exploit != ExploitCategory::kNone;
    }
  }
  // The generator must exercise every outcome, or agreement says little.
  EXPECT_GT(matched, 20000u);
  EXPECT_GT(limited, 1000u);
  EXPECT_GT(exploits, 1000u);
}

TEST(RuleDifferential, FixtureRuleSetsOnFixtureTraffic) {
  for (std::string_view traffic_kind : {"clean", "post10", "mix"}) {
    const fixtures::Traffic traffic = fixtures::generate_traffic(traffic_kind, 3000);
    for (std::string_view name : fixtures::rule_set_names()) {
      const RuleSet set = load_rule_set(fixtures::rule_set_json(name), name);
      CompiledRuleSet compiled(set);
      RuleEvaluator evaluator(compiled);
      peers::NaiveRuleEngine naive(set);
      for (std::size_t i = 0; i < traffic.size(); ++i) {
        const Verdict got = evaluator.evaluate(traffic.view(i), i * 1000);
        ASSERT_EQ(got, naive.evaluate(traffic.view(i), i * 1000))
            << name << "/" << traffic_kind << " " << i;
        // Fixture traffic never trips the fixture rules or the rate limit; only exploits block.
        EXPECT_EQ(got.rule, -1) << name << "/" << traffic_kind << " " << i;
        EXPECT_FALSE(got.rate_limited);
      }
    }
  }
}

}  // namespace
}  // namespace gatebench::rules
