// h2load's output as the driver reads it, from runs of nghttp2 1.52's h2load captured against
// nginx (tests/macro/driver/data/h2load-*.txt), its -D argument, and what it cannot run.
#include "macro/driver/results/h2load_output.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "macro/driver/plan/plan.hpp"
#include "macro/driver/plan/scenario.hpp"

namespace gatebench::macro {
namespace {

std::string data(const std::string& name) {
  const auto path = std::filesystem::path(GATEBENCH_SOURCE_DIR) / "tests/macro/driver/data" / name;
  std::ifstream in(path);
  EXPECT_TRUE(in) << path;
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string scenario_with_load(const std::string& load) {
  return R"({"name": "c", "description": "d", "ports": {"proxy": 18081},
    "services": [{"name": "proxy", "role": "gateway", "binary": "nginx",
                  "ready": {"port": "proxy"}}],
    "load": )" +
         load + "}";
}

TEST(H2loadOutput, WhatItCannotRun) {
  auto reason = [](const std::string& load) {
    return h2load_cannot(parse_scenario(scenario_with_load(load), "c.json"));
  };
  EXPECT_EQ(reason(R"({"port": "proxy", "scheme": "https", "http2": true, "streams": 10})"), "");
  EXPECT_EQ(reason(R"({"port": "proxy"})"), "");  // HTTP/1.1 keep-alive: --h1
  EXPECT_NE(reason(R"({"port": "proxy", "mode": "rate", "rate": 100})")
                .find("h2load cannot hold an open-loop rate"),
            std::string::npos);
  EXPECT_NE(reason(R"({"port": "proxy", "mode": "search", "slo_p99_us": 2000})")
                .find("h2load cannot hold an open-loop rate"),
            std::string::npos);
  EXPECT_EQ(reason(R"({"port": "proxy", "requests": "mix.json"})"),
            "h2load cannot send a weighted request mix (needs --load gatebench)");
  EXPECT_EQ(reason(R"({"port": "proxy", "close": true})"),
            "h2load cannot open a new connection per request (needs --load gatebench)");
  const Scenario cached =
      parse_scenario(R"({"name": "c", "description": "d", "ports": {"proxy": 18081},
    "services": [{"name": "proxy", "role": "gateway", "binary": "nginx",
                  "ready": {"port": "proxy"}}], "load": {"port": "proxy"},
    "cache": {"status_header": "X-Cache", "hit_values": ["HIT"], "expect_hit_ratio": [0.9, 1]}})",
                     "c.json");
  EXPECT_EQ(h2load_cannot(cached),
            "h2load cannot count the cache's status header for the hit ratio (needs --load "
            "gatebench)");
}

// gatebench-macro --load h2load --quick --rounds 1 --warmup 0 --duration 1s --threads 1 against
// nginx-h2-baseline (-m 10 -D 1s --npn-list=h2) and nginx-baseline (--h1).
TEST(H2loadOutput, ReadsCapturedRuns) {
  const LoadResult h2 = parse_h2load_output(data("h2load-h2-10-streams.txt"));
  EXPECT_DOUBLE_EQ(h2.rps, 14876);
  EXPECT_DOUBLE_EQ(h2.duration_s, 1.01);
  EXPECT_EQ(h2.requests, 14876u);
  EXPECT_EQ(h2.errors, 0u);
  EXPECT_DOUBLE_EQ(h2.counts.at("h2load_started"), 15036);
  EXPECT_DOUBLE_EQ(h2.counts.at("h2load_succeeded"), 14876);
  EXPECT_DOUBLE_EQ(h2.counts.at("h2load_timeout"), 0);
  EXPECT_DOUBLE_EQ(h2.counts.at("status_2xx"), 14876);
  EXPECT_DOUBLE_EQ(h2.counts.at("status_5xx"), 0);
  ASSERT_TRUE(h2.mean_us);
  EXPECT_DOUBLE_EQ(*h2.mean_us, 9710);  // the mean column, not min (525us) or max
  EXPECT_FALSE(h2.p50_us);
  EXPECT_FALSE(h2.p99_us);
  const LoadResult h1 = parse_h2load_output(data("h2load-h1.txt"));
  EXPECT_EQ(h1.requests, 15576u);
  EXPECT_DOUBLE_EQ(*h1.mean_us, 1020);
}

TEST(H2loadOutput, FailuresAreErrors) {
  std::string text = data("h2load-h1.txt");
  const std::string ok =
      "requests: 15576 total, 15592 started, 15576 done, 15576 succeeded, 0 failed, 0 errored, "
      "0 timeout";
  ASSERT_NE(text.find(ok), std::string::npos);
  text.replace(text.find(ok), ok.size(),
               "requests: 15576 total, 15592 started, 15576 done, 15500 succeeded, 76 failed, 6 "
               "errored, 2 timeout");
  const LoadResult r = parse_h2load_output(text);
  EXPECT_EQ(r.errors, 76u);
  EXPECT_DOUBLE_EQ(r.counts.at("h2load_errored"), 6);
  EXPECT_DOUBLE_EQ(r.counts.at("h2load_timeout"), 2);
}

TEST(H2loadOutput, RefusesOutputWithoutASummary) {
  EXPECT_THROW(parse_h2load_output("starting benchmark...\nspawning thread #0\n"), LoadParseError);
  EXPECT_THROW(parse_h2load_output("finished in 1.00s, 10.00 req/s, 1KB/s\n"), LoadParseError);
}

// Numbers the expressions match but no type holds (found by h2load_output_fuzz): damaged output,
// the driver's error for it, not std::out_of_range or std::invalid_argument.
TEST(H2loadOutput, RefusesNumbersOutOfRange) {
  const auto output = [](const std::string& rate, const std::string& done) {
    return "finished in 1.00s, " + rate + " req/s, 1KB/s\nrequests: 1 total, 1 started, " + done +
           " done, 1 succeeded, 0 failed, 0 errored, 0 timeout\n";
  };
  ASSERT_NO_THROW(parse_h2load_output(output("10.00", "1")));
  EXPECT_THROW(parse_h2load_output(output("10.00", std::string(25, '9'))), LoadParseError);
  EXPECT_THROW(parse_h2load_output(output(std::string(400, '9'), "1")), LoadParseError);
  EXPECT_THROW(parse_h2load_output(output(".", "1")), LoadParseError);
}

}  // namespace
}  // namespace gatebench::macro
