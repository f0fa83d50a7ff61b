// --count-header against a real nginx whose /cache location answers with the X-Cache-Status
// value the request asks for (?s=V, none without it): over HTTP/1.1 and HTTP/2 every response
// is counted under the value its template asked for, and the JSON says so.
#include <gtest/gtest.h>

#include "macro/load/report.hpp"
#include "macro/load/request_set.hpp"
#include "macro/load/url.hpp"
#include "tests/macro/load/load_run.hpp"
#include "tests/macro/load/nginx_process.hpp"

namespace gatebench::load {
namespace {

using testing::NginxConfig;
using testing::NginxProcess;

constexpr const char* kMix = R"({"requests": [
    {"name": "hit", "weight": 3, "path": "/cache", "query": "s=HIT"},
    {"name": "miss", "weight": 1, "path": "/cache", "query": "s=MISS"},
    {"name": "none", "weight": 1, "path": "/cache"}]})";

void expect_counts_by_template(const std::string& url, Options o) {
  o.count_header = "x-cache-status";
  o.requests_total = 2000;
  o.url = url;
  const auto run = testing::run_against(url, o, kMix);
  Stats s = run.result.stats;
  ASSERT_EQ(s.templates.size(), 3u);
  EXPECT_EQ(s.responses, 2000u);
  EXPECT_EQ(s.error_total(), 0u);
  EXPECT_GT(s.templates[1].responses, 0u);
  EXPECT_EQ(s.header_counts.values(), 2);
  EXPECT_EQ(s.header_counts.count_of(s.header_counts.slot("HIT")), s.templates[0].responses);
  EXPECT_EQ(s.header_counts.count_of(s.header_counts.slot("MISS")), s.templates[1].responses);
  EXPECT_EQ(s.header_counts.count_of(HeaderCounts::kAbsent), s.templates[2].responses);
  EXPECT_EQ(s.header_counts.total(), 2000u);

  Target target = parse_url(url);
  resolve(target);
  const RequestSet requests = RequestSet::parse(kMix, "test", target, {}, false);
  const auto j = common::to_json(load_report(o, requests, run.result));
  ASSERT_TRUE(j.contains("header_counts"));
  const auto& counts = j["header_counts"]["x-cache-status"];
  EXPECT_EQ(counts["HIT"], s.templates[0].responses);
  EXPECT_EQ(counts["MISS"], s.templates[1].responses);
  EXPECT_EQ(counts["(absent)"], s.templates[2].responses);
  EXPECT_FALSE(counts.contains("(other)"));
}

TEST(CountHeaderAgainstNginx, Http11) {
  NginxProcess nginx;
  if (!nginx.available()) GTEST_SKIP() << nginx.reason();
  Options o;
  o.threads = 2;
  o.connections = 4;
  expect_counts_by_template("http://127.0.0.1:" + std::to_string(nginx.http_port()) + "/", o);
}

TEST(CountHeaderAgainstNginx, Http2) {
  NginxConfig config;
  config.h2 = true;
  NginxProcess nginx(config);
  if (!nginx.available()) GTEST_SKIP() << nginx.reason();
  Options o;
  o.threads = 1;
  o.connections = 2;
  o.h2 = true;
  o.streams = 8;
  expect_counts_by_template("http://127.0.0.1:" + std::to_string(nginx.h2c_port()) + "/", o);
}

TEST(CountHeaderAgainstNginx, NoCountsWithoutTheOption) {
  NginxProcess nginx;
  if (!nginx.available()) GTEST_SKIP() << nginx.reason();
  Options o;
  o.threads = 1;
  o.connections = 2;
  o.requests_total = 200;
  const std::string url = "http://127.0.0.1:" + std::to_string(nginx.http_port()) + "/";
  const auto run = testing::run_against(url, o, kMix);
  EXPECT_EQ(run.result.stats.responses, 200u);
  EXPECT_EQ(run.result.stats.header_counts.total(), 0u);
}

}  // namespace
}  // namespace gatebench::load
