#include "micro/core/access_log/combined.hpp"

#include <bit>
#include <cstdint>
#include <cstring>
#include <string_view>

#include "micro/core/access_log/combined_ipv4.hpp"
#include "micro/core/access_log/index.hpp"
#include "micro/core/access_log/line.hpp"
#include "micro/core/access_log/scan.hpp"
#include "micro/core/access_log/time.hpp"

namespace gatebench::access_log {
namespace {

using detail::BlockScanner;
using detail::ByteSet;

// Little-endian word of up to 8 bytes, and the word of N bytes at p read the same way.
constexpr std::uint64_t le_word(std::string_view t) {
  std::uint64_t w = 0;
  for (std::size_t i = 0; i < t.size() && i < 8; ++i) {
    w |= std::uint64_t{static_cast<unsigned char>(t[i])} << (8 * i);
  }
  return w;
}

template <int N>
std::uint64_t load_word(const char* p) {
  std::uint64_t w = 0;
  std::memcpy(&w, p, N);
  if constexpr (std::endian::native != std::endian::little) w = __builtin_bswap64(w);
  return w;
}

// The first '?' of a request target [b, e), or nullptr. Most targets are shorter than 64 bytes:
// with AVX-512BW one masked load and compare, instead of a call to memchr.
inline const char* find_query(const char* b, const char* e) {
#if defined(__AVX512BW__) && defined(__BMI2__)
  const __m512i qm = _mm512_set1_epi8('?');
  for (; e - b > 64; b += 64) {
    const std::uint64_t m = _mm512_cmpeq_epi8_mask(_mm512_loadu_si512(b), qm);
    if (m != 0) return b + __builtin_ctzll(m);
  }
  // A masked load reads nothing outside the mask (the target may end near the buffer's end),
  // and its masked-out bytes are zero, never '?'.
  const __mmask64 live = _bzhi_u64(~std::uint64_t{0}, static_cast<unsigned>(e - b));
  const std::uint64_t m = _mm512_cmpeq_epi8_mask(_mm512_maskz_loadu_epi8(live, b), qm);
  return m != 0 ? b + __builtin_ctzll(m) : nullptr;
#else
  return static_cast<const char*>(std::memchr(b, '?', static_cast<std::size_t>(e - b)));
#endif
}

constexpr ByteSet kQuoted{'"', '\\', '\n'};  // inside "...": only these end or interrupt it
constexpr ByteSet kBare{' ', '\n', '\n'};    // between fields
using Scanner = BlockScanner<kQuoted, kBare>;

class LineParser {
 public:
  LineParser(const char* d, std::size_t n) : d_(d), n_(n), sc_(d, n), ix_(d, n) {}

  // parse_run gives the line it stopped at straight to the careful path.
  bool parse(std::size_t p, AccessLogRecord& r, std::size_t& next) {
    return (p != failed_at_ && parse_fast(p, r, next)) || parse_careful(p, r, next);
  }

  // See parse_lines: consecutive lines by the fast path alone.
  std::size_t parse_run(std::size_t& pos, AccessLogRecord* out, std::size_t max) {
    return detail::run_fast(pos, n_, out, max, failed_at_,
                            [this](std::size_t p, AccessLogRecord& r, std::size_t& next) {
                              return parse_fast(p, r, next);
                            });
  }

  std::size_t error_offset() const { return err_at_; }
  ErrorReason error_reason() const { return reason_; }

