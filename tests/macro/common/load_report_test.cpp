#include "macro/common/load_report.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "macro/common/usage_error.hpp"

namespace gatebench::common {
namespace {

using testing::HasSubstr;

// Every member away from its default, so a field the writer or the reader forgets shows.
LoadReport full_report() {
  LoadReport r;
  r.tool_version = "9.9.9";
  r.config.url = "https://127.0.0.1:8443/x";
  r.config.threads = 2;
  r.config.connections = 64;
  r.config.duration_s = 5;
  r.config.warmup_s = 1;
  r.config.mode = "open";
  r.config.rate = 1000;
  r.config.requests_total = 400;
  r.config.close = true;
  r.config.timeout_s = 2;
  r.config.tls = true;
  r.config.protocol = "h2";
  r.config.streams = 10;
  r.config.tls_resume = false;
  r.config.io = "uring";
  r.config.spin_us = 50;
  r.config.spin_auto = true;
  r.config.sched = "batch";
  r.config.sched_auto = true;
  r.config.headers = {"Host: a.test", "X-A: 1"};
  r.config.requests_file = "mix.json";
  r.config.start_at_unix_ms = 1765000000000;
  r.valid = false;
  r.invalid_reasons = {"late", "no responses"};
  r.elapsed_s = 5.01;
  r.window = LoadWindow{100, 5'010'000'100};
  r.requests = 4990;
  r.issued = 5000;
  r.requests_per_s = 996.0;
  r.missed = 10;
  r.open_loop = OpenLoopReport{1000,
                               996,
                               120.5,
                               {{"p50", 1}, {"p99", 9}, {"max", 120.5}},
                               {{"p50", 50}, {"p90", 60}, {"p99", 70}, {"p999", 80}, {"max", 90}}};
  r.bytes_read = 123456;
  r.bytes_written = 65432;
  r.bytes_read_per_s = 24641.5;
  r.connections_opened = 4990;
  r.handshakes = HandshakeCounts{4000, 990, 996};
  r.latency_us = {10, 55.5, 3.25, 900, {{"p50", 50}, {"p75", 60}, {"p90", 70}, {"p99", 99}}};
  r.latency_histogram = {7, 4990, {{1000, 1008, 10}, {50000, 50512, 4980}}};
  r.status = {{"200", 4980}, {"503", 10}};
  r.errors = {{"connect", 1}, {"timeout", 2}, {"stream", 3}};
  r.errors_total = 6;
  r.series = {{0, 990, 990, 98.5, 1, 900}, {1, 1000, 1000, 99.5, 0, 1000}};
  r.templates = {{"fast", 9, "GET", "/f", 200, 4000, 3990, 10, 1, {{"200", 3990}, {"503", 10}}},
                 {"slow", 1, "POST", "/s", std::nullopt, 990, 990, 0, 0, {{"200", 990}}}};
  r.h2 = H2Report{10,
                  100,
                  10,
                  4990,
                  3,
                  {{"REFUSED_STREAM", 3}},
                  {{"NO_ERROR", 1}},
                  9980,
                  2.0,
                  "ALPN did not select h2"};
  r.header_counts = {{"x-cache", {{"HIT", 4000}, {"MISS", 990}, {"(absent)", 0}}}};
  r.merged_from = {{"a", 2495, 498, 5.01, true}, {"b", 2495, 498, 5.0, false}};
  return r;
}

TEST(LoadReport, EveryFieldSurvivesTheRoundTrip) {
  const nlohmann::ordered_json written = to_json(full_report());
  const LoadReport read = parse_load_report(written.dump(2), "load.json");
  EXPECT_EQ(to_json(read), written);
  EXPECT_EQ(written["schema"], kLoadSchema);
  // Counts keep the order in which their names came (a header's values, status codes).
  EXPECT_EQ(read.header_counts[0].second[1].first, "MISS");
  EXPECT_EQ(read.templates[1].expect_status, std::nullopt);
  EXPECT_EQ(read.h2->not_h2, "ALPN did not select h2");
}

TEST(LoadReport, ClosedLoopWritesItsOpenLoopFieldsAsNull) {
  LoadReport r = full_report();
  r.open_loop.reset();
  r.h2.reset();
  r.window.reset();
  r.handshakes.reset();
  const nlohmann::ordered_json j = to_json(r);
  for (const char* key : {"offered_rate", "achieved_rate", "max_send_lag_us", "send_lag_us",
                          "service_time_us", "h2", "window", "handshakes"})
    EXPECT_TRUE(j[key].is_null()) << key;
  const LoadReport read = parse_load_report(j.dump(), "load.json");
  EXPECT_FALSE(read.open_loop);
  EXPECT_FALSE(read.h2);
  EXPECT_FALSE(read.window);
  EXPECT_FALSE(read.handshakes);
}

TEST(LoadReport, AnAbsentMemberKeepsItsDefault) {
  const LoadReport r = parse_load_report(
      R"({"schema": "gatebench.load/1", "elapsed_s": 2, "requests": 10, "requests_per_s": 5})",
      "old.json");
  EXPECT_EQ(r.requests, 10u);
  EXPECT_TRUE(r.valid);
  EXPECT_EQ(r.config.mode, "closed");
  EXPECT_TRUE(r.series.empty());
}

void expect_error(const std::string& text, const std::string& message) {
  try {
    parse_load_report(text, "bad.json");
    FAIL() << "no error for " << text;
  } catch (const UsageError& e) {
    EXPECT_THAT(e.what(), HasSubstr(message)) << text;
  }
}

TEST(LoadReport, BadFieldsAreErrorsNamingThePointer) {
  const std::string head = R"({"schema": "gatebench.load/1", "elapsed_s": 1, "requests": 1, )"
                           R"("requests_per_s": 1, )";
  expect_error(R"({"schema": "gatebench.load/2"})", "bad.json: /schema: expected gatebench.load/1");
  expect_error("[]", "bad.json: /schema: expected gatebench.load/1");
  expect_error(R"({"schema": "gatebench.load/1", "requests": 1, "requests_per_s": 1})",
               "bad.json: /elapsed_s: missing");
  expect_error(head + R"("issued": -1})", "/issued");
  expect_error(head + R"("status": {"200": "many"}})", "bad.json: /status/200");
  expect_error(head + R"("latency_histogram": {"unit": "ns", "buckets": [[5, 5, 1]]}})",
               "bad.json: /latency_histogram/buckets/0: expected upper_ns above lower_ns");
  expect_error(head + R"("latency_histogram": {"unit": "ms"}})",
               "bad.json: /latency_histogram/unit: expected ns");
  expect_error(head + R"("window": {"start_ns": 9, "end_ns": 1}})", "/window/end_ns");
  expect_error(head + R"("config": {"mode": "half"}})", "/config/mode: expected closed or open");
  expect_error(head + R"("templates": [{"expect_status": 42}]})", "/templates/0/expect_status");
  expect_error(head + R"("series": {}})", "/series");
  expect_error(head + R"("series": [{"t": 0}]})", "bad.json: /series/0/rps: missing");
  expect_error("{", "bad.json");
}

TEST(LoadReport, CountsAddUpByName) {
  Counts c = {{"200", 1}};
  add_counts(c, {{"503", 2}, {"200", 3}});
  EXPECT_EQ(c, (Counts{{"200", 4}, {"503", 2}}));
  EXPECT_EQ(count_of(c, "503"), 2u);
  EXPECT_EQ(count_of(c, "404"), 0u);
}

}  // namespace
}  // namespace gatebench::common
