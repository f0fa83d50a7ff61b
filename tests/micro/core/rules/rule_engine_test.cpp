// Every operator on every field, negation, case-insensitivity, host scopes, rule order and the
// actions' effect on the decision. Each case also runs through the naive engine, so the two
// engines are checked against the expected answer, not only against each other.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "micro/core/rules/engine.hpp"
#include "micro/core/rules/loader.hpp"
#include "micro/peers/rules_naive.hpp"

namespace gatebench::rules {
namespace {

const std::vector<HeaderView> kHeaders = {{"Host", "api.example"},
                                          {"USER-AGENT", "Mozilla/5.0 SQLMap"},
                                          {"Referer", "https://spam.xyz/page"},
                                          {"X-Dup", "first"},
                                          {"x-dup", "second"},
                                          {"X-Empty", ""}};

RequestView base_request() {
  RequestView r;
  r.method = "POST";
  r.scheme = "https";
  r.host = "API.example";
  r.path = "/Admin/users.php";
  r.query = "id=42&debug=true";
  r.headers = kHeaders;
  r.client_ip = 0x0A010203;  // 10.1.2.3
  r.country = "DE";
  r.body = "<!ENTITY xxe>";
  return r;
}

// Evaluates one rule with one condition (JSON) on `request`; expects both engines to agree.
bool hits(const std::string& condition, const RequestView& request = base_request()) {
  const std::string json = R"({"ip_lists": {"l": ["10.0.0.0/8", "192.0.2.1"]},
    "rules": [{"id": "r", "action": "block", "when": [)" +
                           condition + "]}]}";
  const RuleSet set = load_rule_set(json);
  CompiledRuleSet compiled(set);
  RuleEvaluator evaluator(compiled);
  peers::NaiveRuleEngine naive(set);
  const Verdict v = evaluator.evaluate(request, 0);
  EXPECT_EQ(v, naive.evaluate(request, 0)) << condition;
  return v.rule == 0;
}

std::string c(const std::string& field, const std::string& op, const std::string& value,
              const std::string& extra = "") {
  return R"({"field": ")" + field + R"(", "op": ")" + op + R"(", "value": ")" + value + "\"" +
         extra + "}";
}

TEST(RuleOperators, Equals) {
  EXPECT_TRUE(hits(c("method", "equals", "POST")));
  EXPECT_FALSE(hits(c("method", "equals", "post")));
  EXPECT_TRUE(hits(c("method", "equals", "post", R"(, "case_insensitive": true)")));
  EXPECT_FALSE(hits(c("method", "equals", "POS")));
}

TEST(RuleOperators, Prefix) {
  EXPECT_TRUE(hits(c("path", "prefix", "/Admin")));
  EXPECT_FALSE(hits(c("path", "prefix", "/admin")));
  EXPECT_TRUE(hits(c("path", "prefix", "/admin", R"(, "case_insensitive": true)")));
  EXPECT_TRUE(hits(c("path", "prefix", "")));
  EXPECT_FALSE(hits(c("path", "prefix", "/Admin/users.php/more")));
}

TEST(RuleOperators, Suffix) {
  EXPECT_TRUE(hits(c("path", "suffix", ".php")));
  EXPECT_FALSE(hits(c("path", "suffix", ".PHP")));
  EXPECT_TRUE(hits(c("path", "suffix", ".PHP", R"(, "case_insensitive": true)")));
  EXPECT_FALSE(hits(c("path", "suffix", "x/Admin/users.php")));
}

TEST(RuleOperators, Contains) {
  EXPECT_TRUE(hits(c("query", "contains", "debug=true")));
  EXPECT_FALSE(hits(c("query", "contains", "DEBUG")));
  EXPECT_TRUE(hits(c("query", "contains", "DEBUG", R"(, "case_insensitive": true)")));
  EXPECT_TRUE(hits(c("query", "contains", "")));
  EXPECT_FALSE(hits(c("query", "contains", "id=43")));
}

TEST(RuleOperators, Regex) {
  EXPECT_TRUE(hits(c("path", "regex", "^/Admin/[a-z]+\\\\.php$")));
  EXPECT_FALSE(hits(c("path", "regex", "^/admin")));
  EXPECT_TRUE(hits(c("path", "regex", "^/admin", R"(, "case_insensitive": true)")));
  EXPECT_TRUE(hits(c("query", "regex", "id=[0-9]{2}")));  // unanchored: anywhere
}

TEST(RuleOperators, InSet) {
  EXPECT_TRUE(hits(R"({"field": "country", "op": "in_set", "values": ["KP", "DE"]})"));
  EXPECT_FALSE(hits(R"({"field": "country", "op": "in_set", "values": ["KP", "de"]})"));
  EXPECT_TRUE(hits(
      R"({"field": "country", "op": "in_set", "values": ["KP", "de"], "case_insensitive": true})"));
  EXPECT_FALSE(hits(R"({"field": "country", "op": "in_set", "values": ["D", "DEU"]})"));
}

TEST(RuleOperators, InList) {
  const std::string in = R"({"field": "client_ip", "op": "in_list", "list": "l"})";
  EXPECT_TRUE(hits(in));
  RequestView r = base_request();
  r.client_ip = 0x0B000000;  // 11.0.0.0: just past 10.0.0.0/8
  EXPECT_FALSE(hits(in, r));
  r.client_ip = 0xC0000201;  // 192.0.2.1/32
  EXPECT_TRUE(hits(in, r));
  r.client_ip = 0xC0000202;
  EXPECT_FALSE(hits(in, r));
}

TEST(RuleOperators, Negation) {
  EXPECT_FALSE(hits(c("method", "equals", "POST", R"(, "negate": true)")));
  EXPECT_TRUE(hits(c("method", "equals", "GET", R"(, "negate": true)")));
  EXPECT_FALSE(hits(R"({"field": "client_ip", "op": "in_list", "list": "l", "negate": true})"));
}

TEST(RuleFields, EveryFieldReadsItsPart) {
  EXPECT_TRUE(hits(c("scheme", "equals", "https")));
  EXPECT_TRUE(hits(c("host", "equals", "API.example")));
  EXPECT_TRUE(hits(c("host", "equals", "api.example", R"(, "case_insensitive": true)")));
  EXPECT_TRUE(hits(c("path", "equals", "/Admin/users.php")));
  EXPECT_TRUE(hits(c("query", "equals", "id=42&debug=true")));
  EXPECT_TRUE(hits(c("country", "equals", "DE")));
  EXPECT_TRUE(hits(c("body", "prefix", "<!ENTITY")));
  EXPECT_TRUE(hits(c("user_agent", "suffix", "SQLMap")));  // header name matched case-insensitively
  EXPECT_TRUE(hits(c("referer", "contains", ".xyz/")));
  EXPECT_TRUE(
      hits(R"({"field": "header", "name": "Host", "op": "equals", "value": "api.example"})"));
}

TEST(RuleFields, RepeatedHeaderUsesTheFirst) {
  EXPECT_TRUE(hits(R"({"field": "header", "name": "X-DUP", "op": "equals", "value": "first"})"));
  EXPECT_FALSE(hits(R"({"field": "header", "name": "x-dup", "op": "equals", "value": "second"})"));
}

TEST(RuleFields, AbsentHeaderSatisfiesNoOperatorButItsNegation) {
  const std::string absent =
      R"({"field": "header", "name": "X-Missing", "op": "prefix", "value": ""})";
  EXPECT_FALSE(hits(absent));
  EXPECT_TRUE(hits(
      R"({"field": "header", "name": "X-Missing", "op": "prefix", "value": "", "negate": true})"));
  // Present but empty is not absent.
  EXPECT_TRUE(hits(R"({"field": "header", "name": "X-Empty", "op": "equals", "value": ""})"));
}

TEST(RuleFields, ConditionsAreAnded) {
  EXPECT_TRUE(hits(c("method", "equals", "POST") + "," + c("scheme", "equals", "https")));
  EXPECT_FALSE(hits(c("method", "equals", "POST") + "," + c("scheme", "equals", "http")));
}

Verdict run(const std::string& json, const RequestView& request, std::uint64_t now = 0) {
  const RuleSet set = load_rule_set(json);
  CompiledRuleSet compiled(set);
  RuleEvaluator evaluator(compiled);
  peers::NaiveRuleEngine naive(set);
  const Verdict v = evaluator.evaluate(request, now);
  EXPECT_EQ(v, naive.evaluate(request, now)) << json;
  return v;
}

// The compiled engine alone: the naive peer reads the normalised fields only.
Verdict run_compiled(const std::string& json, const RequestView& request) {
  const CompiledRuleSet compiled(load_rule_set(json));
  RuleEvaluator evaluator(compiled);
  return evaluator.evaluate(request, 0);
}

TEST(RuleFields, MatchRawReadsTheBytesAsReceived) {
  RequestView r = base_request();
  r.path = "/wp-admin/x";
  r.raw_path = "/wp-%61dmin/x";
  r.query = "q=union select";
  r.raw_query = "q=union+select";
  r.body = "a=<?php";
  r.raw_body = "a=%3C%3Fphp";
  auto rule = [](std::string_view field, std::string_view value, std::string_view match) {
    std::string cond = R"({"field": ")" + std::string(field) +
                       R"(", "op": "contains", "value": ")" + std::string(value) + R"(")";
    if (!match.empty()) cond += R"(, "match": ")" + std::string(match) + R"(")";
    return R"({"rules": [{"id": "r", "action": "block", "when": [)" + cond + "}]}]}";
  };
  EXPECT_EQ(run_compiled(rule("path", "wp-admin", ""), r).rule, 0);
  EXPECT_EQ(run_compiled(rule("path", "wp-admin", "normalized"), r).rule, 0);
  EXPECT_EQ(run_compiled(rule("path", "wp-admin", "raw"), r).rule, -1);
  EXPECT_EQ(run_compiled(rule("path", "%61", "raw"), r).rule, 0);
  EXPECT_EQ(run_compiled(rule("query", "union select", ""), r).rule, 0);
  EXPECT_EQ(run_compiled(rule("query", "union+select", "raw"), r).rule, 0);
  EXPECT_EQ(run_compiled(rule("query", "union+select", ""), r).rule, -1);
  EXPECT_EQ(run_compiled(rule("body", "<?php", ""), r).rule, 0);
  EXPECT_EQ(run_compiled(rule("body", "%3C%3Fphp", "raw"), r).rule, 0);
  // Nothing normalised (raw fields empty): raw reads the field itself.
  RequestView plain = base_request();
  EXPECT_EQ(run_compiled(rule("path", "/Admin", "raw"), plain).rule, 0);
}

TEST(RuleOrder, ExploitHeadersOnlyWhenAskedFor) {
  const HeaderView headers[] = {{"User-Agent", "sqlmap/1.7 (https://sqlmap.org)"}};
  RequestView r = base_request();
  r.body = {};
  r.headers = headers;
  EXPECT_EQ(run_compiled(R"({"exploit": {"mode": "block"}, "rules": []})", r).exploit,
            ExploitCategory::kNone);
  const Verdict v =
      run_compiled(R"({"exploit": {"mode": "block", "headers": true}, "rules": []})", r);
  EXPECT_EQ(v.exploit, ExploitCategory::kScannerAgent);
  EXPECT_EQ(v.decision, Decision::kBlock);
}

TEST(RuleOrder, FirstMatchingRuleWins) {
  const Verdict v = run(R"({"rules": [
      {"id": "miss", "action": "block", "when": [{"field": "method", "op": "equals", "value": "GET"}]},
      {"id": "log", "action": "log", "when": [{"field": "scheme", "op": "equals", "value": "https"}]},
      {"id": "block", "action": "block"}]})",
                        base_request());
  EXPECT_EQ(v.rule, 1);
  EXPECT_EQ(v.action, RuleAction::kLog);
  EXPECT_EQ(v.decision, Decision::kPass);
}

