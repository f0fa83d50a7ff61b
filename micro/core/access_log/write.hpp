// The tsv access-log writer, the inverse of parse_tsv (tsv.hpp): one record as one
// line of 15 tab-separated fields with the escaping of docs/access-log.md. Used by the reference
// gateway's log sink and by the fixture generator.
//
// A string field whose EscapedField bit is set holds raw escaped bytes (as parse_tsv leaves
// them) and is written as it is; any other string field holds decoded bytes and is escaped. So
// parse_tsv(write_tsv(r)) == r for every record parse_tsv produces.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "micro/core/access_log/record.hpp"

namespace gatebench::access_log {

struct TsvWriteOptions {
  // Fraction digits of the time and the durations: 6 (microseconds) or 3 (milliseconds, like
  // nginx's $msec; lower digits are dropped).
  int fraction_digits = 6;
  // The token written for Method::other when it is 1..16 upper-case letters; else "OTHER".
  std::string_view other_method;
};

// The Method of any request-line token: a token that is not 1..16 upper-case letters is
// Method::other (pass it as other_method: the writer then writes "OTHER").
Method method_for_log(std::string_view token);

// Room that always holds a line with every string field cut to "-".
inline constexpr std::size_t kTsvMinLine = 192;

// Length of the line (with its '\n') that write_tsv writes when nothing is cut.
std::size_t tsv_line_size(const AccessLogRecord& r, const TsvWriteOptions& options = {});

// Writes `r` as one line with its '\n' at the start of `out` and returns its length. A line
// longer than `out` has its longest string fields cut (never inside an escape) until it fits.
// Returns 0, writing nothing, when out.size() < kTsvMinLine. No allocation.
std::size_t write_tsv(std::span<char> out, const AccessLogRecord& r,
                      const TsvWriteOptions& options = {});

// Appends the whole line (nothing cut) to `out`; allocates only when `out` must grow.
void append_tsv(std::string& out, const AccessLogRecord& r, const TsvWriteOptions& options = {});

}  // namespace gatebench::access_log
