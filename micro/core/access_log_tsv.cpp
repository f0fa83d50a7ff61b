#include "micro/core/access_log_tsv.hpp"

#include "micro/core/access_log_line.hpp"
#include "micro/core/access_log_scan.hpp"

namespace gatebench::access_log {
namespace {

using detail::BlockScanner;
using detail::ByteSet;

constexpr ByteSet kDelims{'\t', '\n', '\\'};
using Scanner = BlockScanner<kDelims>;

// Length of the escape sequence at d[e] == '\\' (\\ \t \n \r \xHH), 0 when invalid.
std::size_t escape_length(const char* d, std::size_t e, std::size_t n) {
  if (e + 1 >= n) return 0;
  switch (d[e + 1]) {
    case '\\':
    case 't':
    case 'n':
    case 'r':
      return 2;
    case 'x':
      if (e + 3 < n && detail::hex_value(static_cast<unsigned char>(d[e + 2])) >= 0 &&
          detail::hex_value(static_cast<unsigned char>(d[e + 3])) >= 0) {
        return 4;
      }
      return 0;
    default:
      return 0;
  }
}

class LineParser {
 public:
  LineParser(const char* d, std::size_t n) : d_(d), n_(n), sc_(d, n) {}

  // Parses the line starting at `p`; on success returns true and sets `next` past its end.
  bool parse(std::size_t p, AccessLogRecord& r, std::size_t& next) {
    std::size_t e;
    bool esc;
    // 0 time
    if (!field(p, e, esc, true)) return false;
    if (!detail::parse_seconds_us(d_ + p, d_ + e, r.time_us)) return fail(p, ErrorReason::bad_time);
    p = e + 1;
    // 1 client ip
    if (!field(p, e, esc, true)) return false;
    if (!detail::parse_ipv4(d_ + p, d_ + e, r.client_ip)) return fail(p, ErrorReason::bad_ip);
    p = e + 1;
    // 2 method
    if (!field(p, e, esc, true)) return false;
    if (!detail::valid_method_token(d_ + p, d_ + e)) return fail(p, ErrorReason::bad_method);
    r.method = method_from_token({d_ + p, e - p});
    p = e + 1;
    // 3 scheme
    if (!field(p, e, esc, true)) return false;
    {
      const std::string_view s(d_ + p, e - p);
      if (s == "https") {
        r.scheme = Scheme::https;
      } else if (s == "http") {
        r.scheme = Scheme::http;
      } else {
        return fail(p, ErrorReason::bad_scheme);
      }
    }
    p = e + 1;
    std::uint8_t escaped = 0;
    // 4..6 host, path, query
    if (!string_field(p, r.host, escaped, kEscHost)) return false;
    if (!string_field(p, r.path, escaped, kEscPath)) return false;
    if (!string_field(p, r.query, escaped, kEscQuery)) return false;
    // 7 status
    if (!field(p, e, esc, true)) return false;
    if (!detail::parse_status(d_ + p, d_ + e, r.status)) return fail(p, ErrorReason::bad_status);
    p = e + 1;
    // 8 bytes
    if (!field(p, e, esc, true)) return false;
    if (!detail::parse_u64(d_ + p, d_ + e, r.bytes_sent)) return fail(p, ErrorReason::bad_bytes);
    p = e + 1;
    // 9, 10 request and upstream time
    if (!duration_field(p, r.request_time_us)) return false;
    if (!duration_field(p, r.upstream_time_us)) return false;
    // 11..13 user agent, referer, rule
    if (!string_field(p, r.user_agent, escaped, kEscUserAgent)) return false;
    if (!string_field(p, r.referer, escaped, kEscReferer)) return false;
    if (!string_field(p, r.rule_id, escaped, kEscRuleId)) return false;
    r.escaped = escaped;
    // 14 action, the last field
    if (!field(p, e, esc, false)) return false;
    if (!action_from_token({d_ + p, e - p}, r.action)) return fail(p, ErrorReason::bad_action);
    next = e + 1;
    return true;
  }

  std::size_t error_offset() const { return err_at_; }
  ErrorReason error_reason() const { return reason_; }

 private:
  bool fail(std::size_t at, ErrorReason reason) {
    err_at_ = at;
    reason_ = reason;
    return false;
  }

  // Finds the end `e` of the field starting at p, which must be a tab (`tab_follows`) or the
  // end of the line. Validates escapes on the way.
  bool field(std::size_t p, std::size_t& e, bool& esc, bool tab_follows) {
    esc = false;
    e = sc_.find<0>(p);
    while (e < n_ && d_[e] == '\\') {
      const std::size_t k = escape_length(d_, e, n_);
      if (k == 0) return fail(e, ErrorReason::bad_escape);
      esc = true;
      e = sc_.find<0>(e + k);
    }
    if (tab_follows) {
      if (e == n_ || d_[e] != '\t') return fail(e, ErrorReason::missing_field);
    } else if (e < n_ && d_[e] == '\t') {
      return fail(e, ErrorReason::extra_field);
    }
    return true;
  }

  bool string_field(std::size_t& p, std::string_view& out, std::uint8_t& escaped,
                    std::uint8_t bit) {
    std::size_t e;
    bool esc;
    if (!field(p, e, esc, true)) return false;
    const std::size_t len = e - p;
    // "-" (and an empty field) stand for an empty value.
    out = (len == 1 && d_[p] == '-') ? std::string_view() : std::string_view(d_ + p, len);
    escaped |= esc ? bit : 0;
    p = e + 1;
    return true;
  }

  bool duration_field(std::size_t& p, std::int64_t& out) {
    std::size_t e;
    bool esc;
    if (!field(p, e, esc, true)) return false;
    if (e - p == 1 && d_[p] == '-') {
      out = kAbsent;
    } else if (!detail::parse_seconds_us(d_ + p, d_ + e, out)) {
      return fail(p, ErrorReason::bad_duration);
    }
    p = e + 1;
    return true;
  }

  const char* d_;
  std::size_t n_;
  Scanner sc_;
  std::size_t err_at_ = 0;
  ErrorReason reason_ = ErrorReason::bad_syntax;
};

}  // namespace

BatchResult parse_tsv(std::string_view buffer, std::span<AccessLogRecord> records,
                      std::span<AccessLogError> errors) {
  LineParser parser(buffer.data(), buffer.size());
  return detail::parse_lines(buffer, records, errors, parser);
}

}  // namespace gatebench::access_log
