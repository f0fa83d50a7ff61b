// The physical floor of HTTP/1 framing: finding where the head ends with one memchr per line
// (and, for a chunked body, one per chunk-size line with the data skipped), the least work any
// parser must do over the same bytes.
#pragma once

#include <cstddef>
#include <string_view>

namespace gatebench::peers {

// Bytes up to and including the head's empty line, or 0 when there is none.
std::size_t head_end_memchr(std::string_view message);

// Bytes of the chunked body at the start of `body` (its last CRLF included), or 0; no checks.
std::size_t chunked_end_memchr(std::string_view body);

}  // namespace gatebench::peers
