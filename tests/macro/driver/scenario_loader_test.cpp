#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <string>

#include "macro/driver/plan/scenario.hpp"
#include "macro/driver/system/env_info.hpp"

namespace gatebench::macro {
namespace {

namespace fs = std::filesystem;

const char* kValid = R"({
  "name": "x", "description": "d",
  "ports": {"backend": 18080, "proxy": 18081},
  "services": [
    {"name": "backend", "role": "backend", "binary": "nginx", "args": ["-c", "${run_dir}/b.conf"],
     "configs": [{"template": "nginx-backend.conf", "output": "b.conf"}],
     "ready": {"port": "backend", "http": "/"}},
    {"name": "proxy", "role": "gateway", "binary": "nginx", "ready": {"port": "proxy"}}],
  "load": {"port": "proxy"}
})";

// Replaces the first occurrence of `from` in kValid.
std::string variant(const std::string& from, const std::string& to) {
  std::string text = kValid;
  size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  return text.replace(at, from.size(), to);
}

std::string error_of(const std::string& text) {
  try {
    parse_scenario(text, "bad.json");
  } catch (const ScenarioError& e) {
    return e.what();
  }
  return "no error";
}

TEST(ScenarioLoader, ParsesAValidScenario) {
  Scenario s = parse_scenario(kValid, "x.json");
  EXPECT_EQ(s.name, "x");
  ASSERT_EQ(s.services.size(), 2u);
  EXPECT_EQ(s.services[0].role, Role::backend);
  EXPECT_FALSE(s.services[0].sample);
  EXPECT_TRUE(s.services[1].sample);  // gateways are what is measured
  EXPECT_EQ(s.services[0].ready.http_path, "/");
  EXPECT_EQ(s.load.port, "proxy");
  EXPECT_EQ(s.load.mode, LoadMode::closed);
  EXPECT_EQ(s.baseline, "nginx-baseline");
  EXPECT_EQ(s.target_role(), Role::gateway);
}

TEST(ScenarioLoader, RequiresFilesAndAnErrorAllowance) {
  Scenario s = parse_scenario(
      variant(R"("ports")", R"("requires": ["openssl", "/usr/lib/x.so"], "max_error_rate": 0.25,
  "ports")"),
      "x.json");
  EXPECT_EQ(s.requires_tools, (std::vector<std::string>{"openssl", "/usr/lib/x.so"}));
  ASSERT_TRUE(s.max_error_rate.has_value());
  EXPECT_DOUBLE_EQ(*s.max_error_rate, 0.25);
  EXPECT_FALSE(parse_scenario(kValid, "x.json").max_error_rate.has_value());
  EXPECT_NE(error_of(variant(R"("ports")", R"("requires": ["x y"], "ports")"))
                .find("bad.json: /requires/0: expected a tool name or an absolute path"),
            std::string::npos);
  EXPECT_NE(error_of(variant(R"("ports")", R"("max_error_rate": 1.5, "ports")"))
                .find("bad.json: /max_error_rate: expected a share of requests from 0 to 1"),
            std::string::npos);
  EXPECT_NE(
      error_of(variant(R"("ports")", R"("max_error_rate": "5%", "ports")")).find("/max_error_rate"),
      std::string::npos);
}

TEST(ScenarioLoader, WithoutGatewayTheBackendIsMeasured) {
  std::string text = R"({"name": "d", "description": "d", "ports": {"backend": 18080},
    "services": [{"name": "backend", "role": "backend", "binary": "nginx",
                  "ready": {"port": "backend"}}], "load": {"port": "backend"}})";
  Scenario s = parse_scenario(text, "d.json");
  EXPECT_TRUE(s.services[0].sample);
  EXPECT_EQ(s.target_role(), Role::backend);
}

