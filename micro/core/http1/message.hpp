// HTTP/1.1 message-head types shared by the request-head and response-head parsers.
//
// Contract: a parsed head never owns bytes. Every field is an offset into (or a view of) the
// buffer that was parsed, so the caller keeps that buffer in place while it uses the result.
// Parsing is strict on purpose (bare CR or LF, obs-fold, whitespace before ':', control bytes in
// values and conflicting framing headers are rejected): a proxy that is more lenient than its
// upstream is a request-smuggling vector. The rules are listed in docs/http1.md.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace gatebench::http1 {

inline constexpr std::size_t kMaxHeaderFields = 100;

// kIncomplete: no error so far, the empty line that ends the head has not arrived yet.
// kTooLarge: over the caller's size bound or kMaxHeaderFields (a server answers 431).
enum class HeadStatus : std::uint8_t { kIncomplete, kComplete, kBad, kTooLarge };
enum class BodyKind : std::uint8_t { kNone, kLength, kChunked, kUntilClose };

// Headers a proxy treats specially. Everything else is forwarded untouched.
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
  std::uint32_t value_len;  // without the leading and trailing whitespace
  std::uint16_t name_len;
  KnownHeader kind;
  bool named_in_connection;  // listed as a token in a Connection header: hop-by-hop
};

struct HeadFields {
  std::array<HeaderLine, kMaxHeaderFields> lines;
  std::uint16_t count = 0;
};

// ASCII case-insensitive comparison where `lower` is already lower case.
bool iequals_lower(std::string_view s, std::string_view lower);

// The KnownHeader for a header name (any case); kOther for every other name.
KnownHeader classify_header(std::string_view name);

}  // namespace gatebench::http1
