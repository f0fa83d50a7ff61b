// Workloads x targets (macro/driver/plan/targets.*): the shipped targets' expansions are the
// shipped scenario files they stand for, and every bad target file is one error naming the file
// and JSON pointer.
#include "macro/driver/plan/targets.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <string>

#include "macro/common/usage_error.hpp"

namespace gatebench::macro {
namespace {

namespace fs = std::filesystem;

const std::string kScenarioDir = std::string(GATEBENCH_SOURCE_DIR) + "/macro/scenarios";
const std::string kWorkloadDir = std::string(GATEBENCH_SOURCE_DIR) + "/macro/workloads";
const std::string kTargetDir = std::string(GATEBENCH_SOURCE_DIR) + "/macro/targets";

const Scenario& shipped(const std::vector<Scenario>& all, const std::string& name) {
  for (const auto& s : all)
    if (s.name == name) return s;
  throw std::runtime_error("no shipped scenario " + name);
}

const Workload& workload(const std::vector<Workload>& all, const std::string& name) {
  for (const auto& w : all)
    if (w.name == name) return w;
  throw std::runtime_error("no workload " + name);
}

// What the driver runs: everything but the name, description, order and file.
void expect_same_run(const Scenario& got, const Scenario& want) {
  SCOPED_TRACE(got.name + " against " + want.name);
  EXPECT_EQ(got.ports, want.ports);
  EXPECT_EQ(got.prepare, want.prepare);
  ASSERT_EQ(got.services.size(), want.services.size());
  for (size_t i = 0; i < got.services.size(); ++i)
    EXPECT_TRUE(got.services[i] == want.services[i]) << "service " << want.services[i].name;
  EXPECT_TRUE(got.load == want.load);
  EXPECT_EQ(got.baseline, want.baseline);
  EXPECT_EQ(got.requires_tools, want.requires_tools);
  EXPECT_EQ(got.latency_baseline, want.latency_baseline);
  EXPECT_EQ(got.max_error_rate, want.max_error_rate);
  ASSERT_EQ(got.cache.has_value(), want.cache.has_value());
  if (got.cache) {
    EXPECT_EQ(got.cache->status_header, want.cache->status_header);
    EXPECT_EQ(got.cache->hit_values, want.cache->hit_values);
    EXPECT_EQ(got.cache->expect_lo, want.cache->expect_lo);
    EXPECT_EQ(got.cache->expect_hi, want.cache->expect_hi);
  }
  EXPECT_TRUE(got.unavailable.empty());
}

TEST(Targets, ShippedExpansionsAreTheShippedScenarios) {
  const auto scenarios = load_scenarios(kScenarioDir);
  const auto workloads = load_workloads(kWorkloadDir);
  const Target nginx = load_target(kTargetDir + "/nginx.json", workloads, kScenarioDir);
  const Target gateway = load_target(kTargetDir + "/gateway.json", workloads, kScenarioDir);
  const Target haproxy = load_target(kTargetDir + "/haproxy.json", workloads, kScenarioDir);
  const Target caddy = load_target(kTargetDir + "/caddy.json", workloads, kScenarioDir);
  const Target h2o = load_target(kTargetDir + "/h2o.json", workloads, kScenarioDir);
  const Target varnish = load_target(kTargetDir + "/varnish.json", workloads, kScenarioDir);
  struct Pair {
    const Target* target;
    const char* workload;
    const char* scenario;
    const char* baseline;  // the shipped baseline's expansion name
    const char* latency_baseline = "";
  };
  const Pair pairs[] = {
      {&nginx, "plain", "nginx-baseline", "nginx-plain"},
      {&nginx, "https-keepalive", "nginx-https-keepalive", "nginx-https-keepalive"},
      {&nginx, "https-newconn", "nginx-https-newconn", "nginx-https-newconn"},
      {&nginx, "h2", "nginx-h2-baseline", "nginx-h2"},
      {&nginx, "h2-one-stream", "nginx-h2-one-stream", "nginx-h2-one-stream"},
      {&gateway, "plain", "gateway-default", "nginx-plain"},
      {&gateway, "https-keepalive", "gateway-https-keepalive", "nginx-https-keepalive"},
      {&gateway, "https-newconn", "gateway-https-newconn", "nginx-https-newconn"},
      {&gateway, "h2", "gateway-h2", "nginx-h2"},
      {&gateway, "h2-one-stream", "gateway-h2-one-stream", "nginx-h2-one-stream"},
      {&haproxy, "plain", "haproxy-baseline", "nginx-plain"},
      {&caddy, "plain", "caddy-baseline", "nginx-plain"},
      {&h2o, "h2", "h2o-h2", "nginx-h2"},
      {&h2o, "h2-one-stream", "h2o-h2-one-stream", "nginx-h2-one-stream"},
      // The seed method's workloads: a plain proxy is their baseline (nginx-baseline).
      {&gateway, "protected", "gateway-protected", "nginx-plain"},
      {&gateway, "queue", "gateway-queue", "nginx-plain"},
      {&gateway, "challenge-pass", "gateway-challenge-pass", "nginx-plain"},
      {&gateway, "unknown-host", "gateway-unknown-host", "nginx-plain"},
      {&gateway, "waf-mix", "waf-mix", "nginx-plain", "gateway-plain"},
      {&gateway, "cache-hit", "gateway-cache-memory-hit", "nginx-plain"},
      {&gateway, "cache-miss", "gateway-cache-miss", "nginx-plain"},
      {&gateway, "cache-uncacheable", "gateway-cache-redis-uncacheable", "nginx-plain"},
      {&gateway, "latency-at-rate", "latency-at-rate/gateway-default", "nginx-latency-at-rate"},
      {&gateway, "max-throughput", "max-throughput/gateway-default", "nginx-max-throughput"},
      {&nginx, "protected", "nginx-modsecurity-crs", "nginx-plain"},
      {&nginx, "waf-mix", "waf-mix-modsecurity", "nginx-plain", "nginx-plain"},
      {&nginx, "cache-hit", "nginx-proxy-cache-hit", "nginx-plain"},
      {&nginx, "latency-at-rate", "latency-at-rate/nginx-baseline", "nginx-latency-at-rate"},
      {&nginx, "max-throughput", "max-throughput/nginx-baseline", "nginx-max-throughput"},
      {&varnish, "cache-hit", "varnish-hit", "nginx-plain"},
  };
  for (const Pair& p : pairs) {
    Scenario got = expand(*p.target, workload(workloads, p.workload));
    EXPECT_EQ(got.name, p.target->name + "-" + p.workload);
    Scenario want = shipped(scenarios, p.scenario);
    want.baseline = p.baseline;  // the shipped files name their baselines the old way
    want.latency_baseline = p.latency_baseline;
    expect_same_run(got, want);
  }
}

TEST(Targets, HaproxyOverHttp2KeepsItsOwnCertificateFile) {
  // haproxy loads its key from <certificate>.key (tls.pem, tls.pem.key): its feature adds that
  // step after the workload's, whose tls.crt is made as well, unused.
  const auto scenarios = load_scenarios(kScenarioDir);
  const auto workloads = load_workloads(kWorkloadDir);
  const Target haproxy = load_target(kTargetDir + "/haproxy.json", workloads, kScenarioDir);
  for (const char* w : {"h2", "h2-one-stream"}) {
    const Scenario got = expand(haproxy, workload(workloads, w));
    const Scenario& want = shipped(scenarios, std::string("haproxy-") + w);
    EXPECT_EQ(got.ports, want.ports);
    EXPECT_TRUE(got.services == want.services) << w;
    EXPECT_TRUE(got.load == want.load) << w;
    ASSERT_EQ(got.prepare.size(), 2u);
    EXPECT_TRUE(got.prepare[1] == want.prepare.at(0));  // the last: ${tls.cert} is its file
  }
}

// A scratch directory with a target file (and templates beside it).
class TargetFile : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("gatebench-targets-" + std::to_string(getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    std::ofstream(dir_ / "gw.conf") << "listen ${port.http};\n";
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string write(const std::string& text) {
    const std::string file = (dir_ / "mygw.json").string();
    std::ofstream(file) << text;
    return file;
  }
  // The error loading `text` gives, or "no error".
  std::string error_of(const std::string& text) {
    const std::string file = write(text);
    try {
      load_target(file, load_workloads(kWorkloadDir), kScenarioDir);
    } catch (const common::UsageError& e) {
      return e.what();
    }
    return "no error";
  }
  // The target `text` expanded with the shipped workload `name`.
  Scenario expanded(const std::string& text, const std::string& name) {
    const auto workloads = load_workloads(kWorkloadDir);
    return expand(load_target(write(text), workloads, kScenarioDir), workload(workloads, name));
  }
  static std::string good(const std::string& extra_top = "", const std::string& plain = "") {
    return R"({"name": "mygw", "description": "d", "binary": "mygw",
      "args": ["-c", "${run_dir}/gw.conf"], )" +
           extra_top + R"(
      "configs": [{"template": "gw.conf", "output": "gw.conf"}],
      "ports": {"http": 18081, "https": 18443},
      "features": {"plain": {)" +
           plain + R"(}, "https": {}}})";
  }

  fs::path dir_;
};

TEST_F(TargetFile, TemplatesBesideTheFileAndDefaults) {
  const Scenario s = expanded(good(), "plain");
  EXPECT_EQ(s.name, "mygw-plain");
  EXPECT_EQ(s.baseline, "nginx-plain");
  EXPECT_EQ(s.load.port, "http");
  EXPECT_EQ(s.ports.at("backend"), 18080);
  ASSERT_EQ(s.services.size(), 2u);
  EXPECT_EQ(s.services[0].name, "backend");
  const ServiceSpec& gw = s.services[1];
  EXPECT_EQ(gw.name, "mygw");
  EXPECT_EQ(gw.role, Role::gateway);
  EXPECT_TRUE(gw.sample);
  EXPECT_EQ(gw.templates, fs::absolute(dir_).lexically_normal().string());
  EXPECT_EQ(gw.ready.port, "http");  // a TCP connect to the load's port by default
  EXPECT_TRUE(gw.ready.http_path.empty());
  const Scenario https = expanded(good(), "https-keepalive");
  EXPECT_EQ(https.load.port, "https");
  EXPECT_EQ(https.load.scheme, "https");
  ASSERT_EQ(https.prepare.size(), 1u);
  EXPECT_EQ(https.prepare[0].step, "tls-cert");
}

TEST_F(TargetFile, AWorkloadNotOfferedIsSkippedWithTheReason) {
  const Scenario s = expanded(good(), "h2");
  EXPECT_EQ(s.name, "mygw-h2");
  EXPECT_EQ(s.unavailable, "mygw does not offer feature 'h2' (workload h2)");
}

TEST_F(TargetFile, FeatureHeadersComeBeforeTheWorkloads) {
  const Scenario s = expanded(good("", R"("headers": ["Host: a.test"], "path": "/x")"), "plain");
  EXPECT_EQ(s.load.headers, (std::vector<std::string>{"Host: a.test"}));
  EXPECT_EQ(s.load.path, "/x");
}

TEST_F(TargetFile, EachBadFileIsOneErrorNamingFileAndPointer) {
  const std::string file = (dir_ / "mygw.json").string();
  auto expect_error = [&](const std::string& text, const std::string& want) {
    const std::string got = error_of(text);
    EXPECT_NE(got.find(file + ": " + want), std::string::npos) << got;
  };
  expect_error(good(R"("lod": 1,)"), "/lod: unknown field");
  expect_error(good("", R"("configs": [{"template": "nope.conf", "output": "gw.conf"}])"),
               "/features/plain/configs/0/template: template 'nope.conf' not found in " +
                   fs::absolute(dir_).lexically_normal().string());
  expect_error(R"({"name": "mygw", "description": "d", "binary": "mygw",
      "configs": [{"template": "gone.conf", "output": "gw.conf"}],
      "ports": {"http": 18081}, "features": {"plain": {}}})",
               "/configs/0/template: template 'gone.conf' not found");
  // https-keepalive connects to the https port: a feature without one cannot run it.
  expect_error(R"({"name": "mygw", "description": "d", "binary": "mygw",
      "ports": {"http": 18081}, "features": {"https": {}}})",
               "/features/https: workload 'https-keepalive' connects to the target's https port: "
               "name one in \"port\" or add \"https\" to /ports");
  expect_error(good("", R"("port": "tls")"), "/features/plain/port: 'tls' is not in ports");
  expect_error(R"({"name": "mygw", "description": "d", "binary": "mygw",
      "ports": {"http": 18081}, "features": {"quic": {}}})",
               "/features/quic: no workload needs feature 'quic' (features: ");
  expect_error(R"({"name": "mygw", "description": "d", "binary": "mygw",
      "ports": {"http": 18081, "backend": 9000}, "features": {"plain": {}}})",
               "/ports/backend: reserved for the shipped backend");
  expect_error(R"({"name": "mygw", "description": "d",
      "ports": {"http": 18081}, "features": {"plain": {}}})",
               "/binary: missing (expected the target's executable");
  expect_error(good("", R"("ready": {"port": "admin"})"),
               "/features/plain/ready/port: 'admin' is not in ports");
  expect_error(good("", R"("args": [1])"), "/features/plain/args/0: expected a string");
  expect_error(R"({"name": "mygw", "description": "d", "binary": "mygw", "use": "gatewy",
      "ports": {"http": 18081}, "features": {"plain": {}}})",
               "/use: no block 'gatewy'");
}

