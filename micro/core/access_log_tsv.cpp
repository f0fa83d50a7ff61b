#include "micro/core/access_log_tsv.hpp"

#include <cstring>

#include "micro/core/access_log_index.hpp"
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
  LineParser(const char* d, std::size_t n) : d_(d), n_(n), sc_(d, n), ix_(d, n) {}

  // Parses the line starting at `p`; on success returns true and sets `next` past its end.
  bool parse(std::size_t p, AccessLogRecord& r, std::size_t& next) {
    return parse_fast(p, r, next) || parse_careful(p, r, next);
  }

  std::size_t error_offset() const { return err_at_; }
  ErrorReason error_reason() const { return reason_; }

 private:
  // The line as the gateway writes it: 14 tabs, then '\n', no escape. The index gives the 15
  // delimiter positions at once, so the fields parse independently of each other (the CPU
  // overlaps them) instead of each field's search waiting for the previous one. Any surprise
  // (an escape, a missing tab, a bad value, a line the index does not cover) returns false and
  // leaves the line to parse_careful, which also names the error.
  [[gnu::always_inline]] bool parse_fast(std::size_t s, AccessLogRecord& r, std::size_t& next) {
    if (!ix_.find(s, 15)) return false;
    const std::uint32_t* const pos = ix_.pos();
    // The first 14 delimiters must be tabs, the 15th the newline (a backslash fails both).
#if defined(__SSE2__)
    const __m128i want = _mm_setr_epi8('\t', '\t', '\t', '\t', '\t', '\t', '\t', '\t', '\t', '\t',
                                       '\t', '\t', '\t', '\t', '\n', 0);
    const __m128i got = _mm_loadu_si128(reinterpret_cast<const __m128i*>(ix_.kind()));
    if ((_mm_movemask_epi8(_mm_cmpeq_epi8(got, want)) & 0x7fff) != 0x7fff) return false;
#else
    unsigned bad = static_cast<unsigned char>(ix_.kind()[14] ^ '\n');
    for (int i = 0; i < 14; ++i) bad |= static_cast<unsigned char>(ix_.kind()[i] ^ '\t');
    if (bad != 0) return false;
#endif

    const char* const d = d_;
    // Field i spans [b(i), e(i)); i is a constant after inlining.
    auto b = [&](int i) { return i == 0 ? d + s : d + pos[i - 1] + 1; };
    auto e = [&](int i) { return d + pos[i]; };
    auto str = [&](int i) {
      const char* fb = b(i);
      const std::size_t len = static_cast<std::size_t>(e(i) - fb);
      // "-" is empty; a select, not a branch: whether a query or referer is there is random.
      const std::size_t dash = (len == 1) & (*fb == '-');
      return std::string_view(fb, len & (dash - 1));
    };
    auto duration = [&](int i, std::int64_t& out) {
      if (e(i) - b(i) == 1 && *b(i) == '-') {
        out = kAbsent;
        return true;
      }
      return detail::parse_seconds_us(b(i), e(i), out);
    };
    bool ok = detail::parse_seconds_us(b(0), e(0), r.time_us);
    // parse_ipv4_near reads 3 bytes before and 16 from the address's start.
    ok &= (pos[0] + 1 >= 3 && n_ - (pos[0] + 1) >= 16)
              ? detail::parse_ipv4_near(b(1), e(1), r.client_ip)
              : detail::parse_ipv4(b(1), e(1), r.client_ip);
    r.method = (e(2) - b(2) == 3 && std::memcmp(b(2), "GET", 3) == 0)
                   ? Method::get
                   : method_from_token({b(2), static_cast<std::size_t>(e(2) - b(2))});
    if (r.method == Method::other) ok &= detail::valid_method_token(b(2), e(2));
    {
      const std::ptrdiff_t len = e(3) - b(3);
      const bool http = std::memcmp(b(3), "http", 4) == 0;  // 9 more fields follow: in bounds
      const bool https = http & (len == 5) & (b(3)[4] == 's');
      ok &= https | (http & (len == 4));
      r.scheme = https ? Scheme::https : Scheme::http;
    }
    r.host = str(4);
    r.path = str(5);
    r.query = str(6);
    ok &= detail::parse_status(b(7), e(7), r.status);
    ok &= detail::parse_u64_near(b(8), e(8), r.bytes_sent);  // e(8) is >= 8 bytes into the line
    ok &= duration(9, r.request_time_us);
    ok &= duration(10, r.upstream_time_us);
    r.user_agent = str(11);
    r.referer = str(12);
    r.rule_id = str(13);
    r.escaped = 0;
    if (e(14) - b(14) == 1 && *b(14) == '-') {
      r.action = Action::none;
    } else {
      ok &= action_from_token({b(14), static_cast<std::size_t>(e(14) - b(14))}, r.action);
    }
    if (!ok) return false;
    next = pos[14] + 1;
    ix_.consume(15);
    return true;
  }

  [[gnu::noinline]] bool parse_careful(std::size_t p, AccessLogRecord& r, std::size_t& next) {
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

  [[gnu::cold]] bool fail(std::size_t at, ErrorReason reason) {
    err_at_ = at;
    reason_ = reason;
    return false;
  }

  // Finds the end `e` of the field starting at p, which must be a tab (`tab_follows`) or the
  // end of the line. Validates escapes on the way.
  [[gnu::always_inline]] bool field(std::size_t p, std::size_t& e, bool& esc, bool tab_follows) {
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

  [[gnu::always_inline]] bool string_field(std::size_t& p, std::string_view& out,
                                           std::uint8_t& escaped, std::uint8_t bit) {
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

  [[gnu::always_inline]] bool duration_field(std::size_t& p, std::int64_t& out) {
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
  detail::DelimiterIndex<kDelims> ix_;
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