 private:
  // The line as nginx writes it: six quotes, then '\n'. The quote positions fix every other
  // field (the bare ones sit at known distances from them), so only the method's end and the
  // '?' need a search. A line with escapes goes to parse_escaped. Anything unexpected returns
  // false and leaves the line to parse_careful, which also names the error.
  [[gnu::always_inline]] bool parse_fast(std::size_t s, AccessLogRecord& r, std::size_t& next) {
    // The index gives the positions of the line's quotes, backslashes and newline at once.
    if (!ix_.find(s, 7)) return false;
#if defined(__SSE2__)
    // Six quotes, then the newline (a backslash fails both).
    const __m128i want =
        _mm_setr_epi8('"', '"', '"', '"', '"', '"', '\n', 0, 0, 0, 0, 0, 0, 0, 0, 0);
    const __m128i got = _mm_loadu_si128(reinterpret_cast<const __m128i*>(ix_.kind()));
    if ((_mm_movemask_epi8(_mm_cmpeq_epi8(got, want)) & 0x7f) != 0x7f) [[unlikely]] {
      return parse_escaped(s, r, next);
    }
#else
    unsigned bad = static_cast<unsigned char>(ix_.kind()[6] ^ '\n');
    for (int i = 0; i < 6; ++i) bad |= static_cast<unsigned char>(ix_.kind()[i] ^ '"');
    if (bad != 0) [[unlikely]] {
      return parse_escaped(s, r, next);
    }
#endif
    const std::uint32_t* const q = ix_.pos();
    if (!fields(s, q, r)) return false;
    r.escaped = 0;
    next = q[6] + 1;
    ix_.consume(7);
    return true;
  }

  // A line whose next 7 entries are not six quotes and a newline: most often one with \xHH
  // escapes in its quoted fields (hostile requests), whose backslashes sit among the quotes in
  // the index (a valid escape holds no quote, so the quote entries are the fields' own). Walks
  // the entries to the newline, checking each escape, and parses the fields from the quote
  // positions as parse_fast does; the views stay raw and their `escaped` bits are set as
  // parse_careful sets them. An invalid escape, a backslash outside the quotes, a quote too many
  // or too few, or a line with more entries than the index holds returns false for
  // parse_careful, which names the error. Out of line: the clean lines' path stays as it was.
  [[gnu::noinline]] bool parse_escaped(std::size_t s, AccessLogRecord& r, std::size_t& next) {
    std::uint32_t q[7];
    unsigned in_field = 0;    // bit f: quoted field f (request, referer, user agent) has one
    std::uint32_t first = 0;  // the request's first and last escapes
    std::uint32_t last = 0;
    std::size_t k = 0;  // quotes seen
    for (std::size_t i = 0;; ++i) {
      if (!ix_.reach(i)) return false;
      const std::uint32_t p = ix_.pos()[i];
      const char c = ix_.kind()[i];
      if (c == '"') {
        if (k == 6) return false;
        q[k++] = p;
      } else if (c == '\\') {
        // Inside a quote pair, and "\xHH": its three bytes hold no entry.
        if ((k & 1) == 0 || n_ - p < 4 || d_[p + 1] != 'x' ||
            detail::hex_value(static_cast<unsigned char>(d_[p + 2])) < 0 ||
            detail::hex_value(static_cast<unsigned char>(d_[p + 3])) < 0) {
          return false;
        }
        if (k == 1) {
          first = (in_field & 1) ? first : p;
          last = p;
        }
        in_field |= 1u << (k >> 1);
      } else {
        if (k != 6) return false;
        q[6] = p;
        if (!fields(s, q, r)) return false;
        // The request's escapes lie in its target (the method and protocol hold none once
        // checked): in the path before its end, in the query after the '?' that ends it.
        const auto path_end = static_cast<std::uint32_t>(r.path.data() + r.path.size() - d_);
        std::uint8_t escaped = 0;
        if (in_field & 1) {
          escaped |= first < path_end ? kEscPath : 0;
          escaped |= last > path_end ? kEscQuery : 0;
        }
        escaped |= (in_field & 2) ? kEscReferer : 0;
        escaped |= (in_field & 4) ? kEscUserAgent : 0;
        r.escaped = escaped;
        next = p + 1;
        ix_.consume(i + 1);
        return true;
      }
    }
  }

