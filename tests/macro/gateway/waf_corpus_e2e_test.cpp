// The waf-mix corpus (macro/scenarios/configs/waf-mix-requests.json) through a real gateway with
// the protected host's rule file: every template named "attack-*" must be answered 403 and every
// "benign-*" one passed to the upstream (200). Each template is sent once, as gatebench-load
// serialises it (docs/load.md, "Request templates"), and the statuses are counted.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "tests/macro/gateway/gateway_testkit.hpp"

namespace {

const std::filesystem::path kConfigs =
    std::filesystem::path(GATEBENCH_SOURCE_DIR) / "macro/scenarios/configs";

std::string serialise(const nlohmann::json& t) {
  std::string method = t.value("method", "GET");
  std::string target = t.value("path", "/");
  if (t.contains("query")) {
    EXPECT_TRUE(t["query"].is_string()) << t.dump();
    target += (target.find('?') == std::string::npos ? "?" : "&") + t["query"].get<std::string>();
  }
  std::string head = method + " " + target + " HTTP/1.1\r\nHost: protected.test\r\n";
  bool has_type = false;
  if (t.contains("headers")) {
    for (const auto& [name, value] : t["headers"].items()) {
      head += name + ": " + value.get<std::string>() + "\r\n";
      has_type = has_type || name == "Content-Type";
    }
  }
  if (t.contains("cookies")) {
    std::string cookie;
    for (const auto& [name, value] : t["cookies"].items()) {
      cookie += (cookie.empty() ? "" : "; ") + name + "=" + value.get<std::string>();
    }
    head += "Cookie: " + cookie + "\r\n";
  }
  std::string body;
  if (t.contains("body")) {
    body = t["body"].is_string() ? t["body"].get<std::string>() : t["body"].dump();
    if (!t["body"].is_string() && !has_type) head += "Content-Type: application/json\r\n";
  }
  if (t.contains("body") || method == "POST" || method == "PUT" || method == "PATCH") {
    head += "Content-Length: " + std::to_string(body.size()) + "\r\n";
  }
  return head + "\r\n" + body;
}

TEST(WafCorpusE2E, ProtectedHostBlocksEveryAttackAndPassesEveryBenignRequest) {
  // The file is a driver template (docs/scenarios.md): "$${" there is a literal "${", which the
  // Log4Shell and shell attacks contain.
  std::string text = gwtest::read_text(kConfigs / "waf-mix-requests.json");
  for (std::size_t at = text.find("$${"); at != std::string::npos; at = text.find("$${", at + 2))
    text.erase(at, 1);
  const nlohmann::json corpus = nlohmann::json::parse(text);
  gwtest::TempDir dir;
  gwtest::Upstream upstream;
  const int port = gwtest::free_port();
  dir.file("gw.json", R"({"workers": 1, "listeners": [{"port": )" + std::to_string(port) +
                          R"(}], "hosts": [{"names": ["protected.test"], "upstream": "127.0.0.1:)" +
                          std::to_string(upstream.port()) + R"(", "rules": ")" +
                          (kConfigs / "gateway-protected-rules.json").string() +
                          R"(", "exploits": "block"}]})");
  gwtest::Process gateway({GATEBENCH_GATEWAY_EXE, "--config", (dir.path() / "gw.json").string()},
                          (dir.path() / "gateway.log").string());
  ASSERT_TRUE(gwtest::wait_port(port)) << gateway.output();

  int attacks = 0;
  int blocked = 0;
  int benign = 0;
  int passed = 0;
  for (const nlohmann::json& t : corpus["requests"]) {
    const std::string name = t["name"];
    const bool attack = name.rfind("attack-", 0) == 0;
    ASSERT_TRUE(attack || name.rfind("benign-", 0) == 0) << name;
    const int expect = t["expect_status"];
    ASSERT_EQ(expect, attack ? 403 : 200) << name;
    const gwtest::Response r = gwtest::fetch(port, serialise(t));
    EXPECT_EQ(r.status, expect) << name << " rule " << r.header("x-gatebench-rule") << "\n"
                                << serialise(t);
    (attack ? attacks : benign) += 1;
    if (attack && r.status == 403) ++blocked;
    if (!attack && r.status == 200) ++passed;
  }
  std::printf("waf-mix corpus: %d of %d attacks blocked, %d of %d benign passed\n", blocked,
              attacks, passed, benign);
  EXPECT_GE(attacks, 100);
  EXPECT_GE(benign, 100);
  EXPECT_EQ(gateway.stop(), 0) << gateway.output();
}

}  // namespace
