// Internal to the access-log parsers: the batch loop every format shares (storage limits,
// empty lines, resuming at the next line after an error).
#pragma once

#include <cstring>
#include <span>
#include <string_view>

#include "micro/core/access_log/record.hpp"

namespace gatebench::access_log::detail {

// LineParser: bool parse(size_t line_start, AccessLogRecord&, size_t& next) plus
// error_offset()/error_reason() describing the last failure. `next` may exceed the buffer size
// by one when the last line has no '\n'. A parser may also have
// size_t parse_run(size_t& pos, AccessLogRecord* out, size_t max): it parses consecutive lines
// from pos by its fast path alone, up to max, and stops (leaving pos at the line) at the first
// one it does not take, which parse then gets (a loop of the fast path alone keeps its state in
// registers and skips the checks below).
// The body of a parse_run: `fast(p, record, next)` over consecutive lines of [0, n) from pos, up
// to max records; stops at the first line it does not take, leaving pos (and failed_at) there.
template <typename Fast>
[[gnu::always_inline]] inline std::size_t run_fast(std::size_t& pos, std::size_t n,
                                                   AccessLogRecord* out, std::size_t max,
                                                   std::size_t& failed_at, Fast&& fast) {
  std::size_t k = 0;
  std::size_t p = pos;
  while (k < max && p < n) {
    std::size_t next;
    if (!fast(p, out[k], next)) {
      failed_at = p;
      break;
    }
    ++k;
    p = next < n ? next : n;
  }
  pos = p;
  return k;
}

template <typename LineParser>
BatchResult parse_lines(std::string_view buffer, std::span<AccessLogRecord> records,
                        std::span<AccessLogError> errors, LineParser& parser) {
  const char* const d = buffer.data();
  const std::size_t n = buffer.size();
  BatchResult res;
  std::size_t pos = 0;
  while (pos < n && res.records < records.size() && res.errors < errors.size()) {
    if constexpr (requires(std::size_t & p, AccessLogRecord * out) {
                    parser.parse_run(p, out, 1);
                  }) {
      const std::size_t run =
          parser.parse_run(pos, records.data() + res.records, records.size() - res.records);
      res.records += run;
      if (pos >= n || res.records == records.size()) break;
    }
    if (d[pos] == '\n') {
      errors[res.errors++] = {pos, pos, ErrorReason::empty_line};
      ++pos;
      continue;
    }
    std::size_t next;
    if (parser.parse(pos, records[res.records], next)) [[likely]] {
      ++res.records;
      pos = next < n ? next : n;
      continue;
    }
    errors[res.errors++] = {pos, parser.error_offset(), parser.error_reason()};
    // A raw '\n' ends a record in every format, wherever the parser gave up.
    const void* nl = std::memchr(d + pos, '\n', n - pos);
    pos = nl ? static_cast<std::size_t>(static_cast<const char*>(nl) - d) + 1 : n;
  }
  res.consumed = pos;
  return res;
}

}  // namespace gatebench::access_log::detail
