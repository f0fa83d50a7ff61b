#include "micro/core/access_log/jsonl.hpp"

#include <cstring>

#if defined(__SSE2__)
#include <immintrin.h>
#endif

#include "micro/core/access_log/line.hpp"
#include "micro/core/access_log/scan.hpp"

namespace gatebench::access_log {
namespace {

using detail::BlockScanner;
using detail::ByteSet;

// Inside a JSON string only these matter: the closing quote, an escape, and control bytes
// (invalid raw in JSON; '\n' among them ends the record).
constexpr ByteSet kString{'"', '\\', '"', true};
using Scanner = BlockScanner<kString>;

enum Key : std::uint8_t {
  kTime,
  kClient,
  kMethod,
  kScheme,
  kHost,
  kPath,
  kQuery,
  kStatus,
  kBytes,
  kRequestTime,
  kUpstreamTime,
  kUserAgent,
  kReferer,
  kRule,
  kAction,
  kUnknown,
};
constexpr std::uint32_t kAllKeys = (1u << kUnknown) - 1;

Key key_of(const char* k, std::size_t n) {
  auto is = [&](const char* lit) { return std::memcmp(k, lit, n) == 0; };
  switch (n) {
    case 4:
      if (is("time")) return kTime;
      if (is("path")) return kPath;
      if (is("host")) return kHost;
      if (is("rule")) return kRule;
      break;
    case 5:
      if (is("query")) return kQuery;
      if (is("bytes")) return kBytes;
      break;
    case 6:
      if (is("client")) return kClient;
      if (is("method")) return kMethod;
      if (is("scheme")) return kScheme;
      if (is("status")) return kStatus;
      if (is("action")) return kAction;
      break;
    case 7:
      if (is("referer")) return kReferer;
      break;
    case 10:
      if (is("user_agent")) return kUserAgent;
      break;
    case 12:
      if (is("request_time")) return kRequestTime;
      break;
    case 13:
      if (is("upstream_time")) return kUpstreamTime;
      break;
    default:
      break;
  }
  return kUnknown;
}

bool is_ws(char c) {
  return c == ' ' || c == '\t' || c == '\r';
}

class LineParser {
 public:
  LineParser(const char* d, std::size_t n) : d_(d), n_(n), sc_(d, n), fsc_(d, n) {}

  bool parse(std::size_t p, AccessLogRecord& r, std::size_t& next) {
    return parse_fast(p, r, next) || parse_careful(p, r, next);
  }

  std::size_t error_offset() const { return err_at_; }
  ErrorReason error_reason() const { return reason_; }

