// Where a message body ends in the window of bytes the proxy forwards unchanged. One cursor type
// serves the request body (client to upstream) and the response body (upstream to client).
//
// The window holds received bytes; [off, scan) are known to be body and not yet forwarded, and
// bytes from `scan` on are not yet identified (the next message, or more body once scanned).
#pragma once

#include <cstddef>
#include <cstdint>

#include "macro/gateway/http_head.hpp"

namespace gatebench::gateway {

struct BodyCursor {
  BodyKind kind = BodyKind::kNone;
  std::size_t off = 0;   // first body byte not yet forwarded
  std::size_t scan = 0;  // bytes before this offset are known to be body
  std::uint64_t left = 0;
  ChunkedScanner chunks;
  bool complete = true;

  // The body starts at offset `at` of the window; `length` counts for kLength only.
  void start(BodyKind k, std::uint64_t length, std::size_t at) {
    *this = BodyCursor{};
    kind = k;
    off = scan = at;
    left = k == BodyKind::kLength ? length : 0;
    complete = k == BodyKind::kNone;
  }
  // Moves `scan` over the body bytes among the first `len` bytes of `window`. `eof`: the sender
  // closed its side, which ends a kUntilClose body.
  void identify(const char* window, std::size_t len, bool eof);
  // Every identified byte went out: the window starts over at `at`.
  void rewind(std::size_t at) { off = scan = at; }
  bool framing_error() const { return kind == BodyKind::kChunked && chunks.error(); }
};

}  // namespace gatebench::gateway
