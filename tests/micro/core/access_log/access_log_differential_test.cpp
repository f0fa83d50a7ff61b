// gatecore against the RE2 peer on 100,000 generated lines per format: ordinary, hostile and
// randomly damaged ones. Both must accept the same lines and return equal records.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "fixtures/access_log_fixture.hpp"
#include "micro/core/access_log/access_log.hpp"
#include "micro/peers/access_log_nlohmann.hpp"
#include "micro/peers/access_log_re2.hpp"
#include "micro/peers/access_log_simdjson.hpp"

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

// The JSON peers accept any JSON, so they are compared on undamaged lines (hostile values
// included): simdjson returns the same raw views, nlohmann the decoded strings.
TEST(DifferentialJsonl, GatecoreAgreesWithSimdjsonAndNlohmann) {
  // Fewer lines than the RE2 oracle: nlohmann's DOM is slow under the sanitizers, and the
  // value mapping, not the volume, is what this test checks.
  constexpr std::size_t kJsonLines = 20'000;
  const auto requests =
      fixtures::generate_requests(kJsonLines, fixtures::kDefaultSeed + 1, {.hostile = 0.1});
  std::string log = fixtures::write_log(requests, Format::jsonl);
  log.reserve(log.size() + peers::SimdjsonAccessLogParser::kPadding);
  std::vector<AccessLogRecord> ours(kJsonLines), sj(kJsonLines), nl(kJsonLines);
  std::vector<AccessLogError> errors(1);
  ASSERT_EQ(parse_jsonl(log, ours, errors).records, kJsonLines);
  peers::SimdjsonAccessLogParser simdjson;
  ASSERT_EQ(simdjson.parse(log, sj, errors).records, kJsonLines);
  peers::NlohmannAccessLogParser nlohmann;
  ASSERT_EQ(nlohmann.parse(log, nl, errors).records, kJsonLines);
  for (std::size_t i = 0; i < kJsonLines; ++i) {
    ASSERT_TRUE(ours[i] == sj[i]) << "simdjson differs on record " << i;
    AccessLogRecord decoded = ours[i];
    const std::string host = field_value(Format::jsonl, ours[i], ours[i].host, kEscHost);
    const std::string path = field_value(Format::jsonl, ours[i], ours[i].path, kEscPath);
    const std::string query = field_value(Format::jsonl, ours[i], ours[i].query, kEscQuery);
    const std::string ua = field_value(Format::jsonl, ours[i], ours[i].user_agent, kEscUserAgent);
    const std::string ref = field_value(Format::jsonl, ours[i], ours[i].referer, kEscReferer);
    const std::string rule = field_value(Format::jsonl, ours[i], ours[i].rule_id, kEscRuleId);
    decoded.host = host;
    decoded.path = path;
    decoded.query = query;
    decoded.user_agent = ua;
    decoded.referer = ref;
    decoded.rule_id = rule;
    decoded.escaped = 0;
    ASSERT_TRUE(decoded == nl[i]) << "nlohmann differs on record " << i;
  }
}

}  // namespace
}  // namespace gatebench::access_log