TEST_F(TargetFile, AnImageTargetRunsTheImageWithTheRunDirectoryMounted) {
  const Scenario s = expanded(R"({"name": "mygw", "description": "d", "image": "localhost/mygw:1",
      "mount": "/etc/mygw", "args": ["--config", "/etc/mygw/gw.conf"],
      "configs": [{"template": "gw.conf", "output": "gw.conf"}],
      "ports": {"http": 18081}, "features": {"plain": {}}})",
                              "plain");
  ASSERT_EQ(s.services.size(), 2u);
  const ServiceSpec& gw = s.services[1];
  EXPECT_EQ(gw.image, "localhost/mygw:1");
  EXPECT_EQ(gw.mount, "/etc/mygw");
  EXPECT_EQ(gw.image_at, "/image");  // errors about the image point at the target file's field
  EXPECT_TRUE(gw.binary.empty());
  EXPECT_EQ(gw.args, (std::vector<std::string>{"--config", "/etc/mygw/gw.conf"}));
  EXPECT_TRUE(s.services[0].image.empty());  // the backend stays the shipped one
  // A shipped block run from an image: its arguments and configs, the image's program.
  const Scenario used = expanded(R"({"name": "mygw", "description": "d", "use": "gateway",
      "image": "localhost/mygw:1", "templates": ")" +
                                     kScenarioDir + R"(/configs",
      "ports": {"proxy": 18081}, "features": {"plain": {"port": "proxy"}}})",
                                 "plain");
  EXPECT_EQ(used.services[1].image, "localhost/mygw:1");
  EXPECT_TRUE(used.services[1].binary.empty());
  EXPECT_FALSE(used.services[1].configs.empty());
}

