// The vpatch100 scenarios: the gateway (gateway-vpatch100) and nginx + ModSecurity
// (nginx-modsecurity-vpatch100) enforcing the same 100 virtual patches, whose two rule files
// tools/vpatch_rules.py writes from one feed (macro/scenarios/configs/vpatch100.json). The
// checked-in files must be what the feed gives; both scenarios run for one round of 1 s; then the
// configuration that round rendered is started again as it was and every patch's two test requests
// (one the patch must block, a benign neighbour it must pass) go through both WAFs, which must
// answer alike: 403 and 200. The open-loop group over the WAF configurations expands as
// docs/waf-peer.md says.
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "driver_exe.hpp"
#include "macro/driver/plan/scenario.hpp"
#include "macro/driver/results/run_support.hpp"
#include "macro/driver/system/env_info.hpp"
#include "macro/driver/system/net_probe.hpp"
#include "macro/driver/system/toolbox.hpp"
#include "port_offset.hpp"
#include "waf_scenarios.hpp"

namespace gatebench::macro {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;
using testing::answers;
using testing::processes_mentioning;
using testing::restart;
using testing::restart_nginx;
using testing::run_driver;
using testing::scenario;
using testing::unique_dir;

constexpr const char* kModule = "/usr/lib/nginx/modules/ngx_http_modsecurity_module.so";
constexpr const char* kPython = "/usr/bin/python3";

std::string generator() {
  return source_dir() + "/tools/vpatch_rules.py";
}

fs::path configs_dir() {
  return fs::path(source_dir()) / "macro/scenarios/configs";
}

CaptureResult run_generator(const std::vector<std::string>& args) {
  std::vector<std::string> all = {generator()};
  all.insert(all.end(), args.begin(), args.end());
  return run_capture(kPython, all, 30s);
}

int exit_status(const CaptureResult& r) {
  return WIFEXITED(r.status) ? WEXITSTATUS(r.status) : -1;
}

TEST(VpatchRules, CheckedInFilesAreWhatTheFeedGives) {
  if (access(kPython, X_OK) != 0) GTEST_SKIP() << "skipped: python3 not installed";
  CaptureResult same = run_generator({"--check"});
  EXPECT_EQ(exit_status(same), 0) << same.output;

  // --check compares: an empty directory holds neither file.
  const std::string empty = unique_dir("vpatch-empty");
  fs::create_directories(empty);
  CaptureResult stale = run_generator({"--check", "--out", empty});
  EXPECT_EQ(exit_status(stale), 1) << stale.output;
  EXPECT_NE(stale.output.find("gateway-vpatch100-rules.json"), std::string::npos) << stale.output;

  // A bad feed is named with the field at fault, and nothing is written.
  const std::string feed = empty + "/feed.json";
  std::ofstream(feed) << R"({"schema": "gatebench.vpatch/1", "patches": [{"id": "a", "title": "t",
    "when": [{"field": "path", "op": "like", "value": "/x"}], "block": {"path": "/x"},
    "pass": {"path": "/y"}}]})";
  CaptureResult bad = run_generator({"--feed", feed, "--out", empty});
  EXPECT_EQ(exit_status(bad), 2) << bad.output;
  EXPECT_NE(bad.output.find("feed.json: patches[0].when[0].op: field path takes"),
            std::string::npos)
      << bad.output;
  EXPECT_FALSE(fs::exists(empty + "/gateway-vpatch100-rules.json"));
  fs::remove_all(empty);
}

std::string skip_reason() {
  Toolbox tools;
  for (const char* tool : {"nginx", "gatebench-load", "gatebench-gateway", "gatebench-control"}) {
    if (!tools.find(tool)) return "skipped: " + Toolbox::missing_reason(tool);
  }
  if (!fs::exists(kModule))
    return std::string("skipped: libnginx-mod-http-modsecurity not installed (no ") + kModule + ")";
  for (int port : {18080, 18081, 18101, 18102}) {
    if (!port_free(port + testing::port_offset()))
      return "skipped: port " + std::to_string(port + testing::port_offset()) + " busy";
  }
  return "";
}