TEST(RuleOrder, HostScope) {
  const std::string json = R"({"rules": [
      {"id": "other", "action": "block", "hosts": ["other.example"]},
      {"id": "mine", "action": "challenge", "hosts": ["x.example", "Api.Example"]},
      {"id": "all", "action": "block"}]})";
  Verdict v = run(json, base_request());
  EXPECT_EQ(v.rule, 1);
  EXPECT_EQ(v.decision, Decision::kChallenge);
  RequestView r = base_request();
  r.host = "unknown.example";
  v = run(json, r);
  EXPECT_EQ(v.rule, 2);
  r.host = "OTHER.example";
  v = run(json, r);
  EXPECT_EQ(v.rule, 0);
  r.host = "";
  EXPECT_EQ(run(json, r).rule, 2);
}

// Literal groups are built per host's rules: another host's needle in the same field neither
// matches here nor shares a bit with this host's needles.
TEST(RuleLiterals, GroupsFollowHostScope) {
  const std::string json = R"({"rules": [
      {"id": "a", "action": "block", "hosts": ["a.example"],
       "when": [{"field": "path", "op": "contains", "value": "/alpha"}]},
      {"id": "b", "action": "challenge", "hosts": ["b.example"],
       "when": [{"field": "path", "op": "contains", "value": "/beta"}]},
      {"id": "both", "action": "log",
       "when": [{"field": "path", "op": "contains", "value": "/beta", "case_insensitive": true}]}]})";
  RequestView r = base_request();
  r.host = "a.example";
  r.path = "/beta/alpha";
  EXPECT_EQ(run(json, r).rule, 0);
  r.path = "/BETA";
  EXPECT_EQ(run(json, r).rule, 2);
  r.host = "b.example";
  r.path = "/beta/alpha";
  EXPECT_EQ(run(json, r).rule, 1);
  r.path = "/Beta";  // the case-insensitive needle only: same text, its own bit
  EXPECT_EQ(run(json, r).rule, 2);
  r.path = "/alpha";
  EXPECT_EQ(run(json, r).rule, -1);
}