 private:
  // The line as the gateway writes it: the keys in the documented order, no whitespace, no
  // escape in a string. Keys are then compared as whole literals (one or two word compares)
  // instead of being scanned and looked up. Anything else returns false and leaves the line
  // to parse_careful (any key order, whitespace, escapes, and the error reason).
  [[gnu::always_inline]] bool parse_fast(std::size_t s, AccessLogRecord& r, std::size_t& next) {
    const char* const d = d_;
    std::size_t p = s;
    auto lit = [&](const char* text, std::size_t len) {
      if (n_ - p < len || std::memcmp(d + p, text, len) != 0) return false;
      p += len;
      return true;
    };
    // The closing quote of a string whose opening quote is at p - 1.
    auto str = [&](std::string_view& out) {
      const std::size_t e = fsc_.find<0>(p);
      if (e == n_ || d[e] != '"') return false;
      out = {d + p, e - p};
      p = e + 1;
      return true;
    };
    auto str_or_null = [&](std::string_view& out) {
      if (p < n_ && d[p] == '"') {
        ++p;
        return str(out);
      }
      out = {};
      return lit("null", 4);
    };
    // A bare number ends at ',' or '}' within 16 bytes.
    auto number = [&](const char*& b, const char*& e) {
      if (n_ - p < 16) return false;
#if defined(__SSE2__)
      const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(d + p));
      const unsigned ends = static_cast<unsigned>(_mm_movemask_epi8(_mm_or_si128(
          _mm_cmpeq_epi8(v, _mm_set1_epi8(',')), _mm_cmpeq_epi8(v, _mm_set1_epi8('}')))));
      if (ends == 0) return false;
      const std::size_t len = static_cast<std::size_t>(__builtin_ctz(ends));
#else
      std::size_t len = 0;
      while (len < 16 && d[p + len] != ',' && d[p + len] != '}') ++len;
      if (len == 16) return false;
#endif
      b = d + p;
      e = d + p + len;
      p += len;
      return true;
    };
    auto duration = [&](std::int64_t& out) {
      const char *b, *e;
      if (!number(b, e)) return false;
      if (e - b == 4 && std::memcmp(b, "null", 4) == 0) {
        out = kAbsent;
        return true;
      }
      return detail::parse_seconds_us(b, e, out);
    };
    const char *b, *e;
    std::string_view t;
    if (!lit("{\"time\":", 8) || !number(b, e) || !detail::parse_seconds_us(b, e, r.time_us)) {
      return false;
    }
    if (!lit(",\"client\":\"", 11) || !str(t) ||
        !detail::parse_ipv4(t.data(), t.data() + t.size(), r.client_ip)) {
      return false;
    }
    if (!lit(",\"method\":\"", 11) || !str(t)) return false;
    r.method = (t.size() == 3 && std::memcmp(t.data(), "GET", 3) == 0) ? Method::get
                                                                       : method_from_token(t);
    if (r.method == Method::other && !detail::valid_method_token(t.data(), t.data() + t.size())) {
      return false;
    }
    if (!lit(",\"scheme\":\"", 11) || !str(t)) return false;
    if (t == "https") {
      r.scheme = Scheme::https;
    } else if (t == "http") {
      r.scheme = Scheme::http;
    } else {
      return false;
    }
    if (!lit(",\"host\":", 8) || !str_or_null(r.host)) return false;
    if (!lit(",\"path\":", 8) || !str_or_null(r.path)) return false;
    if (!lit(",\"query\":", 9) || !str_or_null(r.query)) return false;
    if (!lit(",\"status\":", 10) || !number(b, e) || !detail::parse_status(b, e, r.status)) {
      return false;
    }
    if (!lit(",\"bytes\":", 9) || !number(b, e) || !detail::parse_u64_near(b, e, r.bytes_sent)) {
      return false;
    }
    if (!lit(",\"request_time\":", 16) || !duration(r.request_time_us)) return false;
    if (!lit(",\"upstream_time\":", 17) || !duration(r.upstream_time_us)) return false;
    if (!lit(",\"user_agent\":", 14) || !str_or_null(r.user_agent)) return false;
    if (!lit(",\"referer\":", 11) || !str_or_null(r.referer)) return false;
    if (!lit(",\"rule\":", 8) || !str_or_null(r.rule_id)) return false;
    if (!lit(",\"action\":", 10) || !str_or_null(t)) return false;
    if (t.data() == nullptr) {
      r.action = Action::none;
    } else if (!action_from_token(t, r.action)) {
      return false;
    }
    if (!lit("}\n", 2)) return false;
    r.escaped = 0;
    next = p;
    return true;
  }

  bool parse_careful(std::size_t p, AccessLogRecord& r, std::size_t& next) {
    skip_ws(p);
    if (!expect(p, '{')) return false;
    skip_ws(p);
    std::uint32_t seen = 0;
    std::uint8_t escaped = 0;
    if (p < n_ && d_[p] == '}') return fail(p, ErrorReason::missing_field);
    for (;;) {
      // "key"
      if (!expect(p, '"')) return false;
      std::size_t e;
      bool esc;
      if (!string_end(p, e, esc)) return false;
      const Key key = esc ? kUnknown : key_of(d_ + p, e - p);
      const std::size_t key_at = p - 1;
      p = e + 1;
      skip_ws(p);
      if (!expect(p, ':')) return false;
      skip_ws(p);
      if (key != kUnknown) {
        if (seen & (1u << key)) return fail(key_at, ErrorReason::duplicate_field);
        seen |= 1u << key;
      }
      if (!value(key, p, r, escaped)) return false;
      skip_ws(p);
      if (p == n_ || d_[p] == '\n') return fail(p, ErrorReason::missing_field);
      if (d_[p] == ',') {
        ++p;
        skip_ws(p);
        continue;
      }
      if (d_[p] != '}') return fail(p, ErrorReason::bad_syntax);
      break;
    }
    if (seen != kAllKeys) return fail(p, ErrorReason::missing_field);
    ++p;
    skip_ws(p);
    if (p < n_ && d_[p] != '\n') return fail(p, ErrorReason::extra_field);
    r.escaped = escaped;
    next = p + 1;
    return true;
  }

