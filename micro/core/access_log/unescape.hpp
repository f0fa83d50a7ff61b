// Decoding of the escaped string fields the parsers leave raw (AccessLogRecord::escaped), done
// only by consumers that need the bytes, so the parsers stay allocation-free.
#pragma once

#include <span>
#include <string>
#include <string_view>

#include "micro/core/access_log/record.hpp"

namespace gatebench::access_log {

// Decodes `raw` as escaped in `format` into `out`, which needs at least raw.size() bytes (no
// escape decodes to more bytes than it takes); returns the decoded prefix of `out`. The input
// must be a view a parser accepted; JSON \u escapes become UTF-8 (a lone surrogate is U+FFFD).
std::string_view unescape(Format format, std::string_view raw, std::span<char> out);

// Convenience for tests and tools (allocates).
std::string unescape_copy(Format format, std::string_view raw);

// The decoded value of one field of a record: the view itself when not flagged escaped.
std::string field_value(Format format, const AccessLogRecord& r, std::string_view field,
                        std::uint8_t escaped_bit);

}  // namespace gatebench::access_log
