// The typed access-log record shared by the three wire formats (tsv, combined, jsonl), the
// error contract of their batch parsers, and the names used in messages. Format:
// docs/access-log.md.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace gatebench::access_log {

enum class Method : std::uint8_t {
  get,
  head,
  post,
  put,
  del,
  patch,
  options,
  connect,
  trace,
  other,  // any other token of 1..16 upper-case letters
};

enum class Scheme : std::uint8_t { none, http, https };

// What the gateway did with the request; `none` when no rule matched (written "-").
enum class Action : std::uint8_t { none, allow, block, challenge, queue, ratelimit, detect };

// Bits of AccessLogRecord::escaped: the view of that field holds the raw, still escaped bytes
// of the input (decode with the format's unescape function in unescape.hpp).
enum EscapedField : std::uint8_t {
  kEscHost = 1u << 0,
  kEscPath = 1u << 1,
  kEscQuery = 1u << 2,
  kEscUserAgent = 1u << 3,
  kEscReferer = 1u << 4,
  kEscRuleId = 1u << 5,
};

inline constexpr std::int64_t kAbsent = -1;  // durations the log line does not carry

// One request. Views point into the parsed buffer and live as long as it does. A field the
// format does not carry is empty / none / kAbsent (e.g. host, scheme and durations in combined).
struct AccessLogRecord {
  std::int64_t time_us = 0;  // unix time in microseconds, UTC
  std::int64_t request_time_us = kAbsent;
  std::int64_t upstream_time_us = kAbsent;
  std::uint64_t bytes_sent = 0;
  std::uint32_t client_ip = 0;  // IPv4, host byte order (1.2.3.4 == 0x01020304)
  std::uint16_t status = 0;
  Method method = Method::get;
  Scheme scheme = Scheme::none;
  Action action = Action::none;
  std::uint8_t escaped = 0;  // EscapedField bits
  std::string_view host;
  std::string_view path;
  std::string_view query;  // without the '?'
  std::string_view user_agent;
  std::string_view referer;
  std::string_view rule_id;

  friend bool operator==(const AccessLogRecord&, const AccessLogRecord&) = default;
};

enum class ErrorReason : std::uint8_t {
  empty_line,
  missing_field,  // the line ended before every field was seen
  extra_field,    // more fields / bytes after the last field
  bad_syntax,     // a delimiter, quote, bracket or JSON token is not where it must be
  bad_time,
  bad_ip,
  bad_method,
  bad_request_line,  // combined: "$request" is not METHOD SP target SP HTTP/d.d
  bad_scheme,
  bad_status,
  bad_bytes,
  bad_duration,
  bad_escape,
  bad_action,
  duplicate_field,  // jsonl: a key given twice
};
inline constexpr int kErrorReasonCount = 15;

struct AccessLogError {
  std::size_t line_offset;  // first byte of the rejected line
  std::size_t offset;       // byte at which the parser noticed the problem (>= line_offset)
  ErrorReason reason;
};

// Outcome of one batch call. Parsing stops early only when `records` or `errors` storage is
// full; `consumed` is then the offset of the first line not parsed, so the caller resumes with
// the rest of the buffer. consumed == buffer size means the whole buffer was handled.
struct BatchResult {
  std::size_t records = 0;
  std::size_t errors = 0;
  std::size_t consumed = 0;
};

enum class Format : std::uint8_t { tsv, combined, jsonl };

std::string_view name(Method m);
std::string_view name(Scheme s);
std::string_view name(Action a);
std::string_view name(ErrorReason r);
std::string_view name(Format f);

// Shared by the parsers and the peers so every implementation maps the same tokens.
Method method_from_token(std::string_view token);             // caller validated [A-Z]{1,16}
bool action_from_token(std::string_view token, Action& out);  // "-" is none

}  // namespace gatebench::access_log
