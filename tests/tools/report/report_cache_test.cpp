// The report's "Cache hit ratio" table from a gatebench.macro/2 file with cache scenarios as the
// driver writes them (expect_hit_ratio, hit_ratio per round and as the median, intervals): a
// range met, one missed in a round, one where nothing was counted, a skipped one and a scenario
// without a cache check, through the model, report.json, report.md and report.html.
#include <gtest/gtest.h>

#include "tools/src/report/report_model.hpp"
#include "tools/src/report/report_writers.hpp"

namespace gatebench::tools {
namespace {

using nlohmann::json;

json round_json(int n, const std::string& status, const std::string& reason, json hit_ratio) {
  json r = {{"round", n},     {"position", 1},   {"status", status}, {"reason", reason},
            {"rps", 20000.0}, {"vs_nginx", 1.1}, {"errors", 0}};
  if (!hit_ratio.is_null()) r["hit_ratio"] = std::move(hit_ratio);
  return r;
}

json cache_scenario(const std::string& name, const std::string& status, const std::string& reason,
                    std::pair<double, double> expect, json median, json rounds) {
  json s = {{"name", name},
            {"status", status},
            {"reason", reason},
            {"baseline", "nginx-baseline"},
            {"expect_hit_ratio", {expect.first, expect.second}},
            {"rounds_planned", 3},
            {"rounds", std::move(rounds)}};
  if (status != "skipped") s["rps"] = 20000.0;
  if (!median.is_null()) {
    s["hit_ratio"] = median;
    s["intervals"] = {{"hit_ratio",
                       {{"median", median},
                        {"lo", median.get<double>() - 0.0002},
                        {"hi", median.get<double>() + 0.0002},
                        {"n", 3},
                        {"level", 0.75}}}};
  }
  return s;
}

json cache_macro_doc() {
  json hit_rounds = {round_json(1, "ok", "", 0.9995), round_json(2, "ok", "", 0.9997),
                     round_json(3, "ok", "", 0.9999)};
  json miss_rounds = {
      round_json(1, "ok", "", 0.0742),
      round_json(2, "failed", "hit ratio 0.2500 outside the expected [0, 0.2] (X-Cache-Status)",
                 0.25),
      // Failed for its errors after the cache check passed: the ratio still counts as met.
      round_json(3, "failed", "errors: 2.0% of requests (20 of 1000), above the 1.0% limit",
                 0.0800)};
  json redis_rounds = {
      round_json(1, "failed", "no response counted for the cache's X-Cache-Status header", json()),
      round_json(2, "failed", "target exited: gatebench-gateway (exit 1)", json())};
  return {{"schema", "gatebench.macro/2"},
          {"env", json::object()},
          {"run", json::object()},
          {"scenarios",
           {{{"name", "nginx-baseline"},
             {"status", "ok"},
             {"reason", ""},
             {"rps", 18000.0},
             {"rounds", {round_json(1, "ok", "", json())}}},
            cache_scenario("gateway-cache-memory-hit", "ok", "", {0.99, 1}, 0.9997, hit_rounds),
            cache_scenario("gateway-cache-miss", "failed",
                           "round 2: hit ratio 0.2500 outside the expected [0, 0.2] "
                           "(X-Cache-Status); round 3: errors",
                           {0, 0.2}, 0.0771, miss_rounds),
            cache_scenario("gateway-cache-redis-hit", "failed",
                           "round 1: no response counted for the cache's X-Cache-Status header",
                           {0.99, 1}, json(), redis_rounds),
            cache_scenario("varnish-hit", "skipped", "varnishd not installed", {0.99, 1}, json(),
                           json::array())}}};
}

struct CacheInputs {
  ResultSet macro = parse_result_set(cache_macro_doc(), "macro.json");
  ReportModel model() const { return build_report_model(nullptr, &*macro.macro, nullptr, {}); }
};

TEST(ReportCache, VerdictsPerScenarioAndRound) {
  const CacheInputs in;
  const ReportModel m = in.model();
  ASSERT_EQ(m.cache_hits.size(), 4u);  // nginx-baseline has no cache check
  const CacheHitRow& hit = m.cache_hits[0];
  EXPECT_EQ(hit.scenario->name, "gateway-cache-memory-hit");
  EXPECT_EQ(hit.verdict, CacheVerdict::met);
  EXPECT_TRUE(hit.verdict_rounds.empty());
  ASSERT_NE(hit.interval, nullptr);
  EXPECT_DOUBLE_EQ(hit.interval->lo, 0.9995);

  const CacheHitRow& miss = m.cache_hits[1];
  EXPECT_EQ(miss.verdict, CacheVerdict::missed);
  EXPECT_EQ(miss.verdict_rounds, std::vector<int>{2});
  ASSERT_EQ(miss.rounds.size(), 3u);
  EXPECT_EQ(miss.rounds[0].verdict, CacheVerdict::met);
  EXPECT_EQ(miss.rounds[1].verdict, CacheVerdict::missed);
  EXPECT_EQ(miss.rounds[2].verdict, CacheVerdict::met);

  const CacheHitRow& redis = m.cache_hits[2];
  EXPECT_EQ(redis.verdict, CacheVerdict::not_counted);
  EXPECT_EQ(redis.verdict_rounds, std::vector<int>{1});
  EXPECT_FALSE(redis.hit_ratio);
  EXPECT_EQ(redis.rounds[1].verdict, CacheVerdict::not_measured);

  EXPECT_EQ(m.cache_hits[3].verdict, CacheVerdict::skipped);
}

// A ratio outside the range with a reason that does not name the cache check (a file written by
// hand or by a driver without the check) is still a miss: the range decides.
TEST(ReportCache, TheRangeDecidesWhenTheReasonIsSilent) {
  json doc = cache_macro_doc();
  doc["scenarios"][1]["rounds"][1]["hit_ratio"] = 0.95;
  const ResultSet set = parse_result_set(doc, "macro.json");
  const ReportModel m = build_report_model(nullptr, &*set.macro, nullptr, {});
  EXPECT_EQ(m.cache_hits[0].verdict, CacheVerdict::missed);
  EXPECT_EQ(m.cache_hits[0].verdict_rounds, std::vector<int>{2});
}

TEST(ReportCache, JsonRows) {
  const CacheInputs in;
  const json j = report_json(in.model());
  const json& rows = j["cache_hit_ratio"];
  ASSERT_EQ(rows.size(), 4u);
  EXPECT_EQ(rows[0]["scenario"], "gateway-cache-memory-hit");
  EXPECT_EQ(rows[0]["verdict"], "met");
  EXPECT_EQ(rows[0]["expected"], json({0.99, 1.0}));
  EXPECT_EQ(rows[0]["hit_ratio"], 0.9997);
  EXPECT_NEAR(rows[0]["hit_ratio_interval"]["hi"].get<double>(), 0.9999, 1e-12);
  EXPECT_EQ(rows[0]["rounds"].size(), 3u);
  EXPECT_EQ(rows[1]["verdict"], "missed");
  EXPECT_EQ(rows[1]["verdict_rounds"], json({2}));
  EXPECT_EQ(rows[1]["rounds"][1]["hit_ratio"], 0.25);
  EXPECT_EQ(rows[1]["rounds"][1]["verdict"], "missed");
  EXPECT_EQ(rows[1]["rounds"][1]["status"], "failed");
  EXPECT_EQ(rows[2]["verdict"], "not counted");
  EXPECT_TRUE(rows[2]["hit_ratio"].is_null());
  EXPECT_TRUE(rows[2]["hit_ratio_interval"].is_null());
  EXPECT_TRUE(rows[2]["rounds"][0]["hit_ratio"].is_null());
  EXPECT_EQ(rows[3]["verdict"], "skipped");
  EXPECT_EQ(rows[3]["rounds"], json::array());
  // Without macro.json there is no table at all.
  EXPECT_TRUE(
      report_json(build_report_model(nullptr, nullptr, nullptr, {}))["cache_hit_ratio"].is_null());
}

TEST(ReportCache, MarkdownAndHtmlRows) {
  const CacheInputs in;
  const ReportModel m = in.model();
  const std::string md = report_markdown(m);
  for (const char* line :
       {"### Cache hit ratio", "| scenario | status | hit ratio | expected | verdict | rounds |",
        "| gateway-cache-memory-hit | ok | 0.9997 [0.9995, 0.9999] | [0.99, 1] | met | 1: 0.9995, "
        "2: 0.9997, 3: 0.9999 |",
        "| gateway-cache-miss | failed | 0.0771 [0.0769, 0.0773] | [0, 0.2] | missed (round 2) | "
        "1: 0.0742, 2: 0.2500 missed, 3: 0.0800 |",
        "| gateway-cache-redis-hit | failed | – | [0.99, 1] | not counted (round 1) | 1: – not "
        "counted, 2: – |",
        "| varnish-hit | skipped | – | [0.99, 1] | skipped | – |"})
    EXPECT_NE(md.find(line), std::string::npos) << line << "\n" << md;
  EXPECT_EQ(md.find("| nginx-baseline | ok | – |"), std::string::npos) << md;
  const std::string html = report_html(m);
  EXPECT_NE(html.find("Cache hit ratio"), std::string::npos);
  EXPECT_NE(html.find("missed (round 2)"), std::string::npos);
  EXPECT_NE(html.find("not counted (round 1)"), std::string::npos);
}

}  // namespace
}  // namespace gatebench::tools
