// Every generated request, ordinary and hostile, written in each format and parsed back, gives
// the generator's decoded values field by field.
#include <gtest/gtest.h>

#include <vector>

#include "fixtures/access_log_fixture.hpp"
#include "micro/core/access_log/access_log.hpp"
#include "tests/micro/core/access_log/access_log_expect.hpp"

namespace gatebench::access_log {
namespace {

class GeneratedRoundTrip : public ::testing::TestWithParam<Format> {};

TEST_P(GeneratedRoundTrip, EveryFieldMatchesTheGenerator) {
  const Format f = GetParam();
  const auto requests =
      fixtures::generate_requests(20'000, fixtures::kDefaultSeed, {.hostile = 0.1});
  const std::string log = fixtures::write_log(requests, f);
  std::vector<AccessLogRecord> records(requests.size());
  std::vector<AccessLogError> errors(16);
  const BatchResult res = parse(f, log, records, errors);
  ASSERT_EQ(res.errors, 0u) << name(errors[0].reason) << " at " << errors[0].offset << ": "
                            << log.substr(errors[0].line_offset, 300);
  ASSERT_EQ(res.records, requests.size());
  EXPECT_EQ(res.consumed, log.size());
  for (std::size_t i = 0; i < requests.size(); ++i) {
    ASSERT_TRUE(testing::matches(records[i], requests[i], f)) << "record " << i;
  }
}

INSTANTIATE_TEST_SUITE_P(AllFormats, GeneratedRoundTrip,
                         ::testing::Values(Format::tsv, Format::combined, Format::jsonl),
                         [](const auto& info) { return std::string(name(info.param)); });

}  // namespace
}  // namespace gatebench::access_log