// A feed request (method, path, query, headers, body) as bytes on the wire.
std::string serialise(const nlohmann::json& req, const std::string& host) {
  const std::string method = req.value("method", "GET");
  std::string target = req["path"].get<std::string>();
  if (req.contains("query")) target += "?" + req["query"].get<std::string>();
  std::string head = method + " " + target + " HTTP/1.1\r\nHost: " + host + "\r\n";
  bool has_agent = false;
  const nlohmann::json headers = req.value("headers", nlohmann::json::object());
  for (const auto& [name, value] : headers.items()) {
    head += name + ": " + value.get<std::string>() + "\r\n";
    has_agent = has_agent || name == "User-Agent";
  }
  if (!has_agent) head += "User-Agent: gatebench-macro\r\n";
  const std::string body = req.value("body", "");
  if (req.contains("body") || method == "POST" || method == "PUT")
    head += "Content-Length: " + std::to_string(body.size()) + "\r\n";
  return head + "Connection: close\r\n\r\n" + body;
}

// The status code of the answer to `raw` on a new connection; 0 when none came within 5 s.
int status_of(int port, const std::string& raw) {
  const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<std::uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  std::string reply;
  if (connect(fd, reinterpret_cast<const sockaddr*>(&addr), sizeof addr) == 0 &&
      send(fd, raw.data(), raw.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(raw.size())) {
    char buf[512];
    pollfd p{fd, POLLIN, 0};
    while (reply.find("\r\n") == std::string::npos && poll(&p, 1, 5000) == 1) {
      const ssize_t n = recv(fd, buf, sizeof buf, 0);
      if (n <= 0) break;
      reply.append(buf, static_cast<std::size_t>(n));
    }
  }
  close(fd);
  // "HTTP/1.1 403 Forbidden"
  if (reply.size() < 12 || reply.compare(0, 5, "HTTP/") != 0) return 0;
  return std::atoi(reply.c_str() + 9);
}

struct Answers {
  std::vector<int> block, pass;
};

Answers send_patches(const nlohmann::json& patches, int port, const std::string& host) {
  Answers a;
  for (const auto& patch : patches) {
    a.block.push_back(status_of(port, serialise(patch["block"], host)));
    a.pass.push_back(status_of(port, serialise(patch["pass"], host)));
  }
  return a;
}

TEST(VpatchScenarios, GatewayAndModSecurityAnswerEveryPatchAlike) {
  if (const std::string reason = skip_reason(); !reason.empty()) GTEST_SKIP() << reason;
  const std::string out = unique_dir("vpatch-scenarios");
  fs::remove_all(out);
  CaptureResult r =
      run_driver({"--quick", "--rounds", "1", "--warmup", "0", "--duration", "1s", "--threads", "1",
                  "--scenarios", "gateway-vpatch100,nginx-modsecurity-vpatch100", "--port-offset",
                  std::to_string(testing::port_offset()), "--out", out},
                 90s);
  ASSERT_TRUE(WIFEXITED(r.status)) << r.output;
  EXPECT_EQ(WEXITSTATUS(r.status), 0) << r.output;
  std::ifstream in(out + "/macro.json");
  ASSERT_TRUE(in) << r.output;
  const nlohmann::json report = nlohmann::json::parse(in);
  ASSERT_EQ(report["scenarios"].size(), 3u) << report["scenarios"].dump();  // and nginx-baseline
  for (const char* name : {"gateway-vpatch100", "nginx-modsecurity-vpatch100"}) {
    SCOPED_TRACE(name);
    const nlohmann::json* s = scenario(report, name);
    ASSERT_NE(s, nullptr);
    ASSERT_EQ((*s)["status"], "ok") << (*s)["reason"];
    // gateway-protected's benign traffic: no patch matches it.
    EXPECT_GT((*s)["requests"].get<std::uint64_t>(), 100u);
    EXPECT_EQ((*s)["errors"].get<std::uint64_t>(), 0u);
  }
  ASSERT_TRUE(processes_mentioning(out).empty());

  std::ifstream feed_in(configs_dir() / "vpatch100.json");
  const nlohmann::json patches = nlohmann::json::parse(feed_in)["patches"];
  ASSERT_EQ(patches.size(), 100u);
  const fs::path gateway_dir = fs::path(out) / "round-1" / "gateway-vpatch100";
  const fs::path nginx_dir = fs::path(out) / "round-1" / "nginx-modsecurity-vpatch100";
  const int proxy_port = 18081 + testing::port_offset();
  ChildProcess backend = restart_nginx(nginx_dir, "backend");
  ASSERT_TRUE(answers(18080 + testing::port_offset()))
      << read_text(nginx_dir / "backend.again.log");
  Answers modsecurity, gateway;
  {
    ChildProcess proxy = restart_nginx(nginx_dir, "proxy");
    ASSERT_TRUE(answers(proxy_port)) << read_text(nginx_dir / "proxy.again.log");
    modsecurity = send_patches(patches, proxy_port, "protected.test");
    EXPECT_TRUE(proxy.stop());
  }
  {
    ChildProcess gw =
        restart("gatebench-gateway", {"--config", (gateway_dir / "gateway.json").string()},
                gateway_dir / "gateway.again.log");
    ASSERT_TRUE(answers(proxy_port)) << read_text(gateway_dir / "gateway.again.log");
    gateway = send_patches(patches, proxy_port, "vpatch.test");
    EXPECT_TRUE(gw.stop());
  }
  EXPECT_TRUE(backend.stop());

  for (std::size_t i = 0; i < patches.size(); ++i) {
    const std::string id = patches[i]["id"];
    EXPECT_EQ(modsecurity.block[i], 403) << id << " ModSecurity, block: " << patches[i]["block"];
    EXPECT_EQ(gateway.block[i], 403) << id << " gateway, block: " << patches[i]["block"];
    EXPECT_EQ(modsecurity.pass[i], 200) << id << " ModSecurity, pass: " << patches[i]["pass"];
    EXPECT_EQ(gateway.pass[i], 200) << id << " gateway, pass: " << patches[i]["pass"];
  }
  // ModSecurity, not nginx, refused them, with the patch's message.
  EXPECT_NE(read_text(nginx_dir / "proxy" / "error.log").find("[msg \"vp-100"), std::string::npos);
  EXPECT_TRUE(processes_mentioning(out).empty());
  fs::remove_all(out);
}

// waf-latency-at-rate: the waf-mix request mix at one offered rate through every WAF
// configuration, each expansion compared with the same expansion of nginx-baseline.
TEST(VpatchScenarios, WafLatencyGroupCoversEveryWafConfiguration) {
  const std::vector<std::string> bases = {"nginx-baseline",         "gateway-no-waf",
                                          "gateway-protected",      "gateway-vpatch100",
                                          "nginx-modsecurity-none", "nginx-modsecurity-vpatch100",
                                          "nginx-modsecurity-crs"};
  std::vector<std::string> found;
  for (const Scenario& s : load_scenarios(source_dir() + "/macro/scenarios")) {
    if (s.group != "waf-latency-at-rate") continue;
    SCOPED_TRACE(s.name);
    found.push_back(s.name.substr(s.group.size() + 1));
    EXPECT_EQ(s.load.mode, LoadMode::rate);
    EXPECT_EQ(s.load.rate, 200);
    EXPECT_EQ(s.load.requests, "waf-mix-requests.json");
    EXPECT_EQ(s.baseline, "waf-latency-at-rate/nginx-baseline");
    EXPECT_TRUE(s.latency_baseline.empty());
  }
  std::sort(found.begin(), found.end());
  std::vector<std::string> expected = bases;
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(found, expected);
}

}  // namespace
}  // namespace gatebench::macro
