// Response-head parsing: the status line and header section of one HTTP/1.0 or HTTP/1.1
// response, and how its body is framed.
//
// Contract: pure computation on `buf` (no allocation, no copy, no I/O); `buf` starts at the
// response's first byte and may hold more than the head; offsets in the result point into it.
// The header lines obey the request-head rules (request_head.hpp); besides, rejected (kBad): a
// status line other than "HTTP/1.x NNN[ reason]" with NNN >= 100, a Content-Length that is not
// all digits or differs from an earlier one, and both Content-Length and Transfer-Encoding.
// Framing (RFC 9112 6.3): no body after HEAD, 1xx, 204 and 304; chunked when the last transfer
// coding is "chunked"; until the close for any other coding or when no length is given.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "micro/core/http1/message.hpp"

namespace gatebench::http1 {

// What a client needs to read the response: its status and its body's framing.
struct ResponseStatus {
  std::uint16_t status = 0;
  std::uint32_t status_line_len = 0;  // including CRLF
  std::uint32_t reason_off = 0;       // start of the reason phrase (after "HTTP/1.x NNN")
  std::uint32_t head_len = 0;         // bytes up to and including the empty line
  std::uint8_t minor_version = 1;
  BodyKind body = BodyKind::kUntilClose;
  std::uint64_t content_length = 0;
  bool keep_alive = true;
  const char* error = nullptr;  // why the head was rejected (kBad / kTooLarge)
};

// What a proxy needs besides: every header line, to forward or drop it.
struct ResponseHead : ResponseStatus {
  HeadFields fields;
};

// request_was_head tells whether a body follows a 2xx response. max_head bounds the head size.
HeadStatus parse_response_head(std::string_view buf, std::size_t max_head, bool request_was_head,
                               ResponseHead& out);

// The same rules and result without recording the header lines (a load generator's parse).
HeadStatus parse_response_status(std::string_view buf, std::size_t max_head, bool request_was_head,
                                 ResponseStatus& out);

}  // namespace gatebench::http1
