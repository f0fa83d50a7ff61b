// Shared by the three access-log fuzz targets: parse arbitrary bytes and check the batch
// contract's invariants, so the fuzzer finds contract breaks as well as memory errors.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string_view>
#include <vector>

#include "micro/core/access_log/access_log.hpp"

namespace gatebench::access_log::fuzz {

inline void check(bool ok) {
  if (!ok) std::abort();
}

inline void check_view(std::string_view buf, std::string_view v, bool flagged) {
  if (v.empty()) {
    check(!flagged);
    return;
  }
  check(v.data() >= buf.data() && v.data() + v.size() <= buf.data() + buf.size());
  // Flagged exactly when the raw bytes hold an escape.
  check(flagged == (std::memchr(v.data(), '\\', v.size()) != nullptr));
  std::vector<char> scratch(v.size());
  check(unescape(Format::tsv, v, scratch).size() <= v.size());
  check(unescape(Format::combined, v, scratch).size() <= v.size());
  check(unescape(Format::jsonl, v, scratch).size() <= v.size());
}

inline int run(Format f, const std::uint8_t* data, std::size_t size) {
  const std::string_view buf(reinterpret_cast<const char*>(data), size);
  std::vector<AccessLogRecord> records(size + 1);
  std::vector<AccessLogError> errors(size + 1);
  const BatchResult all = parse(f, buf, records, errors);
  check(all.consumed == size);
  check(all.records + all.errors <= size);
  std::size_t last_line = 0;
  for (std::size_t i = 0; i < all.errors; ++i) {
    const AccessLogError& e = errors[i];
    check(e.line_offset <= e.offset && e.offset <= size && e.line_offset < size);
    check(e.line_offset == 0 || buf[e.line_offset - 1] == '\n');
    check(i == 0 || e.line_offset > last_line);
    check(static_cast<int>(e.reason) < kErrorReasonCount);
    last_line = e.line_offset;
  }
  for (std::size_t i = 0; i < all.records; ++i) {
    const AccessLogRecord& r = records[i];
    check_view(buf, r.host, r.escaped & kEscHost);
    check_view(buf, r.path, r.escaped & kEscPath);
    check_view(buf, r.query, r.escaped & kEscQuery);
    check_view(buf, r.user_agent, r.escaped & kEscUserAgent);
    check_view(buf, r.referer, r.escaped & kEscReferer);
    check_view(buf, r.rule_id, r.escaped & kEscRuleId);
    check(r.status >= 100 && r.status <= 599);
  }
  // Resuming with small storage gives the same records and errors as one call.
  std::string_view rest = buf;
  std::size_t records_seen = 0, errors_seen = 0;
  AccessLogRecord small_records[3];
  AccessLogError small_errors[2];
  while (!rest.empty()) {
    const BatchResult part = parse(f, rest, small_records, small_errors);
    check(part.consumed > 0 && part.consumed <= rest.size());
    for (std::size_t i = 0; i < part.records; ++i) {
      check(records_seen < all.records && small_records[i] == records[records_seen]);
      ++records_seen;
    }
    for (std::size_t i = 0; i < part.errors; ++i) {
      check(errors_seen < all.errors && small_errors[i].reason == errors[errors_seen].reason);
      ++errors_seen;
    }
    rest.remove_prefix(part.consumed);
  }
  check(records_seen == all.records && errors_seen == all.errors);
  return 0;
}

}  // namespace gatebench::access_log::fuzz