// More literals on one field than one LiteralSet holds (several groups), needles repeated across
// rules (shared bits) and regex atoms next to them, against the naive engine.
TEST(RuleLiterals, ManyLiteralsOnOneField) {
  std::string json = R"({"rules": [)";
  for (int i = 0; i < 150; ++i) {
    if (i) json += ",";
    const std::string n = std::to_string(i % 90);  // needles 0..59 appear twice
    json += R"({"id": "r)" + std::to_string(i) + R"(", "action": "block", "when": [)";
    if (i % 3 == 0) {
      json += R"({"field": "path", "op": "regex", "value": "/(api|app)/v)" + n + R"(/(x|y)z"})";
    } else {
      json += R"({"field": "path", "op": "contains", "value": "/seg)" + n + R"(/")" +
              (i % 2 ? R"(, "case_insensitive": true)" : "") + "}";
    }
    json += "]}";
  }
  json += "]}";
  std::size_t matched = 0;
  for (int k = 0; k < 100; ++k) {
    RequestView r = base_request();
    const std::string path =
        k % 2 ? "/SEG" + std::to_string(k) + "/" : "/app/v" + std::to_string(k % 95) + "/yz";
    r.path = path;
    matched += run(json, r).rule >= 0;
  }
  // Both outcomes occur, or agreement says little.
  EXPECT_GT(matched, 20u);
  EXPECT_LT(matched, 90u);
}

