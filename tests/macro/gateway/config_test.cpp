// Configuration validation: every error names the field it is about; valid files load.
#include "macro/gateway/config.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

namespace gw = gatebench::gateway;

namespace {

std::string error_of(const std::string& json, const std::string& origin = "test.json") {
  try {
    gw::parse_config(json, origin);
  } catch (const gw::ConfigError& e) {
    return e.what();
  }
  return "(no error)";
}

const std::string kListener = R"("listeners": [{"port": 8080}])";

std::string with_host(const std::string& host, const std::string& extra = "") {
  return "{" + kListener + extra + R"(, "hosts": [)" + host + "]}";
}

TEST(Config, MinimalFileLoads) {
  auto cfg = gw::parse_config(
      with_host(R"({"names": ["a.test", "*"], "upstream": "127.0.0.1:81"})"), "t.json");
  ASSERT_EQ(cfg->hosts.size(), 1u);
  EXPECT_EQ(cfg->default_host, 0);
  EXPECT_GE(cfg->workers, 1u);
  EXPECT_EQ(cfg->listeners[0].port, 8080);
  EXPECT_EQ(cfg->hosts[0].pool_size, 64u);
  EXPECT_EQ(cfg->hosts[0].body_limit, 65536u);
  EXPECT_EQ(cfg->hosts[0].body_overflow, gw::BodyOverflow::kReject);
  EXPECT_FALSE(cfg->hosts[0].inspects_bodies());  // no rules, nothing to inspect for
  EXPECT_EQ(cfg->client_body_timeout_ms, 60000u);
  EXPECT_FALSE(cfg->listeners[0].http2);  // a plain listener stays HTTP/1.1 unless told
  EXPECT_EQ(cfg->h2_max_concurrent_streams, 100u);
  EXPECT_FALSE(cfg->hosts[0].features->any());
  EXPECT_EQ(gw::find_host(*cfg, "A.TEST:8080"), 0);
  EXPECT_EQ(gw::find_host(*cfg, "other"), 0);  // "*" catches the rest
}

TEST(Config, Http2PerListener) {
  auto cfg = gw::parse_config(
      R"({"listeners": [{"port": 80, "http2": true}, {"port": 443, "protocol": "https"},
                        {"port": 444, "protocol": "https", "http2": false}],
          "tls": {"certificates": [{"cert": "/dev/null", "key": "/dev/null"}]},
          "limits": {"h2_max_concurrent_streams": 7},
          "hosts": [{"names": ["*"], "upstream": "127.0.0.1:81"}]})",
      "t.json");
  ASSERT_EQ(cfg->listeners.size(), 3u);
  EXPECT_TRUE(cfg->listeners[0].http2);  // h2c with prior knowledge
  EXPECT_TRUE(cfg->listeners[1].http2);  // https offers h2 by default
  EXPECT_FALSE(cfg->listeners[2].http2);
  EXPECT_EQ(cfg->h2_max_concurrent_streams, 7u);
}

TEST(Config, FindHostWithoutDefault) {
  auto cfg = gw::parse_config(
      with_host(
          R"({"names": ["a.test"], "upstream": "127.0.0.1:81"}, {"names": ["b.test"], "upstream": "127.0.0.1:82"})"),
      "t.json");
  EXPECT_EQ(gw::find_host(*cfg, "b.test"), 1);
  EXPECT_EQ(gw::find_host(*cfg, "b.test."), 1);
  EXPECT_EQ(gw::find_host(*cfg, "c.test"), -1);
}

struct ErrorCase {
  std::string json;
  std::string expected;  // substring of the message
};

