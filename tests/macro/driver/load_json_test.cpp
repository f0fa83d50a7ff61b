#include "macro/driver/results/load_json.hpp"

#include <gtest/gtest.h>

namespace gatebench::macro {
namespace {

const char* kLoad = R"({"schema": "gatebench.load/1", "valid": true, "invalid_reasons": [],
  "elapsed_s": 2.0, "requests": 2000, "requests_per_s": 1000.0,
  "latency_us": {"p50": 100.5, "p90": 200, "p99": 300, "p999": 400, "mean": 120},
  "errors": {"connect": 1, "total": 3},
  "handshakes": {"full": 10, "resumed": 0, "per_s": 5.0},
  "connections_opened": 10, "missed": 0,
  "series": [{"t": 0, "requests": 990, "rps": 990, "p99_us": 310.5, "errors": 2, "handshakes": 5},
             {"t": 1, "requests": 1010, "rps": 1010, "p99_us": null, "errors": 1, "handshakes": 5}],
  "templates": [
    {"name": "get", "expect_status": null, "responses": 1500, "as_expected": 1500, "unexpected": 0,
     "status": {"200": 1495, "502": 5}},
    {"name": "attack", "expect_status": 403, "responses": 500, "as_expected": 490, "unexpected": 10,
     "status": {"403": 490, "200": 10}}]})";

TEST(LoadJson, ReadsTheFieldsTheDriverReports) {
  LoadResult r = parse_load_json(kLoad, "x.json");
  EXPECT_DOUBLE_EQ(r.rps, 1000);
  EXPECT_DOUBLE_EQ(r.duration_s, 2);
  EXPECT_EQ(r.requests, 2000u);
  EXPECT_DOUBLE_EQ(*r.p50_us, 100.5);
  EXPECT_DOUBLE_EQ(*r.p999_us, 400);
  // 3 transport errors, 5 5xx on a template without expectation, 10 unexpected statuses.
  EXPECT_EQ(r.errors, 3u + 5 + 10);
  EXPECT_EQ(r.counts.at("get.unexpected"), 5);
  EXPECT_EQ(r.counts.at("get.as_expected"), 1495);
  EXPECT_EQ(r.counts.at("attack.as_expected"), 490);
  EXPECT_EQ(r.counts.at("handshakes_per_s"), 5);
  EXPECT_FALSE(r.counts.contains("invalid"));
  ASSERT_EQ(r.per_second.size(), 2u);
  EXPECT_DOUBLE_EQ(r.per_second[0].t, 0);
  EXPECT_DOUBLE_EQ(r.per_second[0].rps, 990);
  EXPECT_DOUBLE_EQ(*r.per_second[0].p99_us, 310.5);
  EXPECT_DOUBLE_EQ(r.per_second[0].errors, 2);
  EXPECT_DOUBLE_EQ(r.per_second[1].t, 1);
  EXPECT_FALSE(r.per_second[1].p99_us.has_value());
}

TEST(LoadJson, InvalidRunKeepsTheReasons) {
  std::string text = kLoad;
  text.replace(text.find(R"("valid": true, "invalid_reasons": [])"),
               std::string(R"("valid": true, "invalid_reasons": [])").size(),
               R"("valid": false, "invalid_reasons": ["achieved 90 req/s", "no responses"])");
  std::string reasons;
  LoadResult r = parse_load_json(text, "x.json", &reasons);
  EXPECT_EQ(r.counts.at("invalid"), 1);
  EXPECT_EQ(reasons, "achieved 90 req/s; no responses");
}

TEST(LoadJson, ErrorsNameTheSource) {
  auto error = [](const std::string& text) {
    try {
      parse_load_json(text, "run/load.json");
    } catch (const LoadParseError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(error("{").rfind("run/load.json: not valid JSON", 0), 0u);
  EXPECT_EQ(error(R"({"schema": "other"})"), "run/load.json: /schema: expected gatebench.load/1");
  EXPECT_EQ(error(R"({"schema": "gatebench.load/1", "elapsed_s": 1, "requests": 1})"),
            "run/load.json: /requests_per_s: missing (expected a number)");
  EXPECT_EQ(error(R"({"schema": "gatebench.load/1", "elapsed_s": 1, "requests": 1,
                      "requests_per_s": 1, "series": [{"t": 0, "rps": 1}, {"t": 1}]})"),
            "run/load.json: /series/1/rps: missing (expected a number)");
}

}  // namespace
}  // namespace gatebench::macro
