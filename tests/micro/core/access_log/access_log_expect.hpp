// Test support for the access-log suites: what a parser must return for a generated request.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "fixtures/access_log_fixture.hpp"
#include "micro/core/access_log/access_log.hpp"

namespace gatebench::access_log::testing {

// Compares every field of `got` (decoding escaped views) with the generated request as the
// format carries it.
inline ::testing::AssertionResult matches(const AccessLogRecord& got,
                                          const fixtures::GeneratedRequest& want, Format f) {
  const bool combined = f == Format::combined;
  std::string diff;
  // nginx writes an absent header as "-", so a literal "-" reads back as empty.
  auto header = [&](const std::string& v) { return combined && v == "-" ? std::string() : v; };
  auto check = [&](const char* what, auto a, auto b) {
    if (!(a == b)) diff += std::string(what) + " differs; ";
  };
  check("time", got.time_us, combined ? want.time_us / 1'000'000 * 1'000'000 : want.time_us);
  check("client", got.client_ip, want.client_ip);
  check("method", got.method, method_from_token(want.method));
  check("scheme", got.scheme, combined ? Scheme::none : want.scheme);
  check("status", got.status, want.status);
  check("bytes", got.bytes_sent, want.bytes_sent);
  check("request_time", got.request_time_us, combined ? kAbsent : want.request_time_us);
  check("upstream_time", got.upstream_time_us, combined ? kAbsent : want.upstream_time_us);
  check("action", got.action, combined ? Action::none : want.action);
  check("host", field_value(f, got, got.host, kEscHost), combined ? "" : want.host);
  check("path", field_value(f, got, got.path, kEscPath), want.path);
  check("query", field_value(f, got, got.query, kEscQuery), want.query);
  check("user_agent", field_value(f, got, got.user_agent, kEscUserAgent), header(want.user_agent));
  check("referer", field_value(f, got, got.referer, kEscReferer), header(want.referer));
  check("rule", field_value(f, got, got.rule_id, kEscRuleId), combined ? "" : want.rule_id);
  if (diff.empty()) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << diff;
}

// One line through the batch API, three times: alone and without '\n' (the careful path, last
// line of a buffer); followed by enough valid lines for the fast path to see whole 64-byte
// blocks; and as the second line of such a buffer (tsv's vector kernel never takes a buffer's
// first line). All must give the same outcome; the second is returned.
struct One {
  std::shared_ptr<const std::string> buffer;  // what the record's views point into
  bool ok = false;
  AccessLogRecord record;
  AccessLogError error{};
};

inline std::string filler(Format f) {
  const auto requests = fixtures::generate_requests(4, fixtures::kDefaultSeed, {.hostile = 0});
  return fixtures::write_log(requests, f);
}

inline One parse_one(Format f, std::string_view line) {
  const std::string fill = filler(f);
  const std::string lead = fill.substr(0, fill.find('\n') + 1);  // one valid line
  One out[3];
  out[0].buffer = std::make_shared<const std::string>(line);
  out[1].buffer = std::make_shared<const std::string>(std::string(line) + "\n" + fill);
  out[2].buffer = std::make_shared<const std::string>(lead + std::string(line) + "\n" + fill);
  for (int mode = 0; mode < 3; ++mode) {
    const std::string& buf = *out[mode].buffer;
    const std::size_t at = mode == 2 ? lead.size() : 0;  // where the line starts
    const std::size_t before = mode == 2 ? 1 : 0;        // records before it
    AccessLogRecord records[8];
    AccessLogError errors[8];
    const BatchResult res = parse(f, buf, records, errors);
    EXPECT_EQ(res.consumed, buf.size());
    // The line is either the record after the lead or the first error, starting at `at`.
    out[mode].ok = res.errors == 0 || errors[0].line_offset != at;
    if (out[mode].ok) {
      out[mode].record = records[before];
    } else {
      out[mode].error = errors[0];
      out[mode].error.line_offset -= at;
      out[mode].error.offset -= at;
    }
    if (mode > 0) {
      EXPECT_EQ(res.records + res.errors, 5u + before) << "filler lines must parse";
    }
  }
  for (int mode = 1; mode < 3; ++mode) {
    EXPECT_EQ(out[0].ok, out[mode].ok) << "careful and fast path disagree on: " << line;
    if (out[0].ok && out[mode].ok) {
      EXPECT_TRUE(out[0].record == out[mode].record)
          << "careful and fast path disagree on: " << line;
    } else if (!out[0].ok && !out[mode].ok) {
      EXPECT_EQ(out[0].error.reason, out[mode].error.reason) << line;
      EXPECT_EQ(out[0].error.offset, out[mode].error.offset) << line;
    }
  }
  return out[1];
}

inline ErrorReason reason_of(Format f, std::string_view line) {
  const One one = parse_one(f, line);
  EXPECT_FALSE(one.ok) << "accepted: " << line;
  return one.error.reason;
}

}  // namespace gatebench::access_log::testing
