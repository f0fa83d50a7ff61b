// The chunked transfer coding (RFC 9112 7.1), decoded incrementally: where a chunked body ends
// and how many data bytes it carries, while the bytes themselves stay where they are (a proxy
// forwards the coding unchanged, a load generator only counts).
//
//   ChunkedDecoder d;
//   std::size_t used = d.feed(slice);  // bytes of the slice that belong to the body
//   if (d.done()) ...                  // the last trailer line was read; used < slice.size()
//   if (d.error()) ... d.reason()      // bad framing: the connection cannot be reused
//
// Contract: feed consecutive slices of one body; no allocation, no copy. Rejected: a size that is
// not 1-15 hex digits, extensions outside RFC 9112's grammar (`*( BWS ";" BWS name [ BWS "=" BWS
// value ] )`, the name a token, the value a token or a quoted-string), a size line over
// kMaxSizeLine bytes, trailers over kMaxTrailerBytes in all, a trailer line that is not
// `name ":" value` (the name a token, the value without control bytes other than HTAB, or DEL),
// and CR or LF outside the CRLF that ends a line (chunk data aside). The gateway forwards the
// coding as it came, so whatever a stricter or more lenient peer could read another way is
// refused here rather than passed on.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace gatebench::http1 {

class ChunkedDecoder {
 public:
  static constexpr std::size_t kMaxSizeLine = 4096;
  static constexpr std::size_t kMaxTrailerBytes = 8192;

  // How many bytes of `data` belong to the body (all of them until done() or error()).
  std::size_t feed(std::string_view data);
  bool done() const { return state_ == State::kDone; }
  bool error() const { return state_ == State::kError; }
  // Why error() turned true (a static string; empty otherwise).
  const char* reason() const { return reason_; }
  // Chunk data bytes seen so far (sizes, extensions and trailers excluded).
  std::uint64_t data_bytes() const { return data_bytes_; }
  void reset() { *this = ChunkedDecoder{}; }

 private:
  enum class State : std::uint8_t {
    kSize,
    kSizeAny,       // after the first hex digit
    kExtBws,        // whitespace before a ';'
    kExtNameStart,  // after ';' (whitespace allowed)
    kExtName,
    kExtNameBws,  // whitespace after a name: '=' or ';' follows
    kExtValueStart,
    kExtToken,
    kExtQuoted,
    kExtQuotedPair,  // after a backslash in a quoted-string
    kExtValueEnd,    // after the closing quote
    kSizeLf,
    kData,
    kDataCr,
    kDataLf,
    kTrailerStart,
    kTrailerName,
    kTrailerValue,
    kTrailerLf,
    kFinalLf,
    kDone,
    kError
  };

  static State extension_step(State state, char c);

  State state_ = State::kSize;
  std::uint8_t digits_ = 0;
  std::uint32_t line_bytes_ = 0;  // of the current size line, or of all trailer lines
  std::uint64_t remaining_ = 0;
  std::uint64_t data_bytes_ = 0;
  const char* reason_ = "";
};

}  // namespace gatebench::http1
