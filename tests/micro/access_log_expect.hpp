// Test support for the access-log suites: what a parser must return for a generated request.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "fixtures/access_log_fixture.hpp"
#include "micro/core/access_log.hpp"

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

}  // namespace gatebench::access_log::testing
