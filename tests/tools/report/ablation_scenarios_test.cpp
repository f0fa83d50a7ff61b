// The shipped ablation (macro/scenarios/ablation-*.json) against the attribution rules: every
// ablation scenario has its rule over gateway-default, and every host the load names is called
// like default.test (seven lower-case letters and ".test") and is the first host of its
// configuration, so that finding it, parsing the Host header and logging it cost what
// gateway-default's host costs (docs/attribution.md). "all features" adds the others' micro paths
// without counting one twice.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <sstream>

#include "tools/src/report/report_model.hpp"

namespace gatebench::tools {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

fs::path scenario_dir() {
  return fs::path(GATEBENCH_TOOLS_DATA).parent_path().parent_path().parent_path() /
         "macro/scenarios";
}

std::string read_all(const fs::path& file) {
  std::ifstream in(file);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// A gateway configuration template as JSON: every ${...} variable stands for a number or for
// part of a string, so 1 keeps either valid.
json rendered_config(const fs::path& file) {
  static const std::regex variable(R"(\$\{[^}]*\})");
  return json::parse(std::regex_replace(read_all(file), variable, "1"));
}

const AttributionRule* rule_of(const std::vector<AttributionRule>& rules,
                               const std::string& scenario) {
  for (const auto& r : rules)
    if (r.scenario == scenario) return &r;
  return nullptr;
}

TEST(AblationScenarios, NameTheirHostLikeTheDefaultHostAndServeItFirst) {
  const std::regex shape("[a-z]{7}\\.test");
  const auto rules = default_attribution_rules();
  std::set<std::string> hosts;
  std::size_t scenarios = 0;
  for (const auto& entry : fs::directory_iterator(scenario_dir())) {
    const std::string stem = entry.path().stem().string();
    if (!stem.starts_with("ablation-") || entry.path().extension() != ".json") continue;
    SCOPED_TRACE(stem);
    ++scenarios;
    const json s = json::parse(read_all(entry.path()));
    ASSERT_EQ(s["load"]["headers"].size(), 1u);
    const std::string header = s["load"]["headers"][0];
    ASSERT_TRUE(header.starts_with("Host: ")) << header;
    const std::string host = header.substr(6);
    EXPECT_TRUE(std::regex_match(host, shape)) << host;
    EXPECT_EQ(host.size(), std::string("default.test").size());
    hosts.insert(host);
    std::string tpl;
    for (const auto& service : s["services"])
      if (service.value("use", "") == "gateway") tpl = service["configs"][0]["template"];
    ASSERT_FALSE(tpl.empty());
    const json config = rendered_config(scenario_dir() / "configs" / tpl);
    EXPECT_EQ(config["hosts"][0]["names"][0], host) << tpl;
    const AttributionRule* rule = rule_of(rules, stem);
    ASSERT_NE(rule, nullptr);
    EXPECT_EQ(rule->baseline, "gateway-default");
  }
  EXPECT_GE(scenarios, 9u);  // none, seven features and all
  // ablation-nolog keeps default.test itself; the others are one host each.
  EXPECT_EQ(hosts.size(), scenarios);
}

TEST(AblationScenarios, AllFeaturesCountEachMicroPathOnce) {
  const auto rules = default_attribution_rules();
  const AttributionRule* all = rule_of(rules, "ablation-all");
  ASSERT_NE(all, nullptr);
  // The 30 rules' evaluation includes the IP list rule, the exploit scan and the rate limit.
  EXPECT_EQ(all->micro_patterns, (std::vector<std::string>{"^cidr/gatecore/geoip_country$",
                                                           "^rules/gatecore/protected/clean$"}));
  const json config = rendered_config(scenario_dir() / "configs/gateway-ablation-all.json");
  ASSERT_EQ(config["hosts"].size(), 1u);
  const json& host = config["hosts"][0];
  for (const char* feature : {"countries", "rate_limit", "security_headers", "rules"})
    EXPECT_TRUE(host.contains(feature)) << feature;
  EXPECT_EQ(host["exploits"], "block");
  EXPECT_EQ(host["rules"], "1/gateway-ablation-rules30-rules.json");
  // Blocking on a host that already detects adds no scan: no micro path.
  const AttributionRule* exploits = rule_of(rules, "ablation-exploits");
  ASSERT_NE(exploits, nullptr);
  EXPECT_TRUE(exploits->micro_patterns.empty());
}

}  // namespace
}  // namespace gatebench::tools