TEST(Config, ErrorsNameTheField) {
  const ErrorCase cases[] = {
      {"{", "test.json: not valid JSON"},
      {"[]", "(top level): expected an object"},
      {R"({"hosts": []})", "test.json: /listeners: missing (expected an array)"},
      {R"({"listeners": [{"port": 0}], "hosts": []})",
       "/listeners/0/port: expected an integer from 1 to 65535"},
      {R"({"listeners": [{"port": 80, "address": "nowhere"}], "hosts": []})",
       "/listeners/0/address: expected an IPv4 address"},
      {R"({"listeners": [{"port": 80, "protocol": "spdy"}], "hosts": []})",
       "/listeners/0/protocol: expected \"http\" or \"https\""},
      {R"({"listeners": [{"port": 80, "protocol": "https"}], "hosts": []})",
       "/tls: required by the https listener"},
      {R"({"listeners": [{"port": 80, "http2": "yes"}], "hosts": []})",
       "/listeners/0/http2: expected"},
      {R"({"listeners": [{"port": 80, "role": "decision", "http2": true}], "hosts": []})",
       "/listeners/0/http2: a decision listener speaks HTTP/1.1 only"},
      {with_host(R"({"names": ["a"], "upstream": "1.2.3.4:80"})",
                 R"(, "limits": {"h2_max_concurrent_streams": 0})"),
       "/limits/h2_max_concurrent_streams: expected an integer from 1 to 10000"},
      {"{" + kListener + R"(, "hosts": []})", "/hosts: expected at least one proxy host"},
      {with_host(R"({"names": ["a"], "upstream": "nocolon"})"),
       R"(/hosts/0/upstream: expected "host:port")"},
      {with_host(R"({"names": ["a"], "upstream": "1.2.3.4:99999"})"), "/hosts/0/upstream"},
      {with_host(R"({"names": ["a"]})"), "/hosts/0/upstream: missing (expected a string)"},
      {with_host(R"({"upstream": "1.2.3.4:80"})"), "/hosts/0/names: missing (expected an array)"},
      {with_host(R"({"names": ["a"], "upstream": "1.2.3.4:80", "colour": 1})"),
       "/hosts/0/colour: unknown field"},
      {with_host(
           R"({"names": ["a"], "upstream": "1.2.3.4:80"}, {"names": ["A"], "upstream": "1.2.3.4:80"})"),
       "/hosts/1/names/0: host name \"a\" is already served"},
      {with_host(R"({"names": ["a"], "upstream": "1.2.3.4:80", "security_headers": "max"})"),
       "/hosts/0/security_headers"},
      {with_host(R"({"names": ["a"], "upstream": "1.2.3.4:80", "pool_size": "x"})"),
       "/hosts/0/pool_size: expected an integer"},
      {with_host(R"({"names": ["a"], "upstream": "1.2.3.4:80", "queue": {"capacity": 5}})"),
       "/hosts/0/queue: needs \"tokens\""},
      {with_host(R"({"names": ["a"], "upstream": "1.2.3.4:80", "challenge": {}})"),
       "/hosts/0/challenge: needs \"tokens\""},
      {with_host(
           R"({"names": ["a"], "upstream": "1.2.3.4:80", "rules": "/nonexistent/rules.json"})"),
       "/hosts/0/rules: cannot read"},
      {with_host(R"({"names": ["a"], "upstream": "1.2.3.4:80", "exploits": "block"})"),
       "/hosts/0/exploits: needs \"rules\""},
      {with_host(
           R"({"names": ["a"], "upstream": "1.2.3.4:80", "rate_limit": {"rate_per_second": 0}})"),
       "/hosts/0/rate_limit/rate_per_second: expected a number"},
      {with_host(
           R"({"names": ["a"], "upstream": "1.2.3.4:80", "ip_lists": [{"id": "x", "file": "f", "action": "maybe"}]})"),
       "/hosts/0/ip_lists/0/action: expected \"deny\" or \"allow\""},
      {with_host(R"({"names": ["a"], "upstream": "1.2.3.4:80"})",
                 R"(, "tokens": {"secret_hex": "abcd"})"),
       "/tokens/secret_hex: expected at least 64 hex digits"},
      // Member names are escaped as RFC 6901 says, so the pointer finds the field again.
      {with_host(R"({"names": ["a"], "upstream": "1.2.3.4:80", "a/b~c": 1})"),
       "test.json: /hosts/0/a~1b~0c: unknown field"},
      {with_host(R"({"names": ["a"], "upstream": "1.2.3.4:80", "queue": {"capacity": 0}})",
                 R"(, "tokens": {"secret_hex": ")" + std::string(64, 'a') + R"("})"),
       "/hosts/0/queue/capacity: expected an integer from 1 to 100000000"},
      {with_host(R"({"names": ["a"], "upstream": "1.2.3.4:80"})",
                 R"(, "unknown_host_status": 500)"),
       "/unknown_host_status: expected 421 or 404"},
      {with_host(R"({"names": ["a"], "upstream": "1.2.3.4:80", "body_limit": -1})"),
       "/hosts/0/body_limit: expected an integer from 0 to 16777216"},
      {with_host(R"({"names": ["a"], "upstream": "1.2.3.4:80", "body_overflow": "drop"})"),
       "/hosts/0/body_overflow: expected \"reject\" or \"scan_prefix\""},
      {with_host(R"({"names": ["a"], "upstream": "1.2.3.4:80"})",
                 R"(, "limits": {"client_body_timeout_ms": 0})"),
       "/limits/client_body_timeout_ms: expected an integer from 1 to 3600000"},
      {with_host(R"({"names": ["a"], "upstream": "1.2.3.4:80"})",
                 R"(, "limits": {"max_connections_per_worker": 0})"),
       "/limits/max_connections_per_worker: expected an integer from 1 to 1000000"},
  };
  for (const ErrorCase& c : cases) {
    std::string msg = error_of(c.json);
    EXPECT_NE(msg.find(c.expected), std::string::npos)
        << "json: " << c.json << "\nmessage: " << msg;
  }
}

class ConfigFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ =
        std::filesystem::temp_directory_path() / ("gw-config-test-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  void write(const std::string& name, const std::string& text) {
    std::ofstream(dir_ / name) << text;
  }
  std::string origin() const { return (dir_ / "gw.json").string(); }
  std::filesystem::path dir_;
};

TEST_F(ConfigFiles, FeaturesLoadWithPathsRelativeToTheConfig) {
  write("deny.txt", "10.0.0.0/8\n192.0.2.7\n");
  write("cc.txt", "1.0.0.0/8 AU\n2.0.0.0/8 FR\n");
  write("rules.json", R"({"exploit": {"mode": "detect"}, "rate_limit": {"rate": 10, "burst": 5},
    "rules": [{"id": "r1", "action": "block", "when": [{"field": "path", "op": "prefix", "value": "/x"}]}]})");
  std::string host = R"({"names": ["a"], "upstream": "127.0.0.1:80",
    "ip_lists": [{"id": "deny", "file": "deny.txt", "action": "deny"}],
    "countries": {"table": "cc.txt", "deny": ["FR"]},
    "rules": "rules.json", "exploits": "block"})";
  auto cfg = gw::parse_config(with_host(host), origin());
  const gw::HostFeatures& f = *cfg->hosts[0].features;
  ASSERT_TRUE(f.ip_lists && f.countries && f.rules && f.rate_limit);
  EXPECT_EQ(f.ip_lists->deny->lookup(0x0A010203), 0u);
  EXPECT_EQ(f.rules->rule_ids, std::vector<std::string>{"r1"});
  EXPECT_EQ(f.rules->exploit_mode, gatebench::rules::ExploitMode::kBlock);  // host override
  EXPECT_DOUBLE_EQ(f.rate_limit->rate_per_second, 10.0);  // moved out of the rule file
  EXPECT_EQ(f.countries->ids, std::vector<std::string>{"country:FR"});
}

TEST_F(ConfigFiles, BadListAndRuleFilesNameFileAndLine) {
  write("deny.txt", "10.0.0.0/8\n10.0.300.1\n");
  std::string host = R"({"names": ["a"], "upstream": "127.0.0.1:80",
    "ip_lists": [{"id": "deny", "file": "deny.txt", "action": "deny"}]})";
  std::string msg = error_of(with_host(host), origin());
  EXPECT_NE(msg.find("/hosts/0/ip_lists/0/file"), std::string::npos) << msg;
  EXPECT_NE(msg.find("deny.txt:2"), std::string::npos) << msg;

  write("rules.json", R"({"rules": [{"id": "r1", "action": "explode"}]})");
  host = R"({"names": ["a"], "upstream": "127.0.0.1:80", "rules": "rules.json"})";
  msg = error_of(with_host(host), origin());
  EXPECT_NE(msg.find("/hosts/0/rules"), std::string::npos) << msg;
  EXPECT_NE(msg.find("explode"), std::string::npos) << msg;

  write("rules.json", R"({"rules": [{"id": "c", "action": "challenge"}]})");
  msg = error_of(with_host(host), origin());
  EXPECT_NE(msg.find("has action challenge but the host has no \"challenge\""), std::string::npos)
      << msg;
}

TEST(Config, LoadConfigNamesUnreadableFile) {
  try {
    gw::load_config("/nonexistent/gw.json");
    FAIL() << "no error";
  } catch (const gw::ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent/gw.json: cannot read"), std::string::npos);
  }
}

}  // namespace
