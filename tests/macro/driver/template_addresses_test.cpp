// The shipped config templates as other hosts see them (docs/multi-host.md): no listener or
// upstream names loopback literally — listeners bind ${listen.<role>}, upstreams between roles
// are ${address.<role>} — so every scenario can run with its roles on several hosts.
#include <gtest/gtest.h>

#include <filesystem>
#include <regex>
#include <set>

#include "macro/driver/plan/hosts.hpp"
#include "macro/driver/plan/plan.hpp"
#include "macro/driver/plan/scenario.hpp"
#include "macro/driver/results/run_support.hpp"
#include "macro/driver/system/env_info.hpp"

namespace gatebench::macro {
namespace {

namespace fs = std::filesystem;

const fs::path kScenarios = fs::path(source_dir()) / "macro" / "scenarios";

// Loopback spelled out: 127.x.x.x, localhost, ::1.
const std::regex kLoopback(R"(\b127\.\d+\.\d+\.\d+\b|\blocalhost\b|\[?::1\]?(:\d|\b))");

// Lines of a template that are not comments (JSON has none; the other formats use '#').
std::vector<std::pair<int, std::string>> code_lines(const std::string& name,
                                                    const std::string& text) {
  std::vector<std::pair<int, std::string>> out;
  std::size_t start = 0;
  for (int n = 1; start <= text.size(); ++n) {
    std::size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    std::string line = text.substr(start, end - start);
    start = end + 1;
    if (!name.ends_with(".json")) {
      const auto hash = line.find('#');
      if (hash != std::string::npos) line.resize(hash);
    }
    out.emplace_back(n, line);
  }
  return out;
}

TEST(TemplateAddresses, NoShippedServiceBindsOrReachesLoopbackLiterally) {
  const std::vector<Scenario> all = load_scenarios(kScenarios.string());
  ASSERT_GT(all.size(), 20u);
  std::set<std::string> checked;
  std::string found;
  for (const Scenario& s : all) {
    for (const ServiceSpec& service : s.services) {
      // Arguments: listeners given on the command line (varnishd -a, redis --bind, control).
      for (const auto& arg : service.args)
        if (std::regex_search(arg, kLoopback))
          found += s.file + ": service " + service.name + ": argument " + arg + "\n";
      for (const ConfigFile& config : service.configs) {
        if (!checked.insert(config.template_name).second) continue;
        const std::string text =
            read_text((kScenarios / "configs" / config.template_name).string());
        ASSERT_FALSE(text.empty()) << config.template_name;
        for (const auto& [n, line] : code_lines(config.template_name, text))
          if (std::regex_search(line, kLoopback))
            found +=
                "configs/" + config.template_name + ":" + std::to_string(n) + ": " + line + "\n";
      }
    }
  }
  EXPECT_TRUE(found.empty()) << found;
  // The check read the templates of nginx, the gateway, haproxy, caddy, h2o and varnish.
  for (const char* name : {"nginx-proxy.conf", "nginx-backend.conf", "gateway.json", "haproxy.cfg",
                           "Caddyfile", "h2o-h2.conf", "varnish.vcl"})
    EXPECT_TRUE(checked.contains(name)) << name;
}

TEST(TemplateAddresses, TheCheckFindsALiteralLoopbackListener) {
  // What the check above would report: the line as nginx-proxy.conf had it.
  const auto lines = code_lines("x.conf", "# 127.0.0.1 in a comment\nlisten 127.0.0.1:8080;\n");
  int hits = 0;
  for (const auto& [n, line] : lines) hits += std::regex_search(line, kLoopback) ? n : 0;
  EXPECT_EQ(hits, 2);
  EXPECT_FALSE(std::regex_search(std::string("listen ${listen.gateway}:8080;"), kLoopback));
  EXPECT_TRUE(std::regex_search(std::string("\"upstream\": \"localhost:80\""), kLoopback));
}

// Every shipped scenario rendered with the gateway on another host: its configs and arguments
// there bind every address, name the backend at this host's address, and the load here reaches
// the target at the gateway host's address.
TEST(TemplateAddresses, EveryScenarioRendersForServicesOnAnotherHost) {
  const HostsFile hosts = parse_hosts(R"({"hosts": {
      "far": {"kind": "ssh", "address": "10.99.0.2", "workdir": "/srv/gb"},
      "here": {"kind": "local", "address": "10.99.0.1"}}})",
                                      "hosts.json");
  const Placement placement = make_placement(&hosts, "gateway=far,control=far");
  Options options;
  const CpuLayout layout = make_cpu_layout(2, {});
  Toolbox tools;
  const std::vector<Scenario> all = load_scenarios(kScenarios.string());
  const std::string out = "/tmp/gb-template-addresses/round-1";
  const auto plans =
      make_plans(all, options, layout, tools, (kScenarios / "configs").string(), out, &placement);
  ASSERT_EQ(plans.size(), all.size());
  for (const ScenarioPlan& plan : plans) {
    SCOPED_TRACE(plan.scenario.name);
    for (const ServicePlan& service : plan.services) {
      std::string text;
      for (const auto& a : service.args) text += a + " ";
      for (const auto& [path, content] : service.configs) text += content;
      if (service.role == Role::backend) {
        EXPECT_TRUE(service.host.empty());
        continue;
      }
      EXPECT_EQ(service.host, "far") << service.name;
      EXPECT_EQ(service.address, "10.99.0.2");
      EXPECT_TRUE(service.remote_dir.starts_with("/srv/gb/" + session_name() + "/round-1/"))
          << service.remote_dir;
      // Paths are the host's: nothing of this machine's run directory is left in them.
      EXPECT_EQ(text.find(plan.run_dir), std::string::npos) << service.name;
      // An upstream to the backend here is this host's address.
      if (plan.ports.contains("backend")) {
        std::string port = ":";
        port += std::to_string(plan.ports.at("backend"));
        if (text.find(port) != std::string::npos) {
          EXPECT_NE(text.find("10.99.0.1" + port), std::string::npos)
              << service.name << ": " << text;
        }
      }
    }
    if (plan.load.url.find("://127.0.0.1:") != std::string::npos) {
      // Only scenarios whose load goes to the backend (direct and its expansions) stay here.
      EXPECT_TRUE(plan.scenario.name.ends_with("direct")) << plan.load.url;
    }
  }
}

}  // namespace
}  // namespace gatebench::macro