TEST(ScenarioLoader, ErrorsNameFileAndField) {
  struct Case {
    std::string text;
    std::string expected;
  };
  const Case cases[] = {
      {"{", "bad.json: not valid JSON"},
      {"[]", "bad.json: (top level): expected an object"},
      {variant(R"("description": "d",)", ""), "bad.json: /description: missing"},
      {variant(R"("name": "x")", R"("name": 3)"), "bad.json: /name: expected a string"},
      {variant(R"("ports": {)", R"("extra": 1, "ports": {)"), "bad.json: /extra: unknown field"},
      {variant("18081", "80"), "bad.json: /ports/proxy: expected an integer from 1024 to 65535"},
      {variant("18081", "1.5"), "bad.json: /ports/proxy: expected an integer"},
      {variant(R"("role": "gateway")", R"("role": "load")"),
       "bad.json: /services/1/role: expected backend or gateway"},
      {variant(R"("ready": {"port": "proxy"})", R"("ready": {"port": "nope"})"),
       "bad.json: /services/1/ready/port: 'nope' is not in ports"},
      {variant(R"(, "ready": {"port": "proxy"})", ""), "bad.json: /services/1/ready: missing"},
      {variant(R"("http": "/")", R"("http": "x")"),
       "bad.json: /services/0/ready/http: expected a path starting with /"},
      {variant(R"("output": "b.conf")", R"("output": "../b.conf")"),
       "bad.json: /services/0/configs/0/output: expected a path inside the run directory"},
      {variant(R"("args": ["-c", "${run_dir}/b.conf"])", R"("args": ["-c", 1])"),
       "bad.json: /services/0/args/1: expected a string"},
      {variant(R"("name": "proxy")", R"("name": "backend")"),
       "bad.json: /services/1/name: duplicate service name"},
      {variant(R"("load": {"port": "proxy"})", R"("load": {"port": "proxy", "mode": "fast"})"),
       "bad.json: /load/mode: expected closed, rate or search"},
      {variant(R"("load": {"port": "proxy"})", R"("load": {"port": "proxy", "mode": "search"})"),
       "bad.json: /load/slo_p99_us: mode search needs a p99 objective"},
      {variant(R"("load": {"port": "proxy"})", R"("load": {"port": "proxy", "headers": ["X"]})"),
       "bad.json: /load/headers/0: expected 'Name: value'"},
      {variant(R"("load": {"port": "proxy"})", R"("load": {"port": "proxy", "scheme": "ftp"})"),
       "bad.json: /load/scheme: expected http or https"},
      {variant(R"("load": {"port": "proxy"})",
               R"("load": {"port": "proxy"}, "prepare": [{"step": "x"}])"),
       "bad.json: /prepare/0/step: expected tls-cert"},
      {variant(R"("load": {"port": "proxy"})", R"("lod": {"port": "proxy"})"),
       "bad.json: /lod: unknown field"},
      {variant(R"("load": {"port": "proxy"})", R"("load": {"port": "proxy", "streams": 4})"),
       "bad.json: /load/streams: streams needs \"http2\": true"},
      {variant(R"("load": {"port": "proxy"})",
               R"("load": {"port": "proxy", "http2": true, "streams": 0})"),
       "bad.json: /load/streams: expected an integer from 1 to 1000"},
      {variant(R"("load": {"port": "proxy"})",
               R"("load": {"port": "proxy", "http2": true, "close": true})"),
       "bad.json: /load/close: close is not supported with http2"},
      {variant(R"("load": {"port": "proxy"})", R"("load": {"port": "proxy", "http2": 1})"),
       "bad.json: /load/http2: expected"},
      {variant(R"("load": {"port": "proxy"})",
               R"("load": {"port": "proxy", "requests_total": 1000})"),
       "bad.json: /load/requests_total: a request count needs its \"connections\""},
      {variant(R"("load": {"port": "proxy"})",
               R"("load": {"port": "proxy", "connections": 5, "mode": "rate",
                 "requests_total": 1000})"),
       "bad.json: /load/requests_total: a request count needs mode closed"},
      {variant(R"("load": {"port": "proxy"})",
               R"("load": {"port": "proxy", "connections": 5, "requests_total": 0})"),
       "bad.json: /load/requests_total: expected an integer from 1 to"},
      {variant(R"("load": {"port": "proxy"})", R"("load": {"port": "proxy", "threads": 0})"),
       "bad.json: /load/threads: expected an integer from 1 to 1024"},
      // The name becomes the run directory's name: "..json" would write beside the run.
      {variant(R"("name": "x")", R"("name": "..")"), "bad.json: /name: expected [a-z0-9_-]+"},
      // Environment names go before the command (`env K=V exe` on ssh hosts): "-i" would be an
      // option of env.
      {variant(R"("ready": {"port": "proxy"})",
               R"("ready": {"port": "proxy"}, "env": {"-i": "1"})"),
       "bad.json: /services/1/env/-i: expected an environment variable name"},
      {variant(R"("ready": {"port": "proxy"})",
               R"("ready": {"port": "proxy"}, "env": {"A=B": "1"})"),
       "bad.json: /services/1/env/A=B: expected an environment variable name"},
  };
  for (const auto& c : cases) {
    std::string error = error_of(c.text);
    EXPECT_EQ(error.rfind(c.expected, 0), 0u) << "got: " << error << "\nexpected: " << c.expected;
  }
}

