#include "macro/driver/results/wrk_output.hpp"

#include <gtest/gtest.h>

namespace gatebench::macro {
namespace {

const char* kWrk = R"(Running 4s test @ http://127.0.0.1:18080/
  1 threads and 64 connections
  Thread Stats   Avg      Stdev     Max   +/- Stdev
    Latency   301.49us   95.11us   3.94ms   83.83%
    Req/Sec   210.61k    12.03k  228.43k    75.00%
  Latency Distribution
     50%  289.00us
     75%  326.00us
     90%  379.00us
     99%    1.61ms
  838236 requests in 4.00s, 123.56MB read
  Socket errors: connect 1, read 2, write 0, timeout 3
  Non-2xx or 3xx responses: 12
Requests/sec: 209545.53
Transfer/sec:     30.89MB
)";

TEST(WrkOutput, ParsesSummaryPercentilesAndErrors) {
  LoadResult r = parse_wrk_output(kWrk);
  EXPECT_DOUBLE_EQ(r.rps, 209545.53);
  EXPECT_EQ(r.requests, 838236u);
  EXPECT_DOUBLE_EQ(r.duration_s, 4.0);
  EXPECT_DOUBLE_EQ(*r.p50_us, 289.0);
  EXPECT_DOUBLE_EQ(*r.p90_us, 379.0);
  EXPECT_DOUBLE_EQ(*r.p99_us, 1610.0);
  EXPECT_FALSE(r.p999_us.has_value());  // not in --latency's table
  EXPECT_EQ(r.errors, 1u + 2 + 0 + 3 + 12);
  EXPECT_EQ(r.counts.at("socket_timeout"), 3);
  EXPECT_EQ(r.counts.at("non_2xx_3xx"), 12);
}

TEST(WrkOutput, DoneHookLineGivesExactPercentiles) {
  std::string text = std::string(kWrk) + "gatebench-latency-us 288 380 1600 2950 301.5\n";
  LoadResult r = parse_wrk_output(text);
  EXPECT_DOUBLE_EQ(*r.p50_us, 288);
  EXPECT_DOUBLE_EQ(*r.p99_us, 1600);
  EXPECT_DOUBLE_EQ(*r.p999_us, 2950);
  EXPECT_DOUBLE_EQ(*r.mean_us, 301.5);
}

// Found by wrk_output_fuzz: strtod reads "-1610" (and "inf", "nan"), which no latency is.
TEST(WrkOutput, ANegativeOrNonFiniteLatencyIsAnError) {
  for (const char* bad : {"-1610", "inf", "nan", "12x"}) {
    std::string text = std::string(kWrk) + "gatebench-latency-us 289 379 " + bad + " 2900 301.49\n";
    EXPECT_THROW(parse_wrk_output(text), LoadParseError) << bad;
  }
}

TEST(WrkOutput, MissingSummaryIsAnError) {
  EXPECT_THROW(parse_wrk_output(""), LoadParseError);
  EXPECT_THROW(parse_wrk_output("unable to connect to 127.0.0.1:1 Connection refused\n"),
               LoadParseError);
  std::string cut(kWrk);
  cut = cut.substr(0, cut.find("Requests/sec"));
  EXPECT_THROW(parse_wrk_output(cut), LoadParseError);
}

TEST(WrkOutput, ACountBeyondWhatACounterHoldsIsAnError) {
  std::string text(kWrk);
  text.replace(text.find("838236 requests"), 6, "99999999999999999999999");
  EXPECT_THROW(parse_wrk_output(text), LoadParseError);
}

TEST(WrkOutput, Durations) {
  EXPECT_DOUBLE_EQ(*parse_wrk_duration_us("289.00us"), 289);
  EXPECT_DOUBLE_EQ(*parse_wrk_duration_us("1.5ms"), 1500);
  EXPECT_DOUBLE_EQ(*parse_wrk_duration_us("2.00s"), 2e6);
  EXPECT_DOUBLE_EQ(*parse_wrk_duration_us("1.00m"), 60e6);
  EXPECT_FALSE(parse_wrk_duration_us("fast").has_value());
  EXPECT_FALSE(parse_wrk_duration_us("xms").has_value());
  EXPECT_FALSE(parse_wrk_duration_us("289").has_value());  // wrk always prints a unit
  EXPECT_FALSE(parse_wrk_duration_us("1.00x").has_value());
  // Exactly, not within a few ULPs: the values land in macro.json as written.
  EXPECT_EQ(*parse_wrk_duration_us("850.00us"), 850.0);
  EXPECT_EQ(*parse_wrk_duration_us("1.23ms"), 1230.0);
  EXPECT_EQ(*parse_wrk_duration_us("289.00us"), 289.0);
}

TEST(WrkOutput, DoneScriptUsesTheTag) {
  EXPECT_NE(wrk_done_script().find(std::string(kWrkLatencyTag)), std::string::npos);
  EXPECT_NE(wrk_done_script().find("percentile(99.9)"), std::string::npos);
}

}  // namespace
}  // namespace gatebench::macro
