// gatebench's composed access-log record: one line of 15 tab-separated fields, as the
// reference gateway emits it (field list, escaping and "-" in docs/access-log.md).
#pragma once

#include <span>
#include <string_view>

#include "micro/core/access_log/record.hpp"

namespace gatebench::access_log {

// Parses every line of `buffer` into `records`, reporting rejected lines in `errors`; see
// BatchResult for when it stops early. No allocation; reads only inside `buffer`. Views in the
// records point into `buffer`; an escaped field keeps its raw bytes (AccessLogRecord::escaped).
BatchResult parse_tsv(std::string_view buffer, std::span<AccessLogRecord> records,
                      std::span<AccessLogError> errors);

namespace detail {
// parse_tsv with the fast path's portable field kernel, the one builds without AVX-512 use
// (parse_tsv takes the vector one where the build has it); for tests, which compare the two.
BatchResult parse_tsv_portable(std::string_view buffer, std::span<AccessLogRecord> records,
                               std::span<AccessLogError> errors);
}  // namespace detail

}  // namespace gatebench::access_log
