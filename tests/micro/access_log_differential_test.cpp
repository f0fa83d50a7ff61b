// gatecore against the RE2 peer on 100,000 generated lines per format: ordinary, hostile and
// randomly damaged ones. Both must accept the same lines and return equal records.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "fixtures/access_log_fixture.hpp"
#include "micro/core/access_log.hpp"
#include "micro/peers/access_log_re2.hpp"

namespace gatebench::access_log {
namespace {

constexpr std::size_t kLines = 100'000;

std::string damaged_log(Format f, std::uint64_t seed) {
  const auto requests = fixtures::generate_requests(kLines, seed, {.hostile = 0.05});
  fixtures::Rng rng = fixtures::Rng(seed).fork("access_log_differential");
  std::string log, line;
  for (const auto& r : requests) {
    line.clear();
    fixtures::append_line(line, r, f);
    if (rng.chance(1, 4)) {
      log += fixtures::mutate_line(std::string_view(line).substr(0, line.size() - 1), rng);
      log += '\n';
    } else {
      log += line;
    }
  }
  return log;
}

class Differential : public ::testing::TestWithParam<Format> {};

TEST_P(Differential, GatecoreAgreesWithRe2) {
  const Format f = GetParam();
  const std::string log = damaged_log(f, fixtures::kDefaultSeed);
  // Mutations can split lines, so leave room for more lines than generated.
  std::vector<AccessLogRecord> ours(2 * kLines), theirs(2 * kLines);
  std::vector<AccessLogError> our_errors(2 * kLines), their_errors(2 * kLines);
  const BatchResult a = parse(f, log, ours, our_errors);
  const BatchResult b = peers::Re2AccessLogParser(f).parse(log, theirs, their_errors);
  ASSERT_EQ(a.consumed, log.size());
  ASSERT_EQ(b.consumed, log.size());
  // Line by line, so a disagreement names the line.
  std::size_t ia = 0, ib = 0;
  for (std::size_t e = 0; e < std::max(a.errors, b.errors); ++e) {
    ASSERT_LT(e, a.errors) << "only RE2 rejects the line at " << their_errors[e].line_offset << ": "
                           << log.substr(their_errors[e].line_offset, 200);
    ASSERT_LT(e, b.errors) << "only gatecore rejects (" << name(our_errors[e].reason)
                           << ") the line at " << our_errors[e].line_offset << ": "
                           << log.substr(our_errors[e].line_offset, 200);
    ASSERT_EQ(our_errors[e].line_offset, their_errors[e].line_offset)
        << "first disagreement near: "
        << log.substr(std::min(our_errors[e].line_offset, their_errors[e].line_offset), 300);
  }
  ASSERT_EQ(a.records, b.records);
  for (; ia < a.records; ++ia, ++ib) {
    ASSERT_TRUE(ours[ia] == theirs[ib])
        << "record " << ia << " differs: path '" << ours[ia].path << "' vs '" << theirs[ib].path
        << "', ua '" << ours[ia].user_agent << "' vs '" << theirs[ib].user_agent << "'";
  }
  // The damage must actually exercise the error paths, or the test proves little.
  EXPECT_GT(a.errors, kLines / 10);
  EXPECT_GT(a.records, kLines / 2);
}

INSTANTIATE_TEST_SUITE_P(AllFormats, Differential,
                         ::testing::Values(Format::tsv, Format::combined, Format::jsonl),
                         [](const auto& info) { return std::string(name(info.param)); });

}  // namespace
}  // namespace gatebench::access_log
