#include "macro/driver/results/load_merge.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "macro/common/usage_error.hpp"
#include "macro/driver/results/load_json.hpp"
#include "macro/driver/results/load_result.hpp"

namespace gatebench::macro {
namespace {

using nlohmann::json;

// A host's file as the driver reads it (the one gatebench.load/1 type).
LoadPart part(const std::string& host, const json& doc) {
  return {host, common::load_report_from_json(nlohmann::ordered_json::parse(doc.dump()), host)};
}

// The merged result as the file the driver writes.
json merge(const std::vector<LoadPart>& parts) {
  return json::parse(common::to_json(merge_load_results(parts)).dump());
}

// Two hosts of one synchronised run. A: 90 requests near 1 us and 10 near 2 us; B: 50 near 1 us
// and 50 near 8 us. Bucket bounds as gatebench-load writes them ([lower, upper exclusive, n]).
json host_a() {
  return json::parse(R"({"schema": "gatebench.load/1", "valid": true, "invalid_reasons": [],
    "config": {"threads": 1, "connections": 8, "rate": null},
    "elapsed_s": 2.0, "window": {"clock": "CLOCK_MONOTONIC", "start_ns": 5, "end_ns": 7},
    "requests": 100, "issued": 100, "requests_per_s": 50.0,
    "offered_rate": null, "missed": 0, "connections_opened": 8,
    "latency_us": {"min": 1.0, "mean": 1.1, "stdev": 0.3, "max": 2.01,
                   "p50": 1.003, "p99": 2.007},
    "latency_histogram": {"unit": "ns", "sub_bucket_bits": 7, "count": 100,
                          "buckets": [[1000, 1008, 90], [2000, 2016, 10]]},
    "status": {"200": 98, "502": 2}, "errors": {"connect": 1, "total": 1},
    "series": [{"t": 0, "requests": 40, "rps": 40, "p99_us": 2.0, "errors": 0, "handshakes": 0},
               {"t": 1, "requests": 60, "rps": 60, "p99_us": 1.5, "errors": 1, "handshakes": 0}],
    "templates": [{"name": "request", "expect_status": null, "responses": 100,
                   "as_expected": 100, "unexpected": 0, "errors": 1,
                   "status": {"200": 98, "502": 2}}],
    "h2": null})");
}

json host_b() {
  json b = host_a();
  b["requests"] = 100;
  b["requests_per_s"] = 50.0;
  b["latency_us"] = {{"min", 1.0},  {"mean", 4.5},  {"stdev", 3.5},
                     {"max", 8.05}, {"p50", 1.003}, {"p99", 8.031}};
  b["latency_histogram"]["buckets"] = json::parse("[[1000, 1008, 50], [8000, 8064, 50]]");
  b["status"] = {{"200", 100}};
  b["errors"] = {{"connect", 0}, {"total", 0}};
  b["series"] = json::parse(R"([{"t": 0, "requests": 55, "rps": 55, "p99_us": 8.0, "errors": 0},
                                {"t": 1, "requests": 45, "rps": 45, "p99_us": 7.0, "errors": 0}])");
  b["templates"][0]["errors"] = 0;
  b["templates"][0]["status"] = {{"200", 100}};
  return b;
}