  [[gnu::cold]] bool fail(std::size_t at, ErrorReason reason) {
    err_at_ = at;
    reason_ = reason;
    return false;
  }

  void skip_ws(std::size_t& p) const {
    while (p < n_ && is_ws(d_[p])) ++p;
  }

  bool expect(std::size_t& p, char c) {
    if (p == n_ || d_[p] == '\n') return fail(p, ErrorReason::missing_field);
    if (d_[p] != c) return fail(p, ErrorReason::bad_syntax);
    ++p;
    return true;
  }

  // p is just past an opening quote; e becomes the closing quote.
  bool string_end(std::size_t p, std::size_t& e, bool& esc) {
    esc = false;
    e = sc_.find<0>(p);
    while (e < n_ && d_[e] == '\\') {
      const std::size_t k = escape_length(e);
      if (k == 0) return fail(e, ErrorReason::bad_escape);
      esc = true;
      e = sc_.find<0>(e + k);
    }
    if (e == n_ || d_[e] == '\n') return fail(e, ErrorReason::missing_field);
    if (d_[e] != '"') return fail(e, ErrorReason::bad_syntax);  // raw control byte
    return true;
  }

  // \" \\ \/ \b \f \n \r \t (2 bytes) or \uXXXX (6 bytes) at d[e] == '\\'; 0 when invalid.
  std::size_t escape_length(std::size_t e) const {
    if (e + 1 >= n_) return 0;
    switch (d_[e + 1]) {
      case '"':
      case '\\':
      case '/':
      case 'b':
      case 'f':
      case 'n':
      case 'r':
      case 't':
        return 2;
      case 'u':
        if (n_ - e < 6) return 0;
        for (std::size_t i = 2; i < 6; ++i) {
          if (detail::hex_value(static_cast<unsigned char>(d_[e + i])) < 0) return 0;
        }
        return 6;
      default:
        return 0;
    }
  }

  // A bare token (number, true, false, null): up to the next delimiter.
  std::size_t token_end(std::size_t p) const {
    while (p < n_) {
      const char c = d_[p];
      if (c == ',' || c == '}' || c == '\n' || is_ws(c)) break;
      ++p;
    }
    return p;
  }

  bool is_null(std::size_t p, std::size_t e) const {
    return e - p == 4 && std::memcmp(d_ + p, "null", 4) == 0;
  }

  // A string value, or null for empty.
  bool string_value(std::size_t& p, std::string_view& out, bool& esc) {
    if (p < n_ && d_[p] == '"') {
      std::size_t e;
      if (!string_end(p + 1, e, esc)) return false;
      out = {d_ + p + 1, e - p - 1};
      p = e + 1;
      return true;
    }
    const std::size_t e = token_end(p);
    if (!is_null(p, e))
      return fail(p, e == p ? ErrorReason::missing_field : ErrorReason::bad_syntax);
    out = {};
    esc = false;
    p = e;
    return true;
  }