  // Every field but `escaped` of the line from s whose six quotes and newline are at q[0..6].
  [[gnu::always_inline]] bool fields(std::size_t s, const std::uint32_t* q, AccessLogRecord& r) {
    const char* const d = d_;
    if (q[0] < s + 38) return false;

    // $remote_addr - $remote_user [$time_local] " : the address ends at the first space, the
    // bracketed time ends 2 bytes before the quote.
    bool ok = true;
    const char* const b = d + s;
    const char* const quote0 = d + q[0];
#if defined(__SSE2__)
    const __m128i head = _mm_loadu_si128(reinterpret_cast<const __m128i*>(b));
    const unsigned spaces =
        static_cast<unsigned>(_mm_movemask_epi8(_mm_cmpeq_epi8(head, _mm_set1_epi8(' '))));
    const char* const ip_end = b + __builtin_ctz(spaces | 0x10000u);
#else
    const char* ip_end = b;
    while (ip_end < b + 16 && *ip_end != ' ') ++ip_end;
#endif
#if defined(__SSSE3__)
    // Reads 16 bytes from b: the quote is at least 38 bytes further.
    ok &= ip_end - b <= 15 ? detail::parse_ipv4_hashed(head, spaces, r.client_ip)
                           : detail::parse_ipv4(b, ip_end, r.client_ip);
#else
    ok &= (s >= 3 && ip_end - b <= 15) ? detail::parse_ipv4_near(b, ip_end, r.client_ip)
                                       : detail::parse_ipv4(b, ip_end, r.client_ip);
#endif
    const char* const user = ip_end + 3;
    const char* const user_end = quote0 - 30;  // the space before '['
    ok &= (load_word<4>(ip_end) & 0xff'ffff) == le_word(" - ") && user < user_end;
    if (!ok) return false;
    if (user_end - user != 1 &&
        std::memchr(user, ' ', static_cast<std::size_t>(user_end - user)) != nullptr) {
      return false;
    }
    // " [$time_local] " in the 32 bytes before the quote (which start after the line's).
    ok &= detail::parse_time_local_32(quote0 - 32, r.time_us, times_);

    // "$request": METHOD SP target SP HTTP/d.d
    const char* const rb = quote0 + 1;
    const char* const re = d + q[1];
    if (re - rb < 12) return false;
    const char* sp1 = rb[3] == ' ' ? rb + 3 : rb[4] == ' ' ? rb + 4 : nullptr;
    if (sp1 == nullptr) {
      sp1 = static_cast<const char*>(std::memchr(rb, ' ', static_cast<std::size_t>(re - rb)));
      if (sp1 == nullptr) return false;
    }
    r.method = (sp1 - rb == 3 && std::memcmp(rb, "GET", 3) == 0)
                   ? Method::get
                   : method_from_token({rb, static_cast<std::size_t>(sp1 - rb)});
    if (r.method == Method::other) ok &= detail::valid_method_token(rb, sp1);
    if (re - sp1 < 11) return false;  // room for " x HTTP/d.d"; also keeps te >= tb below
    const char* const proto = re - 8;
    {
      // "HTTP/d.d" as one word: the digits become 0..9, everything else 0.
      const std::uint64_t x = load_word<8>(proto) ^ le_word("HTTP/0.0");
      ok &= proto[-1] == ' ';
      ok &= ((x & 0x00ff'00ff'ffff'ffffULL) == 0) & (((x >> 40) & 0xff) <= 9) & ((x >> 56) <= 9);
    }
    const char* const tb = sp1 + 1;
    const char* const te = proto - 1;
    const char* const qm = find_query(tb, te);
    const char* const path_end = qm ? qm : te;
    r.path = {tb, static_cast<std::size_t>(path_end - tb)};
    r.query =
        qm ? std::string_view(qm + 1, static_cast<std::size_t>(te - qm - 1)) : std::string_view();

    // " $status $body_bytes_sent "
    const char* const mid = re + 1;
    const char* const bytes_end = d + q[2] - 1;
    if (bytes_end - mid < 6) return false;
    ok &= mid[0] == ' ' && mid[4] == ' ' && bytes_end[0] == ' ';
    ok &= detail::parse_status(mid + 1, mid + 4, r.status);
    ok &= detail::parse_u64_near(mid + 5, bytes_end, r.bytes_sent);  // e - 8 >= the quote

    // "$http_referer" "$http_user_agent"\n
    ok &= q[4] == q[3] + 2 && d[q[3] + 1] == ' ' && q[6] == q[5] + 1;
    auto dash_empty = [&](std::size_t from, std::size_t to) {
      const std::size_t len = to - from;
      const std::size_t dash = (len == 1) & (d[from] == '-');
      return std::string_view(d + from, len & (dash - 1));
    };
    r.referer = dash_empty(q[2] + 1, q[3]);
    r.user_agent = dash_empty(q[4] + 1, q[5]);
    r.host = {};
    r.rule_id = {};
    r.scheme = Scheme::none;
    r.action = Action::none;
    r.request_time_us = kAbsent;
    r.upstream_time_us = kAbsent;
    return ok;
  }

  [[gnu::noinline]] bool parse_careful(std::size_t p, AccessLogRecord& r, std::size_t& next) {
    // $remote_addr
    std::size_t e = sc_.find<1>(p);
    if (e == n_ || d_[e] != ' ') return fail(e, ErrorReason::missing_field);
    if (!detail::parse_ipv4(d_ + p, d_ + e, r.client_ip)) return fail(p, ErrorReason::bad_ip);
    p = e + 1;
    if (!literal(p, "- ", 2)) return false;
    // $remote_user: any non-empty token, not kept
    e = sc_.find<1>(p);
    if (e == n_ || d_[e] != ' ') return fail(e, ErrorReason::missing_field);
    if (e == p) return fail(p, ErrorReason::bad_syntax);
    p = e + 1;
    // [$time_local]
    if (!literal(p, "[", 1)) return false;
    if (n_ - p < detail::kTimeLocalLength) return fail(p, ErrorReason::bad_time);
    // The parser reads two bytes past the time, which it does not check: at the buffer's end,
    // from a copy, so that a line cut there fails on its "] " as it would before a '\n'.
    char tail[detail::kTimeLocalLength + 2] = {};
    const char* const t = n_ - p >= sizeof tail
                              ? d_ + p
                              : static_cast<const char*>(std::memcpy(tail, d_ + p, n_ - p));
    if (!detail::parse_time_local(t, r.time_us, dates_)) return fail(p, ErrorReason::bad_time);
    p += detail::kTimeLocalLength;
    if (!literal(p, "] \"", 3)) return false;
    // "$request"
    bool esc;
    if (!quoted(p, e, esc)) return false;
    if (!request_line(p, e, esc, r)) return false;
    p = e + 1;
    if (!literal(p, " ", 1)) return false;
    // $status $body_bytes_sent
    e = sc_.find<1>(p);
    if (e == n_ || d_[e] != ' ') return fail(e, ErrorReason::missing_field);
    if (!detail::parse_status(d_ + p, d_ + e, r.status)) return fail(p, ErrorReason::bad_status);
    p = e + 1;
    e = sc_.find<1>(p);
    if (e == n_ || d_[e] != ' ') return fail(e, ErrorReason::missing_field);
    if (!detail::parse_u64(d_ + p, d_ + e, r.bytes_sent)) return fail(p, ErrorReason::bad_bytes);
    p = e + 1;
    // "$http_referer" "$http_user_agent"
    std::uint8_t escaped = r.escaped;
    if (!literal(p, "\"", 1)) return false;
    if (!quoted(p, e, esc)) return false;
    r.referer = dash_is_empty(p, e);
    escaped |= esc ? kEscReferer : 0;
    p = e + 1;
    if (!literal(p, " \"", 2)) return false;
    if (!quoted(p, e, esc)) return false;
    r.user_agent = dash_is_empty(p, e);
    escaped |= esc ? kEscUserAgent : 0;
    r.escaped = escaped;
    p = e + 1;
    if (p < n_ && d_[p] != '\n') return fail(p, ErrorReason::extra_field);
    r.host = {};
    r.rule_id = {};
    r.scheme = Scheme::none;
    r.action = Action::none;
    r.request_time_us = kAbsent;
    r.upstream_time_us = kAbsent;
    next = p + 1;
    return true;
  }

  [[gnu::cold]] bool fail(std::size_t at, ErrorReason reason) {
    err_at_ = at;
    reason_ = reason;
    return false;
  }

  // The next bytes must be `lit`; a line that ends first is missing fields.
  bool literal(std::size_t& p, const char* lit, std::size_t len) {
    for (std::size_t i = 0; i < len; ++i, ++p) {
      if (p == n_ || d_[p] == '\n') return fail(p, ErrorReason::missing_field);
      if (d_[p] != lit[i]) return fail(p, ErrorReason::bad_syntax);
    }
    return true;
  }

  // From p (just past an opening quote) to the closing quote at e; nginx writes '"', '\' and
  // non-printable bytes as \xHH, so a raw quote always closes the field.
  bool quoted(std::size_t p, std::size_t& e, bool& esc) {
    esc = false;
    e = sc_.find<0>(p);
    while (e < n_ && d_[e] == '\\') {
      if (n_ - e < 4 || d_[e + 1] != 'x' ||
          detail::hex_value(static_cast<unsigned char>(d_[e + 2])) < 0 ||
          detail::hex_value(static_cast<unsigned char>(d_[e + 3])) < 0) {
        return fail(e, ErrorReason::bad_escape);
      }
      esc = true;
      e = sc_.find<0>(e + 4);
    }
    if (e == n_ || d_[e] != '"') return fail(e, ErrorReason::missing_field);
    return true;
  }

  std::string_view dash_is_empty(std::size_t b, std::size_t e) const {
    return (e - b == 1 && d_[b] == '-') ? std::string_view() : std::string_view(d_ + b, e - b);
  }

  // METHOD SP target SP HTTP/d.d in [b, e); the target may itself hold spaces.
  bool request_line(std::size_t b, std::size_t e, bool esc, AccessLogRecord& r) {
    const char* const rb = d_ + b;
    const char* const re = d_ + e;
    const auto* sp1 = static_cast<const char*>(std::memchr(rb, ' ', e - b));
    if (sp1 == nullptr) return fail(b, ErrorReason::bad_request_line);
    if (!detail::valid_method_token(rb, sp1)) return fail(b, ErrorReason::bad_method);
    r.method = method_from_token({rb, static_cast<std::size_t>(sp1 - rb)});
    // "HTTP/d.d" is 8 bytes: the protocol starts 9 bytes before the closing quote.
    constexpr std::size_t kProto = 8;
    const char* const proto = re - kProto;
    if (re - sp1 < static_cast<std::ptrdiff_t>(kProto + 3) || proto[-1] != ' ' ||
        std::memcmp(proto, "HTTP/", 5) != 0 ||
        !detail::is_digit(static_cast<unsigned char>(proto[5])) || proto[6] != '.' ||
        !detail::is_digit(static_cast<unsigned char>(proto[7]))) {
      return fail(b, ErrorReason::bad_request_line);
    }
    const char* const tb = sp1 + 1;
    const char* const te = proto - 1;
    const auto* q =
        static_cast<const char*>(std::memchr(tb, '?', static_cast<std::size_t>(te - tb)));
    if (q == nullptr) {
      r.path = {tb, static_cast<std::size_t>(te - tb)};
      r.query = {};
    } else {
      r.path = {tb, static_cast<std::size_t>(q - tb)};
      r.query = {q + 1, static_cast<std::size_t>(te - q - 1)};
    }
    std::uint8_t escaped = 0;
    if (esc) [[unlikely]] {
      if (std::memchr(r.path.data(), '\\', r.path.size())) escaped |= kEscPath;
      if (!r.query.empty() && std::memchr(r.query.data(), '\\', r.query.size())) {
        escaped |= kEscQuery;
      }
    }
    r.escaped = escaped;
    return true;
  }

  const char* d_;
  std::size_t n_;
  Scanner sc_;
  detail::DelimiterIndex<kQuoted> ix_;
  detail::DateCache dates_;       // the careful path's
  detail::TimeLocalCache times_;  // the fast path's
  std::size_t err_at_ = 0;
  std::size_t failed_at_ = ~std::size_t{0};  // the line parse_run stopped at
  ErrorReason reason_ = ErrorReason::bad_syntax;
};

}  // namespace

BatchResult parse_combined(std::string_view buffer, std::span<AccessLogRecord> records,
                           std::span<AccessLogError> errors) {
  LineParser parser(buffer.data(), buffer.size());
  return detail::parse_lines(buffer, records, errors, parser);
}

}  // namespace gatebench::access_log