TEST(LoadMerge, CountsAreSummedAndPercentilesComeFromTheMergedHistogram) {
  const json merged = merge({part("a", host_a()), part("b", host_b())});
  EXPECT_EQ(merged["requests"], 200);
  EXPECT_EQ(merged["latency_histogram"]["count"], 200);
  EXPECT_DOUBLE_EQ(merged["requests_per_s"].get<double>(), 100);
  // Rank 198 of 200 falls in the 8000 ns bucket: its midpoint 8031 ns. The mean of the hosts'
  // p99 (5.019 us) would be wrong.
  EXPECT_DOUBLE_EQ(merged["latency_us"]["p99"].get<double>(), 8.031);
  // Rank 150: the 2000 ns bucket (140 below it); rank 100: the 1000 ns one.
  EXPECT_DOUBLE_EQ(merged["latency_us"]["p75"].get<double>(), 2.007);
  EXPECT_DOUBLE_EQ(merged["latency_us"]["p50"].get<double>(), 1.003);
  EXPECT_DOUBLE_EQ(merged["latency_us"]["mean"].get<double>(), 2.8);
  EXPECT_DOUBLE_EQ(merged["latency_us"]["max"].get<double>(), 8.05);
  EXPECT_EQ(merged["latency_histogram"]["buckets"],
            json::parse("[[1000, 1008, 140], [2000, 2016, 10], [8000, 8064, 50]]"));
  EXPECT_EQ(merged["status"]["200"], 198);
  EXPECT_EQ(merged["status"]["502"], 2);
  EXPECT_EQ(merged["errors"]["total"], 1);
  EXPECT_EQ(merged["templates"][0]["as_expected"], 200);
  EXPECT_EQ(merged["templates"][0]["status"]["502"], 2);
  EXPECT_EQ(merged["config"]["connections"], 16);
  EXPECT_TRUE(merged["window"].is_null());
  ASSERT_EQ(merged["merged_from"].size(), 2u);
  EXPECT_EQ(merged["merged_from"][1]["host"], "b");
  // Second t of every host is the same second: summed, the slowest host's p99.
  ASSERT_EQ(merged["series"].size(), 2u);
  EXPECT_EQ(merged["series"][0]["requests"], 95);
  EXPECT_DOUBLE_EQ(merged["series"][0]["p99_us"].get<double>(), 8.0);
  EXPECT_EQ(merged["series"][1]["requests"], 105);
  EXPECT_EQ(merged["series"][1]["errors"], 1);

  // The driver reads the merged file like any gatebench-load result.
  const LoadResult r = parse_load_json(merged.dump(), "merged.json");
  EXPECT_EQ(r.requests, 200u);
  EXPECT_DOUBLE_EQ(*r.p99_us, 8.031);
  // 1 transport error and the 2 responses of status 502 (no expectation: 5xx is an error).
  EXPECT_EQ(r.errors, 1u + 2);
}

TEST(LoadMerge, AnInvalidHostMakesTheMergedRunInvalidAndSaysWhich) {
  json b = host_b();
  b["valid"] = false;
  b["invalid_reasons"] = {"started 80.0 ms after --start-at"};
  const json merged = merge({part("a", host_a()), part("b", b)});
  EXPECT_FALSE(merged["valid"].get<bool>());
  EXPECT_EQ(merged["invalid_reasons"][0], "b: started 80.0 ms after --start-at");
}

TEST(LoadMerge, OpenLoopRatesAreSummed) {
  json a = host_a(), b = host_b();
  for (json* d : {&a, &b}) {
    (*d)["offered_rate"] = 500.0;
    (*d)["achieved_rate"] = 499.0;
    (*d)["config"]["rate"] = 500.0;
    (*d)["send_lag_us"] = {{"p50", 1.0}, {"p99", 3.0}, {"max", 9.0}};
  }
  b["send_lag_us"]["p99"] = 5.0;
  const json merged = merge({part("a", a), part("b", b)});
  EXPECT_DOUBLE_EQ(merged["offered_rate"].get<double>(), 1000);
  EXPECT_DOUBLE_EQ(merged["achieved_rate"].get<double>(), 998);
  EXPECT_DOUBLE_EQ(merged["config"]["rate"].get<double>(), 1000);
  EXPECT_DOUBLE_EQ(merged["send_lag_us"]["p99"].get<double>(), 5);
}

TEST(LoadMerge, MismatchedOrBrokenPartsAreErrorsNamingTheHost) {
  json b = host_b();
  b["latency_histogram"]["sub_bucket_bits"] = 5;
  EXPECT_THROW(merge({part("a", host_a()), part("b", b)}), LoadParseError);
  json c = host_b();
  c["schema"] = "other/1";
  try {
    part("c", c);
    FAIL() << "no error";
  } catch (const common::UsageError& e) {
    EXPECT_THAT(e.what(), testing::HasSubstr("c: /schema: expected gatebench.load/1"));
  }
  json d = host_b();
  d["templates"][0]["name"] = "other";
  EXPECT_THROW(merge({part("a", host_a()), part("d", d)}), LoadParseError);
}

TEST(LoadMerge, PercentileOfBucketsFollowsTheGenerator) {
  const std::vector<Bucket> buckets = {{10, 11, 1}, {20, 21, 1}, {1000, 1008, 2}};
  EXPECT_EQ(histogram_percentile(buckets, 25, 10, 1005), 10u);
  EXPECT_EQ(histogram_percentile(buckets, 50, 10, 1005), 20u);
  // Midpoint 1003, and never beyond the recorded maximum.
  EXPECT_EQ(histogram_percentile(buckets, 99, 10, 1005), 1003u);
  EXPECT_EQ(histogram_percentile(buckets, 99, 10, 1001), 1001u);
  EXPECT_EQ(histogram_percentile({}, 99, 0, 0), 0u);
}

}  // namespace
}  // namespace gatebench::macro