class ScenarioDir : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ =
        fs::temp_directory_path() /
        ("gatebench-loader-" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) +
         "-" + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  void write(const std::string& name, const std::string& text) {
    std::ofstream(dir_ / name) << text;
  }
  fs::path dir_;
};

TEST_F(ScenarioDir, ExpandsOverFilesAndSorts) {
  write("x.json", kValid);
  write("rate.json", R"({"name": "rate", "description": "r", "order": 5, "over": ["x"],
                         "load": {"mode": "rate", "rate": 500}})");
  auto all = load_scenarios(dir_.string());
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(all[0].name, "rate/x");  // order 5 before the default 100
  EXPECT_EQ(all[0].group, "rate");
  EXPECT_EQ(all[0].load.mode, LoadMode::rate);
  EXPECT_EQ(all[0].load.rate, 500);
  EXPECT_EQ(all[0].load.port, "proxy");  // kept from the base scenario
  EXPECT_EQ(all[0].baseline, "rate/nginx-baseline");
  EXPECT_EQ(all[0].services.size(), 2u);
  EXPECT_EQ(all[1].name, "x");
}

TEST_F(ScenarioDir, ExpansionsTakeTheFilesErrorBudgetAndDropALatencyBaselineNotExpanded) {
  write("x.json", kValid);
  std::string w = variant(R"("name": "x")", R"("name": "w", "latency_baseline": "x")");
  write("w.json", w);
  // Both bases: w's latency baseline becomes the same expansion of x.
  write("both.json", R"({"name": "both", "description": "b", "over": ["x", "w"],
                         "max_error_rate": 0.5, "load": {"mode": "rate", "rate": 10}})");
  // w alone: x is not measured under this load, so w's expansion has no latency baseline.
  write("alone.json", R"({"name": "alone", "description": "a", "over": ["w"],
                          "load": {"mode": "rate", "rate": 10}})");
  std::map<std::string, Scenario> by_name;
  for (auto& s : load_scenarios(dir_.string())) by_name[s.name] = s;
  ASSERT_EQ(by_name.size(), 5u);
  EXPECT_EQ(by_name.at("w").latency_baseline, "x");
  EXPECT_EQ(by_name.at("both/w").latency_baseline, "both/x");
  EXPECT_EQ(by_name.at("alone/w").latency_baseline, "");
  EXPECT_EQ(by_name.at("both/x").max_error_rate, 0.5);
  EXPECT_EQ(by_name.at("both/w").max_error_rate, 0.5);
  EXPECT_FALSE(by_name.at("alone/w").max_error_rate.has_value());
  write("bad.json", R"({"name": "bad", "description": "b", "over": ["x"], "max_error_rate": 2,
                        "load": {}})");
  try {
    load_scenarios(dir_.string());
    FAIL() << "expected an error";
  } catch (const ScenarioError& e) {
    EXPECT_NE(std::string(e.what()).find("max_error_rate: expected a share"), std::string::npos)
        << e.what();
  }
}

