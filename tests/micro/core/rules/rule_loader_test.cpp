// The loader accepts the documented format and refuses everything else with a message naming
// the rule index, the field and what was expected.
#include <gtest/gtest.h>

#include <string>

#include "fixtures/rule_sets.hpp"
#include "micro/core/rules/loader.hpp"

namespace gatebench::rules {
namespace {

using cidr::Ipv4Prefix;

std::string load_error(const std::string& json) {
  try {
    load_rule_set(json, "test.json");
  } catch (const RuleLoadError& e) {
    return e.what();
  }
  return "(loaded)";
}

TEST(RuleLoader, LoadsEveryFieldOperatorAndOption) {
  const RuleSet set = load_rule_set(R"({
    "ip_lists": {"bad": ["10.0.0.0/8", "192.0.2.7"]},
    "exploit": {"mode": "detect"},
    "rate_limit": {"rate": 50.5, "burst": 7, "table_entries": 1024},
    "rules": [
      {"id": "a", "action": "block", "hosts": ["API.Example"], "when": [
        {"field": "method", "op": "in_set", "values": ["PUT", "DELETE"]},
        {"field": "header", "name": "X-Api-Key", "op": "equals", "value": "k", "negate": true},
        {"field": "user_agent", "op": "contains", "value": "SQLMAP", "case_insensitive": true},
        {"field": "referer", "op": "suffix", "value": ".ru"},
        {"field": "client_ip", "op": "in_list", "list": "bad"},
        {"field": "path", "op": "regex", "value": "^/x"}]},
      {"id": "b", "action": "allow"},
      {"id": "c", "action": "challenge", "when": [{"field": "country", "op": "equals", "value": "KP"}]},
      {"id": "d", "action": "log", "when": [{"field": "body", "op": "prefix", "value": "<"}]}
    ]})");
  ASSERT_EQ(set.rules.size(), 4u);
  EXPECT_EQ(set.exploit_mode, ExploitMode::kDetect);
  EXPECT_TRUE(set.rate_limit.enabled);
  EXPECT_DOUBLE_EQ(set.rate_limit.rate_per_second, 50.5);
  EXPECT_EQ(set.rate_limit.burst, 7u);
  EXPECT_EQ(set.rate_limit.table_entries, 1024u);
  ASSERT_EQ(set.ip_lists.at("bad").size(), 2u);
  EXPECT_EQ(set.ip_lists.at("bad")[0], (Ipv4Prefix{0x0A000000, 8}));
  EXPECT_EQ(set.ip_lists.at("bad")[1], (Ipv4Prefix{0xC0000207, 32}));
  const Rule& a = set.rules[0];
  EXPECT_EQ(a.hosts, std::vector<std::string>{"api.example"});
  ASSERT_EQ(a.conditions.size(), 6u);
  EXPECT_EQ(a.conditions[0].op, RuleOperator::kInSet);
  EXPECT_EQ(a.conditions[0].values, (std::vector<std::string>{"PUT", "DELETE"}));
  EXPECT_EQ(a.conditions[1].field, RuleField::kHeader);
  EXPECT_EQ(a.conditions[1].header, "x-api-key");
  EXPECT_TRUE(a.conditions[1].negate);
  EXPECT_EQ(a.conditions[2].header, "user-agent");
  EXPECT_TRUE(a.conditions[2].case_insensitive);
  EXPECT_EQ(a.conditions[3].header, "referer");
  EXPECT_EQ(a.conditions[4].list, "bad");
  EXPECT_EQ(a.conditions[5].op, RuleOperator::kRegex);
  EXPECT_EQ(set.rules[1].action, RuleAction::kAllow);
  EXPECT_TRUE(set.rules[1].conditions.empty());
  EXPECT_EQ(set.rules[2].action, RuleAction::kChallenge);
  EXPECT_EQ(set.rules[3].action, RuleAction::kLog);
  EXPECT_EQ(set.rules[3].conditions[0].field, RuleField::kBody);
}

TEST(RuleLoader, DefaultsWhenOptionalPartsAreMissing) {
  const RuleSet set = load_rule_set(R"({"rules": []})");
  EXPECT_TRUE(set.rules.empty());
  EXPECT_EQ(set.exploit_mode, ExploitMode::kOff);
  EXPECT_FALSE(set.rate_limit.enabled);
}

TEST(RuleLoader, FixtureRuleSetsLoad) {
  for (std::string_view name : fixtures::rule_set_names()) {
    EXPECT_NO_THROW(load_rule_set(fixtures::rule_set_json(name), name)) << name;
  }
  EXPECT_EQ(load_rule_set(fixtures::rule_set_json("protected")).rules.size(), 30u);
  EXPECT_EQ(load_rule_set(fixtures::rule_set_json("protected")).ip_lists.at("blocklist").size(),
            1000u);
  EXPECT_EQ(load_rule_set(fixtures::rule_set_json("vpatch100")).rules.size(), 100u);
}

struct BadCase {
  const char* json;
  const char* expected;  // substring of the message
};

class RuleLoaderErrors : public ::testing::TestWithParam<BadCase> {};

TEST_P(RuleLoaderErrors, NameWhereAndWhat) {
  const std::string message = load_error(GetParam().json);
  EXPECT_NE(message.find(GetParam().expected), std::string::npos) << message;
  EXPECT_EQ(message.rfind("test.json: ", 0), 0u) << message;
}

INSTANTIATE_TEST_SUITE_P(
    All, RuleLoaderErrors,
    ::testing::Values(
        BadCase{"{", "(document): invalid JSON"}, BadCase{"[]", "(document): expected an object"},
        BadCase{R"({"rules": [], "x": 1e999})", "(document): invalid JSON"},
        BadCase{R"({"rulez": []})", "unknown key \"rulez\""}, BadCase{R"({})", "missing \"rules\""},
        BadCase{R"({"rules": {}})", "rules: expected an array"},
        BadCase{R"({"rules": [1]})", "rules[0]: expected a rule object"},
        BadCase{R"({"rules": [{"action": "block"}]})", "rules[0]: missing \"id\""},
        BadCase{R"({"rules": [{"id": "", "action": "block"}]})",
                "rules[0].id: expected a non-empty"},
        BadCase{R"({"rules": [{"id": 5, "action": "block"}]})", "rules[0].id: expected a string"},
        BadCase{R"({"rules": [{"id": "a", "action": "drop"}]})",
                "rules[0].action: expected one of block, allow, challenge, log; got \"drop\""},
        BadCase{R"({"rules": [{"id": "a", "action": "block"}, {"id": "a", "action": "log"}]})",
                "rules[1].id: expected a unique id"},
        BadCase{R"({"rules": [{"id": "a", "action": "block", "hosts": [""]}]})",
                "rules[0].hosts[0]"},
        BadCase{R"({"rules": [{"id": "a", "action": "block", "hosts": "x"}]})",
                "rules[0].hosts: expected an array of strings"},
        BadCase{R"({"rules": [{"id": "a", "action": "block", "when": {}}]})",
                "rules[0].when: expected an array of conditions"},
        BadCase{
            R"({"rules": [{"id": "a", "action": "block", "when": [{"op": "equals", "value": "x"}]}]})",
            "rules[0].when[0]: missing \"field\""},
        BadCase{
            R"({"rules": [{"id": "a", "action": "block", "when": [{"field": "paht", "op": "equals", "value": "x"}]}]})",
            "rules[0].when[0].field: expected one of method"},
        BadCase{
            R"({"rules": [{"id": "a", "action": "block", "when": [{"field": "path", "op": "like", "value": "x"}]}]})",
            "rules[0].when[0].op: expected one of equals"},
        BadCase{
            R"({"rules": [{"id": "a", "action": "block", "when": [{"field": "path", "op": "equals", "value": "x", "match": "decoded"}]}]})",
            "rules[0].when[0].match: expected \"normalized\" or \"raw\", got \"decoded\""},
        BadCase{
            R"({"rules": [{"id": "a", "action": "block", "when": [{"field": "user_agent", "op": "equals", "value": "x", "match": "raw"}]}]})",
            "rules[0].when[0].match: \"raw\" only applies to path, query and body"},
        BadCase{R"({"exploit": {"mode": "block", "headers": 1}, "rules": []})",
                "exploit.headers: expected true or false"},
        BadCase{
            R"({"rules": [{"id": "a", "action": "block", "when": [{"field": "path", "op": "equals"}]}]})",
            "rules[0].when[0]: missing \"value\""},
        BadCase{
            R"({"rules": [{"id": "a", "action": "block", "when": [{"field": "path", "op": "equals", "value": 3}]}]})",
            "rules[0].when[0].value: expected a string"},
        BadCase{
            R"({"rules": [{"id": "a", "action": "block", "when": [{"field": "path", "op": "regex", "value": "("}]}]})",
            "rules[0].when[0].value: expected an RE2 regular expression"},
        BadCase{
            R"({"rules": [{"id": "a", "action": "block", "when": [{"field": "path", "op": "in_set", "values": []}]}]})",
            "rules[0].when[0].values: expected at least one string"},
        BadCase{
            R"({"rules": [{"id": "a", "action": "block", "when": [{"field": "path", "op": "in_set", "values": [1]}]}]})",
            "rules[0].when[0].values[0]: expected a string"},
        BadCase{
            R"({"rules": [{"id": "a", "action": "block", "when": [{"field": "path", "op": "in_list", "list": "x"}]}]})",
            "rules[0].when[0].op: op in_list expects field client_ip"},
        BadCase{
            R"({"rules": [{"id": "a", "action": "block", "when": [{"field": "client_ip", "op": "equals", "value": "1.2.3.4"}]}]})",
            "rules[0].when[0].op: field client_ip expects op in_list"},
        BadCase{
            R"({"rules": [{"id": "a", "action": "block", "when": [{"field": "client_ip", "op": "in_list", "list": "nope"}]}]})",
            "rules[0].when[0].list: expected the name of an entry of ip_lists"},
        BadCase{
            R"({"rules": [{"id": "a", "action": "block", "when": [{"field": "header", "op": "equals", "value": "x"}]}]})",
            "rules[0].when[0]: missing \"name\""},
        BadCase{
            R"({"rules": [{"id": "a", "action": "block", "when": [{"field": "header", "name": "a b", "op": "equals", "value": "x"}]}]})",
            "rules[0].when[0].name: expected a header name"},
        BadCase{
            R"({"rules": [{"id": "a", "action": "block", "when": [{"field": "path", "name": "x", "op": "equals", "value": "x"}]}]})",
            "rules[0].when[0].name: only allowed with"},
        BadCase{
            R"({"rules": [{"id": "a", "action": "block", "when": [{"field": "path", "op": "equals", "value": "x", "negate": 1}]}]})",
            "rules[0].when[0].negate: expected true or false"},
        BadCase{
            R"({"rules": [{"id": "a", "action": "block", "when": [{"field": "path", "op": "equals", "value": "x", "values": ["y"]}]}]})",
            "rules[0].when[0]: equals takes \"value\""},
        BadCase{
            R"({"rules": [{"id": "a", "action": "block", "when": [{"field": "path", "op": "equals", "value": "x", "typo": 1}]}]})",
            "rules[0].when[0]: unknown key \"typo\""},
        BadCase{R"({"ip_lists": {"l": ["10.0.0.1/8"]}, "rules": []})",
                "ip_lists.l[0]: expected \"a.b.c.d\""},
        BadCase{R"({"ip_lists": {"l": ["300.0.0.0/8"]}, "rules": []})", "ip_lists.l[0]"},
        BadCase{R"({"ip_lists": {"l": ["10.0.0.0/33"]}, "rules": []})", "ip_lists.l[0]"},
        BadCase{R"({"ip_lists": {"l": "10.0.0.0/8"}, "rules": []})",
                "ip_lists.l: expected an array"},
        BadCase{R"({"exploit": {"mode": "on"}, "rules": []})",
                "exploit.mode: expected one of off, detect, block"},
        BadCase{R"({"rate_limit": {"rate": 0}, "rules": []})",
                "rate_limit.rate: expected a number"},
        BadCase{R"({"rate_limit": {"rate": 10, "burst": -1}, "rules": []})",
                "rate_limit.burst: expected an integer"},
        BadCase{R"({"rate_limit": {"rate": 10, "table_entries": 0}, "rules": []})",
                "rate_limit.table_entries: expected an integer"}));

TEST(RuleLoader, FileErrorsNameTheFile) {
  try {
    load_rule_set_file("/nonexistent/rules.json");
    FAIL() << "loaded a missing file";
  } catch (const RuleLoadError& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent/rules.json"), std::string::npos);
  }
}

TEST(RuleLoader, ParseRuleCidr) {
  Ipv4Prefix p;
  EXPECT_TRUE(parse_rule_cidr("0.0.0.0/0", p));
  EXPECT_EQ(p, (Ipv4Prefix{0, 0}));
  EXPECT_TRUE(parse_rule_cidr("255.255.255.255", p));
  EXPECT_EQ(p, (Ipv4Prefix{0xFFFFFFFF, 32}));
  for (const char* bad : {"", "1.2.3", "1.2.3.4/", "1.2.3.4/033", "1.2.3.4/8", "01.2.3.4",
                          "1.2.3.4 ", "1.2.3.0/24/1", "a.b.c.d"}) {
    EXPECT_FALSE(parse_rule_cidr(bad, p)) << bad;
  }
}

}  // namespace
}  // namespace gatebench::rules