TEST_F(TargetFile, EachBadImageTargetIsOneErrorNamingFileAndPointer) {
  const std::string file = (dir_ / "mygw.json").string();
  auto expect_error = [&](const std::string& text, const std::string& want) {
    const std::string got = error_of(text);
    EXPECT_NE(got.find(file + ": " + want), std::string::npos) << got;
  };
  auto image = [](const std::string& fields) {
    return R"({"name": "mygw", "description": "d", )" + fields +
           R"(, "ports": {"http": 18081}, "features": {"plain": {}}})";
  };
  expect_error(image(R"("image": "localhost/mygw:1", "mountt": "/etc/mygw")"),
               "/mountt: unknown field");
  expect_error(image(R"("image": "localhost/mygw:1", "binary": "mygw")"),
               "/image: expected either \"binary\" or \"image\", not both");
  expect_error(image(R"("image": "--privileged")"), "/image: expected a local image name or ID");
  expect_error(image(R"("image": "localhost/mygw:1", "mount": "etc/mygw")"),
               "/mount: expected an absolute directory inside the image");
  expect_error(image(R"("image": "localhost/mygw:1", "mount": "/etc:/x")"),
               "/mount: expected an absolute directory inside the image");
  expect_error(image(R"("binary": "mygw", "mount": "/etc/mygw")"), "/mount: only with \"image\"");
  expect_error(R"({"name": "mygw", "description": "d", "image": "localhost/mygw:1",
      "ports": {"http": 18081}, "features": {"plain": {"image": "other"}}})",
               "/features/plain/image: unknown field");
}