TEST(RuleActions, DecisionPerAction) {
  const char* tpl = R"({"exploit": {"mode": "block"}, "rules": [{"id": "r", "action": "%s"}]})";
  RequestView attack = base_request();
  attack.query = "id=1'+or+'1'='1";
  struct Case {
    const char* action;
    Decision clean;
    Decision attacked;
  };
  for (const Case& k : {Case{"block", Decision::kBlock, Decision::kBlock},
                        Case{"allow", Decision::kPass, Decision::kPass},  // allow skips scanning
                        Case{"challenge", Decision::kChallenge, Decision::kBlock},
                        Case{"log", Decision::kPass, Decision::kBlock}}) {
    char json[256];
    std::snprintf(json, sizeof json, tpl, k.action);
    RequestView clean = base_request();
    clean.body = "";
    EXPECT_EQ(run(json, clean).decision, k.clean) << k.action;
    const Verdict v = run(json, attack);
    EXPECT_EQ(v.decision, k.attacked) << k.action;
    const bool scanned = std::string(k.action) == "challenge" || std::string(k.action) == "log";
    EXPECT_EQ(v.exploit, scanned ? ExploitCategory::kSqlInjection : ExploitCategory::kNone)
        << k.action;
  }
}

TEST(RuleActions, ExploitModes) {
  RequestView attack = base_request();
  attack.path = "/a/../../etc/passwd";
  Verdict v = run(R"({"exploit": {"mode": "detect"}, "rules": []})", attack);
  EXPECT_EQ(v.exploit, ExploitCategory::kPathTraversal);
  EXPECT_EQ(v.decision, Decision::kPass);
  v = run(R"({"exploit": {"mode": "block"}, "rules": []})", attack);
  EXPECT_EQ(v.decision, Decision::kBlock);
  v = run(R"({"exploit": {"mode": "off"}, "rules": []})", attack);
  EXPECT_EQ(v.exploit, ExploitCategory::kNone);
  EXPECT_EQ(v.decision, Decision::kPass);
}

