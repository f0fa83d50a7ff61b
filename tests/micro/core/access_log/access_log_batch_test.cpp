// The batch contract, the same for every format: errors with offsets, parsing resumes at the
// next line, storage limits stop before a line and say where, no trailing newline needed,
// every view inside the buffer.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "fixtures/access_log_fixture.hpp"
#include "micro/core/access_log/access_log.hpp"

namespace gatebench::access_log {
namespace {

class Batch : public ::testing::TestWithParam<Format> {
 protected:
  // Five generated lines, each with its '\n'.
  std::vector<std::string> lines() const {
    std::vector<std::string> out;
    for (const auto& r : fixtures::generate_requests(5, 7, {.hostile = 0})) {
      std::string line;
      fixtures::append_line(line, r, GetParam());
      out.push_back(line);
    }
    return out;
  }
};

TEST_P(Batch, ErrorsCarryOffsetsAndParsingContinues) {
  const auto l = lines();
  const std::string bad = "garbage that is no record\n";
  const std::string buf = l[0] + bad + l[1] + "\n" + l[2];
  std::vector<AccessLogRecord> records(8);
  std::vector<AccessLogError> errors(8);
  const BatchResult res = parse(GetParam(), buf, records, errors);
  EXPECT_EQ(res.records, 3u);
  ASSERT_EQ(res.errors, 2u);
  EXPECT_EQ(res.consumed, buf.size());
  EXPECT_EQ(errors[0].line_offset, l[0].size());
  EXPECT_GE(errors[0].offset, errors[0].line_offset);
  EXPECT_LT(errors[0].offset, l[0].size() + bad.size());
  EXPECT_EQ(errors[1].line_offset, l[0].size() + bad.size() + l[1].size());
  EXPECT_EQ(errors[1].reason, ErrorReason::empty_line);
}

TEST_P(Batch, LastLineNeedsNoNewline) {
  const auto l = lines();
  const std::string buf = l[0] + l[1].substr(0, l[1].size() - 1);
  std::vector<AccessLogRecord> records(4);
  std::vector<AccessLogError> errors(4);
  const BatchResult res = parse(GetParam(), buf, records, errors);
  EXPECT_EQ(res.records, 2u);
  EXPECT_EQ(res.errors, 0u);
  EXPECT_EQ(res.consumed, buf.size());
}

TEST_P(Batch, FullRecordStorageStopsBeforeALineAndResumes) {
  const auto l = lines();
  std::string buf;
  for (const auto& line : l) buf += line;
  std::vector<AccessLogRecord> records(2);
  std::vector<AccessLogError> errors(4);
  BatchResult res = parse(GetParam(), buf, records, errors);
  EXPECT_EQ(res.records, 2u);
  EXPECT_EQ(res.consumed, l[0].size() + l[1].size());
  std::size_t total = res.records;
  std::string_view rest = std::string_view(buf).substr(res.consumed);
  while (!rest.empty()) {
    res = parse(GetParam(), rest, records, errors);
    ASSERT_GT(res.consumed, 0u);
    total += res.records;
    rest.remove_prefix(res.consumed);
  }
  EXPECT_EQ(total, 5u);
}

TEST_P(Batch, FullErrorStorageStopsBeforeTheNextLine) {
  const auto l = lines();
  const std::string buf = "bad\n" + l[0] + "bad again\n" + l[1];
  std::vector<AccessLogRecord> records(8);
  std::vector<AccessLogError> errors(1);
  const BatchResult res = parse(GetParam(), buf, records, errors);
  EXPECT_EQ(res.errors, 1u);
  EXPECT_EQ(res.records, 0u);
  EXPECT_EQ(res.consumed, 4u);
}

TEST_P(Batch, EmptyInputsAndNoStorage) {
  std::vector<AccessLogRecord> records(2);
  std::vector<AccessLogError> errors(2);
  BatchResult res = parse(GetParam(), "", records, errors);
  EXPECT_EQ(res.records + res.errors + res.consumed, 0u);
  res = parse(GetParam(), "\n", records, errors);
  EXPECT_EQ(res.errors, 1u);
  EXPECT_EQ(errors[0].reason, ErrorReason::empty_line);
  EXPECT_EQ(res.consumed, 1u);
  res = parse(GetParam(), lines()[0], {}, errors);
  EXPECT_EQ(res.consumed, 0u);
}

TEST_P(Batch, EveryViewLiesInsideTheBuffer) {
  const std::string buf = fixtures::write_log(
      fixtures::generate_requests(3000, fixtures::kDefaultSeed, {.hostile = 0.2}), GetParam());
  std::vector<AccessLogRecord> records(3000);
  std::vector<AccessLogError> errors(1);
  const BatchResult res = parse(GetParam(), buf, records, errors);
  ASSERT_EQ(res.records, 3000u);
  for (std::size_t i = 0; i < res.records; ++i) {
    const auto& r = records[i];
    for (std::string_view v : {r.host, r.path, r.query, r.user_agent, r.referer, r.rule_id}) {
      if (v.empty()) continue;
      EXPECT_GE(v.data(), buf.data());
      EXPECT_LE(v.data() + v.size(), buf.data() + buf.size());
    }
  }
}

INSTANTIATE_TEST_SUITE_P(AllFormats, Batch,
                         ::testing::Values(Format::tsv, Format::combined, Format::jsonl),
                         [](const auto& info) { return std::string(name(info.param)); });

}  // namespace
}  // namespace gatebench::access_log
