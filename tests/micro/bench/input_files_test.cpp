// gatebench-micro --input on rule, traffic and CIDR files the test writes, and the bad-input
// contract: exit 2 before anything runs, the message naming the file and line.
#include <gtest/gtest.h>

#include <string>

#include "tests/micro/bench/micro_run.hpp"

namespace gatebench::bench::test {
namespace {

constexpr int kCidrEntries = 300;
constexpr int kTrafficRequests = 60;

std::string cidr_list() {
  std::string text = "# a list written by the test\n";
  for (int i = 0; i < kCidrEntries; ++i) {
    text += "10." + std::to_string(i / 256) + "." + std::to_string(i % 256) + ".0/24";
    text += i % 2 ? " 7\n" : "\n";
  }
  return text + "192.0.2.1-192.0.2.9\n";
}

std::string rule_file() {
  return R"json({
  "ip_lists": {"blocked": ["198.51.100.0/24"]},
  "exploit": {"mode": "block"},
  "rate_limit": {"rate": 100000, "burst": 100},
  "rules": [
    {"id": "admin", "action": "block", "when": [{"field": "path", "op": "prefix", "value": "/admin"}]},
    {"id": "bad-ip", "action": "block", "when": [{"field": "client_ip", "op": "in_list", "list": "blocked"}]},
    {"id": "bots", "action": "challenge",
     "when": [{"field": "user_agent", "op": "regex", "value": "(sqlmap|nikto)", "case_insensitive": true}]}
  ]
}
)json";
}

std::string traffic_file() {
  std::string text = "# one request per line\n";
  for (int i = 0; i < kTrafficRequests; ++i) {
    text += R"({"method": ")" + std::string(i % 4 ? "GET" : "POST") +
            R"(", "host": "api.example.test", "path": "/items/)" + std::to_string(i) +
            R"(", "query": "id=)" + std::to_string(i) + (i % 10 == 0 ? "%27%20OR%201=1--" : "") +
            R"(", "headers": [["User-Agent", "test/1.0"]], "client_ip": "192.0.2.)" +
            std::to_string(i % 200 + 1) + R"(", "country": "DE")" +
            (i % 4 ? "" : R"(, "body": "a=1&b=2")") + "}\n";
  }
  return text;
}

void expect_context(const MicroRun& run, const std::string& kind, const std::filesystem::path& path,
                    const std::string& bytes) {
  const auto& context = run.json.at("context");
  const std::string key = "gatebench_input_" + kind;
  EXPECT_EQ(context.at(key + "_path"), path.string());
  EXPECT_EQ(context.at(key + "_size"), std::to_string(bytes.size()));
  EXPECT_EQ(context.at(key + "_sha256"), sha256_hex(bytes));
}

void expect_rows(const MicroRun& run, std::initializer_list<const char*> names) {
  for (const char* name : names) {
    const auto r = row(run.json, name);
    ASSERT_FALSE(r.is_null()) << name << " missing";
    EXPECT_FALSE(r.contains("error_occurred")) << r.dump();
    EXPECT_GT(r.at("items_per_second").get<double>(), 0) << name;
  }
}

TEST(InputFiles, CidrList) {
  const auto dir = scratch_dir("cidr");
  const std::string list = cidr_list();
  write_text(dir / "list.txt", list);
  const MicroRun run = run_micro(dir, "--input cidr=" + (dir / "list.txt").string());
  ASSERT_EQ(run.exit_code, 0) << run.stderr_text;
  expect_context(run, "cidr", dir / "list.txt", list);
  expect_rows(run, {"cidr/gatecore/input", "cidr/gatecore_single/input",
                    "cidr/gatecore_dependent/input", "cidr/linear/input", "cidr/nginx_trie/input",
                    "cidr/sorted_ranges/input", "cidr/limit/input", "cidr/limit_dependent/input"});
  EXPECT_GT(row(run.json, "cidr/gatecore/input").at("table_bytes").get<double>(), 0);
  // The seeded cases stay registered beside the input's.
  EXPECT_NE(list_micro(dir, "--input cidr=" + (dir / "list.txt").string())
                .find("cidr/gatecore/list_1k\n"),
            std::string::npos);
  std::filesystem::remove_all(dir);
}

TEST(InputFiles, RulesAndTraffic) {
  const auto dir = scratch_dir("rules");
  const std::string rules = rule_file();
  const std::string traffic = traffic_file();
  write_text(dir / "rules.json", rules);
  write_text(dir / "traffic.jsonl", traffic);
  // Traffic first on the command line: the order of the options does not matter.
  const MicroRun run = run_micro(dir, "--input traffic=" + (dir / "traffic.jsonl").string() +
                                          " --input=rules=" + (dir / "rules.json").string());
  ASSERT_EQ(run.exit_code, 0) << run.stderr_text;
  expect_context(run, "rules", dir / "rules.json", rules);
  expect_context(run, "traffic", dir / "traffic.jsonl", traffic);
  expect_rows(
      run, {"rules/gatecore/input/input", "rules/naive/input/input", "rules/gatecore/input/clean",
            "rules/naive/input/mix", "rules/gatecore/protected/input", "rules/naive/none/input",
            "exploit/gatecore/input", "exploit/re2_set/input", "exploit/naive/input"});
  // One untimed pass over the traffic: the six SQL injections are blocked by the exploit scan.
  EXPECT_EQ(row(run.json, "rules/gatecore/input/input").at("false_positives"), 6);
  EXPECT_EQ(row(run.json, "rules/naive/input/input").at("false_positives"), 6);
  std::filesystem::remove_all(dir);
}