TEST(RuleActions, RateLimitComesFirst) {
  const std::string json =
      R"({"rate_limit": {"rate": 1, "burst": 1}, "rules": [{"id": "r", "action": "allow"}]})";
  const RuleSet set = load_rule_set(json);
  CompiledRuleSet compiled(set);
  RuleEvaluator evaluator(compiled);
  const RequestView r = base_request();
  EXPECT_FALSE(evaluator.evaluate(r, 0).rate_limited);
  EXPECT_FALSE(evaluator.evaluate(r, 0).rate_limited);  // burst 1: two at once
  const Verdict limited = evaluator.evaluate(r, 0);
  EXPECT_TRUE(limited.rate_limited);
  EXPECT_EQ(limited.decision, Decision::kBlock);
  EXPECT_EQ(limited.rule, -1);  // rules did not run
  EXPECT_FALSE(evaluator.evaluate(r, 1'000'000'000).rate_limited);
}

TEST(RuleEngine, FindHeader) {
  const RequestView r = base_request();
  std::string_view v;
  EXPECT_TRUE(find_header(r, "user-agent", v));
  EXPECT_EQ(v, "Mozilla/5.0 SQLMap");
  EXPECT_FALSE(find_header(r, "cookie", v));
}

TEST(RuleEngine, HandBuiltRuleSetWithUnknownListIsRefused) {
  RuleSet set;
  Rule rule;
  rule.id = "r";
  RuleCondition cond;
  cond.field = RuleField::kClientIp;
  cond.op = RuleOperator::kInList;
  cond.list = "missing";
  rule.conditions.push_back(cond);
  set.rules.push_back(rule);
  EXPECT_THROW(CompiledRuleSet{set}, std::invalid_argument);
}

}  // namespace
}  // namespace gatebench::rules