TEST_F(TargetFile, AFeatureWithoutWhatItsWorkloadNeeds) {
  // A workload that needs the Host header selecting a configuration, beside the shipped ones.
  const fs::path workloads = dir_ / "workloads";
  fs::create_directories(workloads);
  fs::copy(kWorkloadDir + "/plain.json", workloads / "plain.json");
  std::ofstream(workloads / "protected.json") << R"({"name": "protected", "description": "d",
    "feature": "protected", "baseline": "nginx",
    "needs": {"headers": "the Host header of the protected configuration"},
    "load": {"port": "http"}})";
  const std::string file = write(R"({"name": "mygw", "description": "d", "binary": "mygw",
      "ports": {"http": 18081}, "features": {"plain": {}, "protected": {}}})");
  try {
    load_target(file, load_workloads(workloads.string()), kScenarioDir);
    ADD_FAILURE() << "no error";
  } catch (const common::UsageError& e) {
    EXPECT_EQ(std::string(e.what()),
              file +
                  ": /features/protected: missing \"headers\": workload 'protected' needs the "
                  "Host header of the protected configuration");
  }
}

TEST(Targets, UnknownWorkloadIsAUsageError) {
  try {
    target_scenarios({"nginx"}, {"plain", "nope"}, kWorkloadDir, kScenarioDir);
    ADD_FAILURE() << "no error";
  } catch (const common::UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("--workloads: no workload named 'nope' (known: "),
              std::string::npos)
        << e.what();
  }
}