TEST(InputErrors, MissingFile) {
  const auto dir = scratch_dir("missing");
  const MicroRun run = run_micro(dir, "--input cidr=" + (dir / "nope.txt").string());
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_NE(run.stderr_text.find((dir / "nope.txt").string() + ": cannot open"), std::string::npos)
      << run.stderr_text;
  EXPECT_TRUE(run.json.is_null());
  std::filesystem::remove_all(dir);
}

TEST(InputErrors, UnknownKind) {
  const auto dir = scratch_dir("kind");
  write_text(dir / "x.txt", "x\n");
  const MicroRun run = run_micro(dir, "--input geoip=" + (dir / "x.txt").string());
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_NE(run.stderr_text.find("unknown kind 'geoip'"), std::string::npos) << run.stderr_text;
  std::filesystem::remove_all(dir);
}

TEST(InputErrors, BadLinesNameFileAndLine) {
  const auto dir = scratch_dir("bad");
  const std::string good =
      "192.0.2.1 - - [01/Dec/2026:14:00:00 +0000] \"GET / HTTP/1.1\" 200 3 \"-\" \"curl/8\"\n";
  struct Case {
    const char* kind;
    std::string text;
    int line;
  } cases[] = {
      {"access_log.combined", "not a log line\n\x16\x03\x01 tls on the http port\n", 1},
      {"cidr", "10.0.0.0/8\n# fine\n10.300.0.0/16\n", 3},
      {"traffic", "{\"path\": \"/\"}\n{\"path\": \"/\", \"client_ip\": \"1.2.3\"}\n", 2},
      {"traffic", "{\"path\": \"/\"}\n\n{\"path\": \"/\", \"colour\": \"red\"}\n", 3},
  };
  for (const Case& c : cases) {
    write_text(dir / "input", c.text);
    const MicroRun run =
        run_micro(dir, std::string("--input ") + c.kind + "=" + (dir / "input").string());
    EXPECT_EQ(run.exit_code, 2) << c.kind;
    const std::string where = (dir / "input").string() + ":" + std::to_string(c.line) + ":";
    EXPECT_NE(run.stderr_text.find(where), std::string::npos) << c.kind << ": " << run.stderr_text;
    EXPECT_TRUE(run.json.is_null()) << c.kind;
  }
  // The rule loader names the rule and field instead of a line.
  write_text(dir / "rules.json", R"({"rules": [{"id": "a", "action": "explode"}]})");
  const MicroRun run = run_micro(dir, "--input rules=" + (dir / "rules.json").string());
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_NE(run.stderr_text.find((dir / "rules.json").string() + ": rules[0]"), std::string::npos)
      << run.stderr_text;
  std::filesystem::remove_all(dir);
}

// A real log carries malformed lines (scanners, TLS on the HTTP port): they stay in the input,
// are counted and named, and every parser is measured rejecting them.
TEST(InputFiles, AccessLogKeepsMalformedLines) {
  const auto dir = scratch_dir("malformed");
  const std::string good =
      "192.0.2.1 - - [01/Dec/2026:14:00:00 +0000] \"GET / HTTP/1.1\" 200 3 \"-\" \"curl/8\"\n";
  std::string log;
  for (int i = 0; i < 150; ++i) log += i == 2 || i == 120 ? "not a log line\n" : good;
  write_text(dir / "access.log", log);
  const MicroRun run =
      run_micro(dir, "--input access_log.combined=" + (dir / "access.log").string());
  ASSERT_EQ(run.exit_code, 0) << run.stderr_text;
  EXPECT_NE(run.stderr_text.find("2 of 150 lines rejected"), std::string::npos) << run.stderr_text;
  EXPECT_NE(run.stderr_text.find((dir / "access.log").string() + ":3: "), std::string::npos)
      << run.stderr_text;
  EXPECT_NE(run.stderr_text.find((dir / "access.log").string() + ":121: "), std::string::npos)
      << run.stderr_text;
  for (const char* impl : {"gatecore", "re2", "limit"}) {
    const auto r = row(run.json, std::string("access_log/") + impl + "/combined_input");
    ASSERT_FALSE(r.is_null()) << impl;
    EXPECT_FALSE(r.contains("error_occurred")) << r.dump();
    EXPECT_EQ(r.at("records"), 148) << impl;
    EXPECT_EQ(r.at("rejected"), 2) << impl;
  }
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace gatebench::bench::test
