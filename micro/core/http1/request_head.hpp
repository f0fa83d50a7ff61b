// Request-head parsing: the request line and header section of one HTTP/1.0 or HTTP/1.1
// request, with the framing a proxy needs (docs/http1.md lists every rule).
//
//   RequestHead head;
//   switch (parse_request_head(bytes, 8192, head)) {
//     case HeadStatus::kComplete: ...  // head.head_len bytes are the head; the body follows
//     case HeadStatus::kIncomplete: ... // read more, then parse the whole buffer again
//     default: ...                      // respond head.error_status with head.error
//   }
//
// Contract: pure computation on `buf` (no allocation, no copy, no I/O); `buf` starts at the
// request's first byte and may hold more than the head. The views and offsets in the result
// point into `buf`. Rejected (kBad, 400): bare CR or LF, obs-fold, a name that is not a token or
// is followed by whitespace, control bytes in values, a method that is not a token, a target with
// SP or control bytes, versions other than HTTP/1.0 and HTTP/1.1, a second Host, a missing Host
// in HTTP/1.1, a Content-Length that is not all digits or differs from an earlier one, both
// Content-Length and Transfer-Encoding, a second Transfer-Encoding, any coding but "chunked", and
// Transfer-Encoding in HTTP/1.0. kTooLarge (431): over max_head bytes or kMaxHeaderFields fields.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "micro/core/http1/message.hpp"

namespace gatebench::http1 {

struct RequestHead {
  std::string_view method;
  std::string_view target;
  std::string_view host;  // Host header value, port included
  std::string_view cookie;
  std::string_view user_agent;
  std::string_view referer;
  std::uint32_t head_len = 0;  // bytes up to and including the empty line
  std::uint8_t minor_version = 1;
  BodyKind body = BodyKind::kNone;
  std::uint64_t content_length = 0;
  bool has_content_length = false;
  bool keep_alive = true;
  bool expect_continue = false;
  bool is_head = false;
  const char* error = nullptr;  // why the head was rejected (kBad / kTooLarge)
  std::uint16_t error_status = 0;
  HeadFields fields;
};

// max_head bounds the head size (kTooLarge, status 431 once exceeded).
HeadStatus parse_request_head(std::string_view buf, std::size_t max_head, RequestHead& out);

}  // namespace gatebench::http1