TEST(Targets, UnknownShippedTargetNamesTheKnownOnes) {
  try {
    target_file("lighttpd");
    ADD_FAILURE() << "no error";
  } catch (const common::UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("--target: no shipped target named 'lighttpd' (known: "
                                         "caddy, gateway, h2o, haproxy, httpd, nginx, varnish; "),
              std::string::npos)
        << e.what();
  }
  EXPECT_EQ(target_file("./mine.json"), "./mine.json");
}

TEST(Targets, SelectionHasTheTargetsAndTheBaselinesBeside) {
  const TargetRun run =
      target_scenarios({"gateway"}, {"plain", "https-newconn"}, kWorkloadDir, kScenarioDir);
  EXPECT_EQ(run.selected, (std::vector<std::string>{"gateway-plain", "gateway-https-newconn"}));
  std::vector<std::string> names;
  for (const auto& s : run.scenarios) names.push_back(s.name);
  EXPECT_EQ(names, (std::vector<std::string>{"gateway-plain", "gateway-https-newconn",
                                             "nginx-plain", "nginx-https-newconn"}));
}

TEST(Targets, HttpdOffersEveryWorkloadFromItsOwnConfiguration) {
  // Apache httpd runs in the foreground from its rendered configuration alone (apache2 -f),
  // never from /etc/apache2 or its service.
  const auto workloads = load_workloads(kWorkloadDir);
  const Target httpd = load_target(kTargetDir + "/httpd.json", workloads, kScenarioDir);
  std::set<std::string> features;
  for (const auto& [feature, offer] : httpd.offers) features.insert(feature);
  EXPECT_EQ(features, (std::set<std::string>{"h2", "https", "https-full", "plain"}));
  for (const auto& w : workloads) {
    if (!features.contains(w.feature)) continue;
    const Scenario s = expand(httpd, w);
    SCOPED_TRACE(s.name);
    EXPECT_TRUE(s.unavailable.empty());
    const ServiceSpec& proxy = s.services.back();
    EXPECT_EQ(proxy.binary, "apache2");
    EXPECT_EQ(proxy.role, Role::gateway);
    EXPECT_EQ(proxy.args,
              (std::vector<std::string>{"-f", "${run_dir}/httpd.conf", "-DFOREGROUND"}));
    EXPECT_EQ(s.ports.at("proxy"), w.load["port"] == "https" ? 18443 : 18081);
    ASSERT_EQ(proxy.configs.size(), 2u);
    EXPECT_EQ(proxy.configs[1].output, "httpd-listen.conf");
  }
}

TEST(Targets, LatencyAndBaselineWorkloadsJoinTheRun) {
  // waf-mix reports latency as deltas from the same target's plain workload and is compared
  // with nginx on plain: both join the run unselected, each once.
  const TargetRun run =
      target_scenarios({"gateway"}, {"waf-mix", "protected"}, kWorkloadDir, kScenarioDir);
  EXPECT_EQ(run.selected, (std::vector<std::string>{"gateway-protected", "gateway-waf-mix"}));
  std::vector<std::string> names;
  for (const auto& s : run.scenarios) names.push_back(s.name);
  EXPECT_EQ(names, (std::vector<std::string>{"gateway-protected", "gateway-waf-mix",
                                             "gateway-plain", "nginx-plain"}));
  EXPECT_EQ(run.scenarios[1].latency_baseline, "gateway-plain");
  EXPECT_EQ(run.scenarios[1].baseline, "nginx-plain");
}

TEST(Targets, ShippedTargetsAllLoad) {
  const auto workloads = load_workloads(kWorkloadDir);
  int n = 0;
  for (const auto& entry : fs::directory_iterator(kTargetDir)) {
    if (entry.path().extension() != ".json") continue;
    SCOPED_TRACE(entry.path().string());
    const Target t = load_target(entry.path().string(), workloads, kScenarioDir);
    EXPECT_EQ(t.name, entry.path().stem().string());
    EXPECT_FALSE(t.offers.empty());
    for (const auto& w : workloads) expand(t, w);  // every offered pair parses
    ++n;
  }
  EXPECT_GE(n, 2);
}

}  // namespace
}  // namespace gatebench::macro