TEST_F(ScenarioDir, NameMustMatchTheFile) {
  write("y.json", kValid);
  try {
    load_scenarios(dir_.string());
    FAIL() << "expected an error";
  } catch (const ScenarioError& e) {
    EXPECT_NE(std::string(e.what()).find("y.json: /name: expected 'y'"), std::string::npos)
        << e.what();
  }
}

TEST_F(ScenarioDir, OverNamesAnUnknownScenario) {
  write("x.json", kValid);
  write("r.json", R"({"name": "r", "description": "r", "over": ["x", "zz"], "load": {}})");
  try {
    load_scenarios(dir_.string());
    FAIL() << "expected an error";
  } catch (const ScenarioError& e) {
    EXPECT_NE(std::string(e.what()).find("r.json: /over/1: no scenario named 'zz'"),
              std::string::npos)
        << e.what();
  }
}

TEST_F(ScenarioDir, EmptyDirectoryIsAnError) {
  EXPECT_THROW(load_scenarios(dir_.string()), ScenarioError);
  EXPECT_THROW(load_scenarios((dir_ / "missing").string()), ScenarioError);
}

TEST(ScenarioLoader, Http2AndStreams) {
  const Scenario plain = parse_scenario(kValid, "x.json");
  EXPECT_FALSE(plain.load.http2);
  EXPECT_EQ(plain.load.streams, 1);
  const Scenario s = parse_scenario(
      variant(R"("load": {"port": "proxy"})",
              R"("load": {"port": "proxy", "scheme": "https", "http2": true, "streams": 10})"),
      "x.json");
  EXPECT_TRUE(s.load.http2);
  EXPECT_EQ(s.load.streams, 10);
}

TEST(ScenarioLoader, LoadThreads) {
  EXPECT_EQ(parse_scenario(kValid, "x.json").load.threads, 0);  // the run's --threads
  const Scenario s = parse_scenario(
      variant(R"("load": {"port": "proxy"})", R"("load": {"port": "proxy", "threads": 2})"),
      "x.json");
  EXPECT_EQ(s.load.threads, 2);
}

// A full handshake costs the client more than the server, a resumed one about as much: with
// fewer generator threads than the target's workers on a 2-CPU machine, the generator holds the
// rate (docs/scenarios.md, HTTPS new connections).
TEST(ShippedScenarios, NewConnectionScenariosNameTheirThreads) {
  int newconn = 0;
  for (const auto& s : load_scenarios(source_dir() + "/macro/scenarios")) {
    if (!s.load.close || s.load.scheme != "https") continue;
    SCOPED_TRACE(s.name);
    EXPECT_EQ(s.load.threads, 4);
    ++newconn;
  }
  EXPECT_GE(newconn, 6);  // nginx and the gateway: full, tickets, session cache
}

TEST(ShippedScenarios, H2ScenariosSpeakHttp2) {
  auto all = load_scenarios(source_dir() + "/macro/scenarios");
  int h2 = 0;
  for (const auto& s : all) {
    if (s.name.find("-h2") == std::string::npos) continue;
    SCOPED_TRACE(s.name);
    EXPECT_TRUE(s.load.http2);
    EXPECT_EQ(s.load.scheme, "https");
    EXPECT_EQ(s.load.streams, s.name.ends_with("-one-stream") ? 1 : 10);
    ++h2;
  }
  // nginx, haproxy and h2o, with many streams and one; the gateway's own come on top.
  EXPECT_GE(h2, 6);
}

TEST(ShippedScenarios, AllLoad) {
  auto all = load_scenarios(source_dir() + "/macro/scenarios");
  EXPECT_GE(all.size(), 6u);
  bool has_direct = false, has_baseline = false;
  for (const auto& s : all) {
    has_direct |= s.name == "direct";
    has_baseline |= s.name == "nginx-baseline";
  }
  EXPECT_TRUE(has_direct);
  EXPECT_TRUE(has_baseline);
}

}  // namespace
}  // namespace gatebench::macro
