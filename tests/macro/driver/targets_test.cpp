// Workloads x targets (macro/driver/plan/targets.*): the names of pairs (macro/scenarios/
// names.json) run what the scenario files they replaced held, and every bad target file or names
// table entry is one error naming the file and JSON pointer.
#include "macro/driver/plan/targets.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string>

#include "driver_exe.hpp"
#include "macro/common/usage_error.hpp"
#include "macro/driver/plan/options.hpp"
#include "macro/driver/plan/plan.hpp"
#include "macro/driver/plan/scenario_names.hpp"
#include "macro/driver/system/toolbox.hpp"

namespace gatebench::macro {
namespace {

namespace fs = std::filesystem;

const std::string kScenarioDir = std::string(GATEBENCH_SOURCE_DIR) + "/macro/scenarios";
const std::string kWorkloadDir = std::string(GATEBENCH_SOURCE_DIR) + "/macro/workloads";
const std::string kTargetDir = std::string(GATEBENCH_SOURCE_DIR) + "/macro/targets";

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

// The scenario files a name of macro/scenarios/names.json replaced, as they were before they
// were deleted, loaded from a scratch directory beside the shipped service blocks. Two changes:
// haproxy-h2* use the workload's certificate, and gateway-decision, gateway-no-waf and
// gateway-vpatch100 have the gateway target's other ports too (proxy, proxy_tls: bind-checked,
// unused by their configurations).
std::map<std::string, Scenario> files_before(const fs::path& dir) {
  std::ifstream in(std::string(GATEBENCH_SOURCE_DIR) +
                   "/tests/macro/driver/data/named-scenarios-before.json");
  const nlohmann::json before = nlohmann::json::parse(in);
  fs::remove_all(dir);
  fs::create_directories(dir);
  fs::create_directory_symlink(kScenarioDir + "/services", dir / "services");
  for (const auto& [name, content] : before.items())
    std::ofstream(dir / (name + ".json")) << content.dump(2);
  std::map<std::string, Scenario> out;
  for (Scenario& s : load_scenarios(dir.string())) out.emplace(s.name, std::move(s));
  fs::remove_all(dir);
  return out;
}

TEST(NamedScenarios, EveryNameRunsWhatItsFileHeld) {
  const auto before =
      files_before(fs::temp_directory_path() / ("gatebench-named-" + std::to_string(getpid())));
  std::map<std::string, const Scenario*> now;
  const auto scenarios = load_scenarios(kScenarioDir);
  for (const auto& s : scenarios) now[s.name] = &s;
  std::ifstream in(kScenarioDir + "/names.json");
  const nlohmann::json table = nlohmann::json::parse(in);
  // Names given after the files were gone, to pairs that never had one (--list shows them).
  const std::set<std::string> never_files = {"haproxy-https-keepalive", "haproxy-https-newconn"};
  for (const std::string& name : never_files) {
    EXPECT_TRUE(table.contains(name)) << name;
    EXPECT_FALSE(before.contains(name)) << name;
  }
  EXPECT_EQ(table.size(), before.size() + never_files.size());
  for (const auto& [name, want] : before) {
    ASSERT_TRUE(table.contains(name)) << name << " is not in names.json";
    ASSERT_TRUE(now.contains(name)) << name;
    const Scenario& got = *now.at(name);
    EXPECT_FALSE(fs::exists(kScenarioDir + "/" + name + ".json")) << name;
    EXPECT_EQ(got.order, want.order) << name;  // the same place in every round's order
    expect_same_run(got, want);
    // The named pair's target file, where the scenario's configuration now comes from.
    EXPECT_EQ(fs::path(got.file).filename(), table[name]["target"].get<std::string>() + ".json");
  }
  // The expansions of "over" files over a name are those of its pair (latency-at-rate/gateway-
  // default is gateway x latency-at-rate).
  const auto workloads = load_workloads(kWorkloadDir);
  const Target gateway = load_target(kTargetDir + "/gateway.json", workloads, kScenarioDir);
  const Target nginx = load_target(kTargetDir + "/nginx.json", workloads, kScenarioDir);
  for (const auto& [target, base] :
       {std::pair{&gateway, "gateway-default"}, std::pair{&nginx, "nginx-baseline"}}) {
    for (const char* w : {"latency-at-rate", "max-throughput"}) {
      Scenario want = expand(*target, workload(workloads, w));
      want.baseline = std::string(w) + "/nginx-baseline";
      expect_same_run(*now.at(std::string(w) + "/" + base), want);
    }
  }
}

// --print-scenario gives a name as a scenario file would hold it, so a study copies the driver's
// expansion instead of re-implementing it (tools/studies/studylib.py).
TEST(NamedScenarios, PrintScenarioIsTheExpansionAsAFile) {
  std::map<std::string, const Scenario*> now;
  const auto scenarios = load_scenarios(kScenarioDir);
  for (const auto& s : scenarios) now[s.name] = &s;
  for (const char* name : {"gateway-default", "gateway-protected", "nginx-modsecurity-vpatch100"}) {
    const CaptureResult r = testing::run_driver({"--print-scenario", name});
    ASSERT_EQ(testing::exit_code(r), 0) << r.output;
    const nlohmann::json object = nlohmann::json::parse(r.output);
    EXPECT_EQ(object["name"], name);
    const Scenario printed = parse_scenario_object(object, name);
    EXPECT_EQ(printed.order, now.at(name)->order);
    expect_same_run(printed, *now.at(name));
  }
  // A scenario file is printed as it is.
  const CaptureResult direct = testing::run_driver({"--print-scenario", "direct"});
  ASSERT_EQ(testing::exit_code(direct), 0) << direct.output;
  std::ifstream in(kScenarioDir + "/direct.json");
  EXPECT_EQ(nlohmann::json::parse(direct.output), nlohmann::json::parse(in));
  for (const char* bad : {"no-such-scenario", "names", "latency-at-rate/gateway-default"}) {
    const CaptureResult r = testing::run_driver({"--print-scenario", bad});
    EXPECT_EQ(testing::exit_code(r), 2) << bad;
    EXPECT_NE(r.output.find(std::string("gatebench-macro: ") + bad + ": neither a name of "),
              std::string::npos)
        << r.output;
  }
}

// A scratch scenario directory with the shipped service blocks and a names.json of its own.
class NamesFile : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("gatebench-names-" + std::to_string(getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    fs::create_directory_symlink(kScenarioDir + "/services", dir_ / "services");
    fs::create_directory_symlink(kScenarioDir + "/configs", dir_ / "configs");
    std::ifstream in(kScenarioDir + "/direct.json");
    std::ofstream(dir_ / "direct.json") << in.rdbuf();
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string file() const { return (dir_ / "names.json").string(); }
  // The error loading the directory with `table` as its names.json, or "no error".
  std::string error_of(const std::string& table) {
    std::ofstream(file()) << table;
    try {
      load_scenarios(dir_.string());
    } catch (const common::UsageError& e) {
      return e.what();
    }
    return "no error";
  }

  fs::path dir_;
};

TEST_F(NamesFile, ANameIsItsPairUnderItsNameWithItsBaselinesNamed) {
  std::ofstream(file()) << R"({
    "base": {"target": "nginx", "workload": "plain", "order": 7},
    "mine": {"target": "gateway", "workload": "waf-mix"},
    "mine-plain": {"target": "gateway", "workload": "plain"}})";
  std::map<std::string, Scenario> by_name;
  for (Scenario& s : load_scenarios(dir_.string())) by_name.emplace(s.name, std::move(s));
  ASSERT_TRUE(by_name.contains("mine"));
  EXPECT_EQ(by_name.at("base").order, 7);
  EXPECT_EQ(by_name.at("base").baseline, "base");
  EXPECT_EQ(by_name.at("mine").order, 100);
  EXPECT_EQ(by_name.at("mine").baseline, "base");
  EXPECT_EQ(by_name.at("mine").latency_baseline, "mine-plain");
  EXPECT_EQ(by_name.at("mine").load.requests, "waf-mix-requests.json");
  EXPECT_TRUE(by_name.contains("direct"));  // the files beside
}

TEST_F(NamesFile, EachBadEntryIsOneErrorNamingFileAndPointer) {
  auto expect_error = [&](const std::string& table, const std::string& want) {
    const std::string got = error_of(table);
    EXPECT_NE(got.find(file() + ": " + want), std::string::npos) << got;
  };
  const std::string base = R"("nginx-baseline": {"target": "nginx", "workload": "plain"})";
  expect_error("{" + base + R"(, "x": {"target": "nginx", "workload": "plain"}})",
               "/x: the pair nginx x plain is named 'nginx-baseline' already");
  expect_error(R"({"x": {"target": "nginx", "workload": "plain", "ordr": 1}})",
               "/x/ordr: unknown field");
  expect_error(R"({"x": {"target": "lighttpd", "workload": "plain"}})",
               "/x/target: no shipped target 'lighttpd' (known: caddy, gateway, ");
  expect_error(R"({"x": {"target": "nginx", "workload": "plane"}})",
               "/x/workload: no workload named 'plane' (known: ");
  expect_error("{" + base + R"(, "x": {"target": "caddy", "workload": "queue"}})",
               "/x: caddy does not offer feature 'queue' (workload queue)");
  expect_error(R"({"x": {"target": "gateway", "workload": "plain"}})",
               "/x: its baseline nginx-plain has no name in this table: name it too");
  expect_error(R"({"X": {"target": "nginx", "workload": "plain"}})",
               "/X: expected a scenario name [a-z0-9_-]+");
  expect_error(R"({"direct": {"target": "nginx", "workload": "plain"}})",
               "/direct: also the scenario file direct.json: one or the other");
  expect_error(R"({"x": {"target": "nginx"}})", "/x/workload: missing");
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

TEST_F(TargetFile, AFeaturesStepsReplaceTheTargets) {
  // The target's certificate step, or none where the feature says so (a decision API without
  // TLS), and the workload's own steps either way.
  const std::string tls = R"("prepare": [{"step": "tls-cert"}],)";
  EXPECT_EQ(expanded(good(tls), "plain").prepare.size(), 1u);
  EXPECT_TRUE(expanded(good(tls, R"("prepare": [])"), "plain").prepare.empty());
  EXPECT_EQ(expanded(good(tls, R"("prepare": [])"), "https-keepalive").prepare.size(), 1u);
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
  // The decision workload asks the target's own endpoint with its own request headers.
  expect_error(R"({"name": "mygw", "description": "d", "binary": "mygw",
      "ports": {"http": 18081}, "features": {"decision": {"path": "/auth"}}})",
               "/features/decision: missing \"headers\": workload 'decision' needs the headers "
               "that carry the original request");
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

// The WAF method's fixed counts: exactly 1,000 requests over 5 or 15 connections, which --quick
// keeps (they are the method), the count asked of gatebench-load for the measured run only; the
// gateway and nginx (ModSecurity + CRS) offer them, compared with each other.
TEST(Targets, FixedCountsAreExactRequestsOverTheirConnections) {
  const auto workloads = load_workloads(kWorkloadDir);
  const Target gateway = load_target(kTargetDir + "/gateway.json", workloads, kScenarioDir);
  const Target nginx = load_target(kTargetDir + "/nginx.json", workloads, kScenarioDir);
  for (const auto& [name, connections] : {std::pair{"waf-count-5", 5}, {"waf-count-15", 15}}) {
    SCOPED_TRACE(name);
    const Scenario s = expand(gateway, workload(workloads, name));
    ASSERT_TRUE(s.unavailable.empty()) << s.unavailable;
    EXPECT_TRUE(expand(nginx, workload(workloads, name)).unavailable.empty());
    EXPECT_EQ(s.load.requests_total, 1000u);
    EXPECT_EQ(s.load.connections, connections);
    EXPECT_EQ(s.load.requests, "waf-mix-requests.json");
    EXPECT_EQ(s.baseline, std::string("nginx-") + name);
    Options options;
    options.quick = true;
    options.connections = 16;
    const auto plans = make_plans({s}, options, make_cpu_layout(2, {}), Toolbox{},
                                  kScenarioDir + "/configs", "/tmp/gatebench-fixed-count");
    const LoadPlan& load = plans.at(0).load;
    EXPECT_EQ(load.connections, connections);
    const auto measured = load.args(2, std::nullopt, "l.json", "s.lua", true);
    const auto at = std::find(measured.begin(), measured.end(), "--requests-total");
    ASSERT_NE(at, measured.end());
    EXPECT_EQ(*(at + 1), "1000");
    const auto warmup = load.args(1, std::nullopt, "w.json", "s.lua", false);
    EXPECT_EQ(std::find(warmup.begin(), warmup.end(), "--requests-total"), warmup.end());
    options.load = "wrk";
    EXPECT_EQ(make_plans({s}, options, make_cpu_layout(2, {}), Toolbox{}, kScenarioDir + "/configs",
                         "/tmp/gatebench-fixed-count")
                  .at(0)
                  .skip_reason,
              "wrk cannot send an exact request count (needs --load gatebench)");
  }
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
