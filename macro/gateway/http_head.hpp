// HTTP/1.1 message-head scanners for the reference gateway.
//
// Contract: the scanners read a byte buffer that starts at the first byte of a message head and
// either find the whole head (terminated by an empty CRLF line) or report that more bytes are
// needed. They never allocate and never copy: every field they report is a view into the input
// buffer, so the caller must keep the buffer in place while it uses the result. Parsing is strict
// on purpose (bare LF, obs-fold, whitespace before ':' and conflicting framing headers are
// rejected) because a proxy that is more lenient than its upstream is a request-smuggling vector.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace gatebench::gateway {

inline constexpr std::size_t kMaxHeaderFields = 100;

enum class HeadStatus : std::uint8_t { kIncomplete, kComplete, kBad, kTooLarge };
enum class BodyKind : std::uint8_t { kNone, kLength, kChunked, kUntilClose };

// Headers the proxy treats specially. Everything else is forwarded untouched.
enum class KnownHeader : std::uint8_t {
  kOther,
  kHost,
  kContentLength,
  kTransferEncoding,
  kConnection,
  kKeepAlive,
  kProxyConnection,
  kTe,
  kTrailer,
  kUpgrade,
  kExpect,
  kCookie,
  kXForwardedFor,
  kXForwardedProto,
  kUserAgent,
  kReferer,
};

struct HeaderLine {
  std::uint32_t line_off;  // first byte of the name
  std::uint32_t line_len;  // whole line including CRLF
  std::uint32_t value_off;
  std::uint32_t value_len;
  std::uint16_t name_len;
  KnownHeader kind;
  bool named_in_connection;  // listed as a token in a Connection header: hop-by-hop
};

struct HeadFields {
  std::array<HeaderLine, kMaxHeaderFields> lines;
  std::uint16_t count = 0;
};

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

struct ResponseHead {
  std::uint16_t status = 0;
  std::uint32_t status_line_len = 0;  // including CRLF
  std::uint32_t reason_off = 0;       // start of the reason phrase (after "HTTP/1.x NNN")
  std::uint32_t head_len = 0;
  std::uint8_t minor_version = 1;
  BodyKind body = BodyKind::kUntilClose;
  std::uint64_t content_length = 0;
  bool keep_alive = true;
  const char* error = nullptr;
  HeadFields fields;
};

// Scans a request head. max_head bounds the head size (kTooLarge, status 431 once exceeded).
HeadStatus parse_request_head(std::string_view buf, std::size_t max_head, RequestHead& out);

// Scans a response head. request_was_head tells whether a body follows a 2xx response.
HeadStatus parse_response_head(std::string_view buf, std::size_t max_head, bool request_was_head,
                               ResponseHead& out);

// Finds where a chunked body ends while the bytes pass through unchanged (the proxy forwards the
// chunked encoding as it is). Feed consecutive slices; feed() returns how many bytes of the slice
// belong to the body. done() turns true after the last trailer line; error() on bad framing.
class ChunkedScanner {
 public:
  std::size_t feed(std::string_view data);
  bool done() const { return state_ == State::kDone; }
  bool error() const { return state_ == State::kError; }
  void reset() { *this = ChunkedScanner{}; }

 private:
  enum class State : std::uint8_t {
    kSize,
    kSizeAny,  // after the first hex digit
    kExt,
    kSizeLf,
    kData,
    kDataCr,
    kDataLf,
    kTrailerStart,
    kTrailerLine,
    kTrailerLf,
    kFinalLf,
    kDone,
    kError
  };
  State state_ = State::kSize;
  std::uint64_t remaining_ = 0;
  std::uint8_t digits_ = 0;
};

// ASCII case-insensitive comparison where `lower` is already lower case.
bool iequals_lower(std::string_view s, std::string_view lower);

}  // namespace gatebench::gateway
