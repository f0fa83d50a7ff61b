// gatebench-load's HTTP/2 figures (the `h2` object, the `stream` error class) reach the round's
// counts, which macro.json adds up over rounds; HTTP/1.1 results have none of them.
#include <gtest/gtest.h>

#include "macro/driver/results/load_json.hpp"

namespace gatebench::macro {
namespace {

TEST(H2LoadJson, StreamResetsGoawaysAndRetriesAreCounts) {
  const LoadResult r = parse_load_json(R"({"schema": "gatebench.load/1", "elapsed_s": 1,
    "requests": 990, "requests_per_s": 990, "latency_us": {"p50": 10},
    "errors": {"stream": 4, "total": 4},
    "h2": {"streams_per_connection": 10, "max_concurrent_streams": 10, "streams": 1000,
           "retried": 6, "rst_stream": {"INTERNAL_ERROR": 3, "CANCEL": 1},
           "goaway": {"NO_ERROR": 2}, "nghttp2_allocations_per_stream": 4.5, "not_h2": null}})",
                                       "h2.json");
  EXPECT_EQ(r.errors, 4u);
  EXPECT_DOUBLE_EQ(r.counts.at("h2_rst_stream"), 4);
  EXPECT_DOUBLE_EQ(r.counts.at("h2_goaway"), 2);
  EXPECT_DOUBLE_EQ(r.counts.at("h2_retried"), 6);
  EXPECT_DOUBLE_EQ(r.counts.at("h2_stream_errors"), 4);
}

TEST(H2LoadJson, Http1ResultsHaveNoH2Counts) {
  const LoadResult r = parse_load_json(R"({"schema": "gatebench.load/1", "elapsed_s": 1,
    "requests": 10, "requests_per_s": 10, "latency_us": {}, "h2": null})",
                                       "h1.json");
  EXPECT_FALSE(r.counts.contains("h2_rst_stream"));
  EXPECT_FALSE(r.counts.contains("h2_retried"));
}

}  // namespace
}  // namespace gatebench::macro