  bool value(Key key, std::size_t& p, AccessLogRecord& r, std::uint8_t& escaped) {
    std::string_view s;
    bool esc = false;
    const std::size_t at = p;
    switch (key) {
      case kHost:
        if (!string_value(p, r.host, esc)) return false;
        escaped |= esc ? kEscHost : 0;
        return true;
      case kPath:
        if (!string_value(p, r.path, esc)) return false;
        escaped |= esc ? kEscPath : 0;
        return true;
      case kQuery:
        if (!string_value(p, r.query, esc)) return false;
        escaped |= esc ? kEscQuery : 0;
        return true;
      case kUserAgent:
        if (!string_value(p, r.user_agent, esc)) return false;
        escaped |= esc ? kEscUserAgent : 0;
        return true;
      case kReferer:
        if (!string_value(p, r.referer, esc)) return false;
        escaped |= esc ? kEscReferer : 0;
        return true;
      case kRule:
        if (!string_value(p, r.rule_id, esc)) return false;
        escaped |= esc ? kEscRuleId : 0;
        return true;
      case kClient:
        if (!typed_string(p, s, ErrorReason::bad_ip)) return false;
        if (!detail::parse_ipv4(s.data(), s.data() + s.size(), r.client_ip)) {
          return fail(at, ErrorReason::bad_ip);
        }
        return true;
      case kMethod:
        if (!typed_string(p, s, ErrorReason::bad_method)) return false;
        if (!detail::valid_method_token(s.data(), s.data() + s.size())) {
          return fail(at, ErrorReason::bad_method);
        }
        r.method = method_from_token(s);
        return true;
      case kScheme:
        if (!typed_string(p, s, ErrorReason::bad_scheme)) return false;
        if (s == "https") {
          r.scheme = Scheme::https;
        } else if (s == "http") {
          r.scheme = Scheme::http;
        } else {
          return fail(at, ErrorReason::bad_scheme);
        }
        return true;
      case kAction: {
        const std::size_t e = token_end(p);
        if (is_null(p, e)) {
          r.action = Action::none;
          p = e;
          return true;
        }
        if (!typed_string(p, s, ErrorReason::bad_action)) return false;
        if (!action_from_token(s, r.action)) return fail(at, ErrorReason::bad_action);
        return true;
      }
      case kTime: {
        const std::size_t e = token_end(p);
        if (!detail::parse_seconds_us(d_ + p, d_ + e, r.time_us))
          return fail(p, ErrorReason::bad_time);
        p = e;
        return true;
      }
      case kStatus: {
        const std::size_t e = token_end(p);
        if (!detail::parse_status(d_ + p, d_ + e, r.status))
          return fail(p, ErrorReason::bad_status);
        p = e;
        return true;
      }
      case kBytes: {
        const std::size_t e = token_end(p);
        if (!detail::parse_u64(d_ + p, d_ + e, r.bytes_sent))
          return fail(p, ErrorReason::bad_bytes);
        p = e;
        return true;
      }
      case kRequestTime:
        return duration(p, r.request_time_us);
      case kUpstreamTime:
        return duration(p, r.upstream_time_us);
      case kUnknown:
        return skip_value(p);
    }
    return fail(p, ErrorReason::bad_syntax);
  }

  // A string whose content a typed field parses: escapes cannot belong to its grammar.
  bool typed_string(std::size_t& p, std::string_view& out, ErrorReason reason) {
    if (p == n_ || d_[p] != '"') return fail(p, reason);
    std::size_t e;
    bool esc;
    if (!string_end(p + 1, e, esc)) return false;
    out = {d_ + p + 1, e - p - 1};
    p = e + 1;
    return true;
  }

  bool duration(std::size_t& p, std::int64_t& out) {
    const std::size_t e = token_end(p);
    if (is_null(p, e)) {
      out = kAbsent;
    } else if (!detail::parse_seconds_us(d_ + p, d_ + e, out)) {
      return fail(p, ErrorReason::bad_duration);
    }
    p = e;
    return true;
  }

  bool skip_value(std::size_t& p) {
    if (p < n_ && d_[p] == '"') {
      std::size_t e;
      bool esc;
      if (!string_end(p + 1, e, esc)) return false;
      p = e + 1;
      return true;
    }
    const std::size_t e = token_end(p);
    if (e == p)
      return fail(p,
                  p == n_ || d_[p] == '\n' ? ErrorReason::missing_field : ErrorReason::bad_syntax);
    const std::string_view t(d_ + p, e - p);
    if (t != "null" && t != "true" && t != "false") {
      // A JSON number: -?digits(.digits)?([eE][+-]?digits)?
      std::size_t i = 0;
      auto digits = [&] {
        const std::size_t s = i;
        while (i < t.size() && detail::is_digit(static_cast<unsigned char>(t[i]))) ++i;
        return i > s;
      };
      if (t[i] == '-') ++i;
      bool ok = digits();
      if (ok && i < t.size() && t[i] == '.') {
        ++i;
        ok = digits();
      }
      if (ok && i < t.size() && (t[i] == 'e' || t[i] == 'E')) {
        ++i;
        if (i < t.size() && (t[i] == '+' || t[i] == '-')) ++i;
        ok = digits();
      }
      if (!ok || i != t.size()) return fail(p, ErrorReason::bad_syntax);
    }
    p = e;
    return true;
  }

  const char* d_;
  std::size_t n_;
  Scanner sc_;
  Scanner fsc_;  // the fast path's own, so a careful line never moves it backwards
  std::size_t err_at_ = 0;
  ErrorReason reason_ = ErrorReason::bad_syntax;
};

}  // namespace

BatchResult parse_jsonl(std::string_view buffer, std::span<AccessLogRecord> records,
                        std::span<AccessLogError> errors) {
  LineParser parser(buffer.data(), buffer.size());
  return detail::parse_lines(buffer, records, errors, parser);
}

}  // namespace gatebench::access_log
