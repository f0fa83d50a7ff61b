#include "macro/driver/plan/scenario_blocks.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "macro/driver/plan/scenario.hpp"
#include "macro/driver/system/env_info.hpp"

namespace gatebench::macro {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

const char* kBackendBlock = R"({"name": "backend", "role": "backend", "binary": "nginx",
  "args": ["-c", "${run_dir}/b.conf"], "env": {"A": "1", "B": "2"}, "dirs": ["b"],
  "ready": {"port": "backend", "http": "/"}})";

// A scenario "x" on one port whose services array is `services`.
std::string scenario_with(const std::string& services) {
  return R"({"name": "x", "description": "d", "ports": {"backend": 18080}, "services": [)" +
         services + R"(], "load": {"port": "backend"}})";
}

// A scenario directory with a services/ directory of blocks.
class Blocks : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("gatebench-blocks-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_ / "services");
    write("services/backend.json", kBackendBlock);
  }
  void TearDown() override { fs::remove_all(dir_); }
  void write(const std::string& name, const std::string& text) {
    std::ofstream(dir_ / name) << text;
  }
  std::vector<Scenario> load(const std::string& services) {
    write("x.json", scenario_with(services));
    return load_scenarios(dir_.string());
  }
  std::string error_of(const std::string& services) {
    try {
      load(services);
    } catch (const ScenarioError& e) {
      return e.what();
    }
    return "no error";
  }
  std::string x_file() const { return (dir_ / "x.json").string(); }
  fs::path dir_;
};

TEST_F(Blocks, UseStandsForTheBlock) {
  auto all = load(R"({"use": "backend"})");
  ASSERT_EQ(all.size(), 1u);  // services/backend.json is not a scenario
  ASSERT_EQ(all[0].services.size(), 1u);
  const ServiceSpec& s = all[0].services[0];
  EXPECT_EQ(s.name, "backend");
  EXPECT_EQ(s.role, Role::backend);
  EXPECT_EQ(s.binary, "nginx");
  EXPECT_EQ(s.args, (std::vector<std::string>{"-c", "${run_dir}/b.conf"}));
  EXPECT_EQ(s.env, (std::map<std::string, std::string>{{"A", "1"}, {"B", "2"}}));
  EXPECT_EQ(s.dirs, std::vector<std::string>{"b"});
  EXPECT_EQ(s.ready.port, "backend");
  EXPECT_EQ(s.ready.http_path, "/");
  EXPECT_TRUE(s.sample);  // no gateway: the backend is measured, as when spelled out
}

TEST_F(Blocks, EntryFieldsReplaceTheBlocksAndEnvIsMerged) {
  auto all = load(R"({"use": "backend", "name": "b2", "args": ["-x"],
                      "env": {"B": "3", "C": "4"}, "ready": {"port": "backend"}})");
  ASSERT_EQ(all.size(), 1u);
  const ServiceSpec& s = all[0].services[0];
  EXPECT_EQ(s.name, "b2");
  EXPECT_EQ(s.args, std::vector<std::string>{"-x"});  // arrays are replaced, not appended to
  EXPECT_EQ(s.env, (std::map<std::string, std::string>{{"A", "1"}, {"B", "3"}, {"C", "4"}}));
  EXPECT_EQ(s.ready.http_path, "");  // objects other than env are replaced whole
  EXPECT_EQ(s.dirs, std::vector<std::string>{"b"});
  EXPECT_EQ(s.binary, "nginx");
}

TEST_F(Blocks, EnvOnABlockWithoutEnvIsKept) {
  write("services/plain.json",
        R"({"name": "plain", "role": "gateway", "binary": "nginx", "ready": {"port": "backend"}})");
  auto all = load(R"({"use": "backend"}, {"use": "plain", "env": {"K": "v"}})");
  ASSERT_EQ(all[0].services.size(), 2u);
  EXPECT_EQ(all[0].services[1].env, (std::map<std::string, std::string>{{"K", "v"}}));
  EXPECT_EQ(all[0].services[1].role, Role::gateway);
}

TEST_F(Blocks, ABlockUsedTwiceNeedsTwoNames) {
  auto all = load(R"({"use": "backend"}, {"use": "backend", "name": "second"})");
  ASSERT_EQ(all[0].services.size(), 2u);
  EXPECT_EQ(all[0].services[1].name, "second");
  const std::string error = error_of(R"({"use": "backend"}, {"use": "backend"})");
  EXPECT_EQ(error.rfind(x_file() + ": ", 0), 0u) << error;
  EXPECT_NE(error.find("duplicate service name"), std::string::npos) << error;
}

TEST_F(Blocks, AMissingBlockNamesFileAndPointer) {
  EXPECT_EQ(error_of(R"({"use": "backend"}, {"use": "nope"})"),
            x_file() + ": /services/1/use: no block 'nope' (" +
                (dir_ / "services" / "nope.json").string() + ")");
}

