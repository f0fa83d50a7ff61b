#include "micro/core/access_log_tsv.hpp"

#include <cstring>

#if defined(__AVX512VBMI2__)
#include <immintrin.h>
// GCC 12's AVX-512 headers pass _mm512_undefined_*() as the merge source of unmasked
// conversions, which -Wmaybe-uninitialized reports at every caller (GCC bug 105593).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#endif

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
    return parse_fast(p, r, next) || parse_careful(p, r, next);
  }

  std::size_t error_offset() const { return err_at_; }
  ErrorReason error_reason() const { return reason_; }

 private:
  // The line as the gateway writes it: 14 tabs, then '\n', no escape. Gathers the 15
  // delimiter positions first, so the fields parse independently of each other (the CPU
  // overlaps them) instead of each field's search waiting for the previous one. Any surprise
  // (an escape, a missing tab, a bad value, the buffer's last 64 bytes) returns false and
  // leaves the line to parse_careful, which also names the error.
  [[gnu::always_inline]] bool parse_fast(std::size_t s, AccessLogRecord& r, std::size_t& next) {
    // pos[0] is one before the line start, pos[k] the delimiter ending field k - 1. Each block
    // writes 8 positions unconditionally (an empty mask gives junk past the real ones,
    // overwritten by the next block): a data-dependent branch per position would mispredict at
    // every block end, this way only the block loop's exit does, once per line.
    std::size_t pos[16 + 64 + 16];
    pos[0] = s - 1;  // wraps for s == 0 and wraps back in b()
    std::size_t blk = s & ~std::size_t{63};
    std::uint64_t block_mask;
    if (blk == fast_block_) {
      block_mask = fast_mask_;
    } else {
      if (blk + 64 > n_) return false;
      block_mask = detail::block_mask<kDelims>(d_ + blk);
    }
    std::uint64_t m = block_mask & (~std::uint64_t{0} << (s & 63));
    int k = 1;
#if defined(__AVX512VBMI2__)
    // One compress per block turns the mask into the positions (and the delimiter bytes) in
    // order; 8 positions are widened and stored at once.
    alignas(64) static constexpr std::uint8_t kIota[64] = {
        0,  1,  2,  3,  4,  5,  6,  7,  8,  9,  10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21,
        22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43,
        44, 45, 46, 47, 48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59, 60, 61, 62, 63};
    const __m512i iota = _mm512_load_si512(kIota);
    char kinds[16 + 64];
    for (;;) {
      const int count = __builtin_popcountll(m);
      const __m512i offsets = _mm512_maskz_compress_epi8(m, iota);
      const __m512i bytes = _mm512_maskz_compress_epi8(m, _mm512_loadu_si512(d_ + blk));
      const __m512i base = _mm512_set1_epi64(static_cast<long long>(blk));
      const __m128i low = _mm512_castsi512_si128(offsets);
      _mm512_storeu_si512(pos + k, _mm512_add_epi64(_mm512_cvtepu8_epi64(low), base));
      _mm512_storeu_si512(pos + k + 8,
                          _mm512_add_epi64(_mm512_cvtepu8_epi64(_mm_srli_si128(low, 8)), base));
      _mm_storeu_si128(reinterpret_cast<__m128i*>(kinds + k), _mm512_castsi512_si128(bytes));
      if (count > 16) [[unlikely]] {
        alignas(64) std::uint8_t off[64];
        alignas(64) char kind[64];
        _mm512_store_si512(off, offsets);
        _mm512_store_si512(kind, bytes);
        for (int i = 16; i < count; ++i) {
          pos[k + i] = blk + off[i];
          kinds[k + i] = kind[i];
        }
      }
      k += count;
      if (k > 15) break;
      blk += 64;
      if (blk + 64 > n_) return false;
      block_mask = detail::block_mask<kDelims>(d_ + blk);
      m = block_mask;
    }
    // The first 14 delimiters must be tabs, the 15th the newline (a backslash fails both).
    const __m128i want = _mm_setr_epi8('\t', '\t', '\t', '\t', '\t', '\t', '\t', '\t', '\t', '\t',
                                       '\t', '\t', '\t', '\t', '\n', 0);
    const __m128i got = _mm_loadu_si128(reinterpret_cast<const __m128i*>(kinds + 1));
    if ((_mm_movemask_epi8(_mm_cmpeq_epi8(got, want)) & 0x7fff) != 0x7fff) return false;
#else
    for (;;) {
      const int count = __builtin_popcountll(m);
      std::uint64_t rest = m;
#pragma GCC unroll 8
      for (int i = 0; i < 8; ++i) {
        pos[k + i] =
            blk + static_cast<std::size_t>(__builtin_ctzll(rest | (std::uint64_t{1} << 63)));
        rest &= rest - 1;
      }
      for (int i = 8; i < count; ++i) {  // a block dense with short fields
        pos[k + i] = blk + static_cast<std::size_t>(__builtin_ctzll(rest));
        rest &= rest - 1;
      }
      k += count;
      if (k > 15) break;
      blk += 64;
      if (blk + 64 > n_) return false;
      block_mask = detail::block_mask<kDelims>(d_ + blk);
      m = block_mask;
    }
    // The first 14 delimiters must be tabs, the 15th the newline (a backslash fails both).
    unsigned bad = static_cast<unsigned char>(d_[pos[15]] ^ '\n');
#pragma GCC unroll 14
    for (int i = 1; i < 15; ++i) bad |= static_cast<unsigned char>(d_[pos[i]] ^ '\t');
    if (bad != 0) return false;
#endif
    fast_block_ = blk;
    const unsigned used = static_cast<unsigned>(pos[15] & 63);
    fast_mask_ = used == 63 ? 0 : block_mask & (~std::uint64_t{0} << (used + 1));

    const char* const d = d_;
    auto b = [&](int i) { return d + (pos[i] + 1); };  // size_t wrap, not pointer overflow
    auto e = [&](int i) { return d + pos[i + 1]; };
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
    ok &= (pos[1] + 1 >= 3 && n_ - (pos[1] + 1) >= 16)
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
    next = pos[15] + 1;
    return ok;
  }

  bool parse_careful(std::size_t p, AccessLogRecord& r, std::size_t& next) {
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
  std::size_t fast_block_ = ~std::size_t{0};
  std::uint64_t fast_mask_ = 0;
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