TEST_F(Blocks, UseMustBeABlockName) {
  const std::string expected = x_file() + ": /services/0/use: expected a block name [a-z0-9_-]+";
  EXPECT_EQ(error_of(R"({"use": 3})"), expected);
  EXPECT_EQ(error_of(R"({"use": "../x"})"), expected);
  EXPECT_EQ(error_of(R"({"use": ""})"), expected);
}

// Overrides are validated as the fields of a spelled-out service, at the entry that uses the block.
TEST_F(Blocks, BadOverridesFailValidation) {
  struct Case {
    std::string entry;
    std::string field;
    std::string what;
  };
  const Case cases[] = {
      {R"({"use": "backend", "args": "-c"})", "args", "expected an array of strings"},
      {R"({"use": "backend", "env": "A=1"})", "env", "expected an object of strings"},
      {R"({"use": "backend", "env": {"A": 1}})", "env", "expected a string"},
      {R"({"use": "backend", "colour": "red"})", "colour", "unknown field"},
      {R"({"use": "backend", "ready": {"port": "proxy"}})", "port", "'proxy' is not in ports"},
      {R"({"use": "backend", "role": "load"})", "role", "expected backend or gateway"},
  };
  for (const auto& c : cases) {
    const std::string error = error_of(c.entry);
    EXPECT_EQ(error.rfind(x_file() + ": ", 0), 0u) << error;
    EXPECT_NE(error.find(c.field), std::string::npos) << error;
    EXPECT_NE(error.find(c.what), std::string::npos) << error;
  }
}

TEST_F(Blocks, ABlockCannotUseABlock) {
  write("services/loop.json", R"({"use": "loop"})");
  EXPECT_EQ(error_of(R"({"use": "loop"})"), (dir_ / "services" / "loop.json").string() +
                                                ": /use: a block cannot use another block");
}

TEST_F(Blocks, ABadBlockFileNamesItself) {
  const std::string file = (dir_ / "services" / "bad.json").string();
  write("services/bad.json", "[1]");
  EXPECT_EQ(error_of(R"({"use": "bad"})"), file + ": (top level): expected a service object");
  write("services/bad.json", "{");
  EXPECT_EQ(error_of(R"({"use": "bad"})").rfind(file + ": not valid JSON", 0), 0u);
}

TEST_F(Blocks, OverFilesGetTheResolvedServices) {
  write("rate.json",
        R"({"name": "rate", "description": "r", "over": ["x"], "load": {"mode": "rate"}})");
  auto all = load(R"({"use": "backend", "name": "b"})");
  ASSERT_EQ(all.size(), 2u);
  for (const auto& s : all) {
    ASSERT_EQ(s.services.size(), 1u) << s.name;
    EXPECT_EQ(s.services[0].name, "b") << s.name;
    EXPECT_EQ(s.services[0].binary, "nginx") << s.name;
  }
}

TEST(ResolveServiceBlocks, LeavesWhatItDoesNotResolveToValidation) {
  for (const char* text : {R"({"services": "x"})", R"({"services": [1, {"name": "a"}]})", "[]",
                           R"({"name": "no services"})"}) {
    json object = json::parse(text);
    const json before = object;
    resolve_service_blocks(object, "/nonexistent/x.json");
    EXPECT_EQ(object, before) << text;
  }
}

// The shipped files: all load, no block is mistaken for a scenario, every block is used (by a
// scenario or a target), and every scenario's backend is the one shared block.
TEST(ShippedBlocks, AreUsedAndResolve) {
  const fs::path dir = fs::path(source_dir()) / "macro/scenarios";
  std::set<std::string> blocks;
  for (const auto& entry : fs::directory_iterator(dir / "services")) {
    blocks.insert(entry.path().stem().string());
  }
  EXPECT_TRUE(blocks.contains("backend"));
  // Used by a scenario's service or by a target (its service, a feature's, a companion).
  std::set<std::string> used;
  auto collect = [&used](auto& self, const json& value) -> void {
    if (value.is_object() && value.contains("use") && value["use"].is_string())
      used.insert(value["use"].get<std::string>());
    if (value.is_structured())
      for (const auto& item : value) self(self, item);
  };
  for (const fs::path& files : {dir, fs::path(source_dir()) / "macro/targets"}) {
    for (const auto& entry : fs::directory_iterator(files)) {
      if (entry.path().extension() != ".json") continue;
      std::ifstream in(entry.path());
      collect(collect, json::parse(in));
    }
  }
  EXPECT_EQ(used, blocks);

  auto all = load_scenarios(dir.string());
  for (const auto& s : all) {
    EXPECT_FALSE(blocks.contains(s.name)) << s.name;
    ASSERT_FALSE(s.services.empty()) << s.name;
    const auto backend = std::find_if(s.services.begin(), s.services.end(),
                                      [](const ServiceSpec& svc) { return svc.name == "backend"; });
    ASSERT_NE(backend, s.services.end()) << s.name;
    EXPECT_EQ(backend->binary, "nginx") << s.name;
    ASSERT_EQ(backend->configs.size(), 1u) << s.name;
    EXPECT_EQ(backend->configs[0].template_name, "nginx-backend.conf") << s.name;
  }
}

}  // namespace
}  // namespace gatebench::macro
