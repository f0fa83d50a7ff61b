#include "micro/core/access_log/tsv.hpp"

#include <cstddef>
#include <cstring>

#include "micro/core/access_log/index.hpp"
#include "micro/core/access_log/line.hpp"
#include "micro/core/access_log/scan.hpp"

namespace gatebench::access_log {
namespace {

using detail::BlockScanner;
using detail::ByteSet;

constexpr ByteSet kDelims{'\t', '\n', '\\'};
using Scanner = BlockScanner<kDelims>;
using Index = detail::DelimiterIndex<kDelims, true>;

// How the fast path turns a line's delimiter positions into fields: `wide` (AVX-512: the six
// string views and the four decimal numbers of a line in a few vector steps) or `portable`
// (field by field in scalar code).
enum class FieldKernel { wide, portable };

// The wide kernel writes string views as (length, pointer) pairs, libstdc++'s layout.
#if defined(__AVX512VBMI__) && defined(GATEBENCH_HAVE_IPV4_COMPRESS) && defined(__GLIBCXX__)
#define GATEBENCH_TSV_WIDE 1
constexpr FieldKernel kBestFieldKernel = FieldKernel::wide;
#else
constexpr FieldKernel kBestFieldKernel = FieldKernel::portable;
#endif

#if defined(GATEBENCH_TSV_WIDE)
// The record's four 64-bit numbers and six views each sit side by side, so one vector store
// writes each group.
static_assert(offsetof(AccessLogRecord, request_time_us) == offsetof(AccessLogRecord, time_us) + 8);
static_assert(offsetof(AccessLogRecord, upstream_time_us) ==
              offsetof(AccessLogRecord, time_us) + 16);
static_assert(offsetof(AccessLogRecord, bytes_sent) == offsetof(AccessLogRecord, time_us) + 24);
static_assert(sizeof(std::string_view) == 16);
static_assert(offsetof(AccessLogRecord, path) == offsetof(AccessLogRecord, host) + 16);
static_assert(offsetof(AccessLogRecord, query) == offsetof(AccessLogRecord, host) + 32);
static_assert(offsetof(AccessLogRecord, user_agent) == offsetof(AccessLogRecord, host) + 48);
static_assert(offsetof(AccessLogRecord, referer) == offsetof(AccessLogRecord, host) + 64);
static_assert(offsetof(AccessLogRecord, rule_id) == offsetof(AccessLogRecord, host) + 80);

// Tables of the wide kernel. Fields are numbered 0..14 as in docs/access-log.md; the number
// lanes are 16-byte lanes holding the 16 bytes that end where a field ends: time (0), request
// time (9), upstream time (10) and bytes sent (8), the order of their record members.
struct WideTables {
  // (length, start) of fields 4, 5, 6 and 11, 12, 13 as dwords; + 16 picks the second source.
  alignas(64) std::int32_t view_pick[16];
  alignas(64) std::uint8_t lane_length[64];  // byte index of the lane's field length
  alignas(64) std::uint8_t from_end[64];     // 15 - byte position in the lane
  // Digits to their place in a 16-digit number: for the three times, the second's digits to
  // 0..9 and the milliseconds to 10..12 (the dot drops out and 13..15 become zeros, which
  // multiplies by 1000 to microseconds); bytes sent stays as it is.
  alignas(64) std::uint8_t place[64];
  alignas(64) std::int32_t length_low[16];   // smallest length of fields 0, 8, 9, 10
  alignas(64) std::int32_t length_span[16];  // largest minus smallest
};

constexpr WideTables make_wide_tables() {
  WideTables t{};
  constexpr int kViews[6] = {4, 5, 6, 11, 12, 13};
  for (int v = 0; v < 6; ++v) {
    t.view_pick[2 * v] = kViews[v];
    t.view_pick[2 * v + 1] = 16 + kViews[v];
  }
  constexpr int kLaneField[4] = {0, 9, 10, 8};
  for (int lane = 0; lane < 4; ++lane) {
    for (int j = 0; j < 16; ++j) {
      const int at = 16 * lane + j;
      t.lane_length[at] = static_cast<std::uint8_t>(4 * kLaneField[lane]);
      t.from_end[at] = static_cast<std::uint8_t>(15 - j);
      int src = j;  // bytes sent
      if (lane < 3) src = j < 10 ? j + 2 : j < 13 ? j + 3 : 0;
      t.place[at] = static_cast<std::uint8_t>(16 * lane + src);
    }
  }
  for (int f : {0, 9, 10}) {
    t.length_low[f] = 5;   // "s.mmm"
    t.length_span[f] = 9;  // up to 10 digits of seconds
  }
  t.length_low[8] = 1;
  t.length_span[8] = 15;  // a lane holds 16 digits
  return t;
}

constexpr WideTables kWide = make_wide_tables();

// Little-endian word of up to 8 bytes.
constexpr std::uint64_t word_of(std::string_view t) {
  std::uint64_t w = 0;
  for (std::size_t i = 0; i < t.size() && i < 8; ++i) {
    w |= std::uint64_t{static_cast<unsigned char>(t[i])} << (8 * i);
  }
  return w;
}

// Bit of each time lane's '.' (3 digits before the field's end) in a 64-bit byte mask.
constexpr std::uint64_t kDotBits =
    (std::uint64_t{1} << 12) | (std::uint64_t{1} << 28) | (std::uint64_t{1} << 44);
#endif

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

template <FieldKernel K>
class LineParser {
 public:
  LineParser(const char* d, std::size_t n) : d_(d), n_(n), sc_(d, n), ix_(d, n) {}

  // Parses the line starting at `p`; on success returns true and sets `next` past its end.
  bool parse(std::size_t p, AccessLogRecord& r, std::size_t& next) {
#if defined(GATEBENCH_TSV_WIDE)
    if constexpr (K == FieldKernel::wide) {
      return (p != failed_at_ && parse_wide(p, r, next)) || parse_careful(p, r, next);
    }
#endif
    return parse_fast(p, r, next) || parse_careful(p, r, next);
  }

  std::size_t error_offset() const {
    return err_at_;
  }
  ErrorReason error_reason() const {
    return reason_;
  }

#if defined(GATEBENCH_TSV_WIDE)
  // See parse_lines. parse then tries the line it stopped at with the careful path only.
  std::size_t parse_run(std::size_t& pos, AccessLogRecord* out,
                        std::size_t max) requires(K == FieldKernel::wide) {
    return detail::run_fast(pos, n_, out, max, failed_at_,
                            [this](std::size_t p, AccessLogRecord& r, std::size_t& next) {
                              return parse_wide(p, r, next);
                            });
  }
#endif

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
    // Without the dash flags of the index.
    const __m128i got = _mm_and_si128(_mm_loadu_si128(reinterpret_cast<const __m128i*>(ix_.kind())),
                                      _mm_set1_epi8(0x7f));
    if ((_mm_movemask_epi8(_mm_cmpeq_epi8(got, want)) & 0x7fff) != 0x7fff) return false;
#else
    unsigned bad = (static_cast<unsigned char>(ix_.kind()[14]) & 0x7f) ^ '\n';
    for (int i = 0; i < 14; ++i) bad |= (static_cast<unsigned char>(ix_.kind()[i]) & 0x7f) ^ '\t';
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

#if defined(GATEBENCH_TSV_WIDE)
  // parse_fast with vectors where the fields have a fixed shape: the field starts and lengths
  // come from one load of the 16 positions, the six string views from one permute and two
  // stores, and the four decimal numbers (times in "s.mmm", bytes sent) from one 64-byte vector
  // of 16-byte lanes with one digit check and one multiply-add chain. Shapes it does not take
  // (another number of decimals, more than 16 digits) return false for parse_careful.
  [[gnu::always_inline]] bool parse_wide(std::size_t s, AccessLogRecord& r, std::size_t& next) {
    if (!ix_.find(s, 15)) return false;
    const std::uint32_t* const pos = ix_.pos();
    const __m128i kinds = _mm_loadu_si128(reinterpret_cast<const __m128i*>(ix_.kind()));
    const __m128i want = _mm_setr_epi8('\t', '\t', '\t', '\t', '\t', '\t', '\t', '\t', '\t', '\t',
                                       '\t', '\t', '\t', '\t', '\n', 0);
    const __mmask16 delimited =
        _mm_cmpeq_epi8_mask(_mm_and_si128(kinds, _mm_set1_epi8(0x7f)), want);
    if ((delimited & 0x7fff) != 0x7fff) [[unlikely]] {
      return parse_escaped(s, r, next);
    }
    // The number lanes read the 16 bytes before each field's end: in the buffer from the second
    // line on (the first one takes the scalar path).
    if (pos[0] < 16) [[unlikely]] {
      return parse_first(s, r, next);
    }
    if (!fields_wide(s, pos, static_cast<unsigned>(_mm_movepi8_mask(kinds)), r)) return false;
    r.escaped = 0;
    next = pos[14] + 1;
    ix_.consume(15);
    return true;
  }

  // A line whose next 15 delimiters are not 14 tabs and a newline: most often one with escapes
  // in its string fields (hostile requests), whose backslashes sit among the tabs in the index.
  // Walks the entries to the line's newline, checking each escape, and parses the fields with
  // the vector kernel from the tab positions, the escaped views kept raw and flagged. Anything
  // else (a missing or extra tab, an invalid escape or one in a typed field, a line with more
  // delimiters than the index holds) returns false for parse_careful, which names the error.
  // Out of line: 1.3% of the fixture's lines, which took parse_careful at ~4x the cost before.
  [[gnu::noinline]] bool parse_escaped(std::size_t s, AccessLogRecord& r, std::size_t& next) {
    alignas(64) std::uint32_t ends[Index::kWant] = {};
    unsigned dashes = 0;
    unsigned escaped = 0;     // bit f: field f holds an escape
    std::uint32_t after = 0;  // entries before this position lie inside the last escape
    std::size_t f = 0;        // fields ended so far
    for (std::size_t i = 0;; ++i) {
      if (!ix_.reach(i)) return false;
      const std::uint32_t p = ix_.pos()[i];
      const auto k = static_cast<unsigned char>(ix_.kind()[i]);
      if (p < after) continue;  // the second backslash of "\\"
      if ((k & 0x7f) == '\\') {
        const std::size_t len = escape_length(d_, p, n_);
        if (len == 0) return false;
        escaped |= 1u << f;
        after = p + static_cast<std::uint32_t>(len);
      } else if ((k & 0x7f) == '\t') {
        if (f == 14) return false;
        dashes |= static_cast<unsigned>(k >> 7) << f;
        ends[f++] = p;
      } else {
        if (f != 14) return false;
        dashes |= static_cast<unsigned>(k >> 7) << 14;
        ends[14] = p;
        // Escapes are valid in the six string fields only; the first line's number lanes would
        // start before the buffer.
        constexpr unsigned kStringFields = 0x3870;  // 4, 5, 6, 11, 12, 13
        if ((escaped & ~kStringFields) != 0 || ends[0] < 16) return false;
        if (!fields_wide(s, ends, dashes, r)) return false;
        r.escaped = static_cast<std::uint8_t>(((escaped >> 4) & 7) | ((escaped >> 8) & 0x38));
        next = p + 1;
        ix_.consume(i + 1);
        return true;
      }
    }
  }

  // The fields of the line from s whose 15 delimiters (14 tabs, then the newline) are at
  // pos[0..14] (16 readable entries, pos[0] >= 16), with `dashes` bit i set when the byte
  // before pos[i] is '-'. Sets every member but `escaped`.
  [[gnu::always_inline]] bool fields_wide(std::size_t s, const std::uint32_t* pos, unsigned dashes,
                                          AccessLogRecord& r) {
    const char* const d = d_;

    // Field i spans [start[i], pos[i]); start[0] = s.
    const __m512i one = _mm512_set1_epi32(1);
    const __m512i ends = _mm512_loadu_si512(pos);  // kWant readable entries
    const __m512i starts = _mm512_add_epi32(
        _mm512_alignr_epi32(ends, _mm512_set1_epi32(static_cast<int>(s) - 1), 15), one);
    const __m512i lens = _mm512_sub_epi32(ends, starts);
    // Fields that are exactly "-".
    const auto empty = static_cast<unsigned>(
        _mm512_mask_cmpeq_epi32_mask(static_cast<__mmask16>(dashes), lens, one));

    // String views: "-" has length 0.
    const __m512i pairs =
        _mm512_permutex2var_epi32(_mm512_maskz_mov_epi32(static_cast<__mmask16>(~empty), lens),
                                  _mm512_load_si512(kWide.view_pick), starts);
    const __m512i base = _mm512_maskz_set1_epi64(0xaa, reinterpret_cast<long long>(d));
    _mm512_storeu_si512(
        &r.host, _mm512_add_epi64(_mm512_cvtepu32_epi64(_mm512_castsi512_si256(pairs)), base));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(&r.referer),
                        _mm256_add_epi64(_mm256_cvtepu32_epi64(_mm512_extracti32x4_epi32(pairs, 2)),
                                         _mm512_castsi512_si256(base)));

    // Numbers: each lane holds its field right-aligned; bytes before the field are masked.
    __m512i v =
        _mm512_castsi128_si512(_mm_loadu_si128(reinterpret_cast<const __m128i*>(d + pos[0] - 16)));
    v = _mm512_inserti32x4(v, _mm_loadu_si128(reinterpret_cast<const __m128i*>(d + pos[9] - 16)),
                           1);
    v = _mm512_inserti32x4(v, _mm_loadu_si128(reinterpret_cast<const __m128i*>(d + pos[10] - 16)),
                           2);
    v = _mm512_inserti32x4(v, _mm_loadu_si128(reinterpret_cast<const __m128i*>(d + pos[8] - 16)),
                           3);
    const auto length_ok = static_cast<unsigned>(_mm512_mask_cmple_epu32_mask(
        0x701, _mm512_sub_epi32(lens, _mm512_load_si512(kWide.length_low)),
        _mm512_load_si512(kWide.length_span)));
    // An absent duration ("-") skips its lane's checks.
    bool ok = (length_ok | (empty & 0x600)) == 0x701;
    const std::uint64_t skip = _pdep_u64((empty >> 9) & 3, 0x0000'0001'0001'0000ULL) * 0xffff;
    const __m512i lane_lens = _mm512_permutexvar_epi8(_mm512_load_si512(kWide.lane_length), lens);
    const std::uint64_t in_field =
        _mm512_cmpgt_epu8_mask(lane_lens, _mm512_load_si512(kWide.from_end));
    const __m512i t = _mm512_sub_epi8(v, _mm512_set1_epi8('0'));
    const std::uint64_t digit = _mm512_cmple_epu8_mask(t, _mm512_set1_epi8(9));
    const std::uint64_t dot = _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8('.'));
    ok &= ((((in_field & ~kDotBits) & ~digit) | (kDotBits & ~dot)) & ~skip) == 0;
    const __m512i placed = _mm512_permutexvar_epi8(_mm512_load_si512(kWide.place),
                                                   _mm512_maskz_mov_epi8(in_field & ~kDotBits, t));
    // 16 digits -> 8 of 2 -> 4 of 4 -> 2 of 8 -> 1 per lane (in its low 64 bits).
    const __m512i d2 = _mm512_maddubs_epi16(placed, _mm512_set1_epi16(0x010a));
    const __m512i d4 = _mm512_madd_epi16(d2, _mm512_set1_epi32(0x00010064));
    const __m512i d8 =
        _mm512_madd_epi16(_mm512_packus_epi32(d4, d4), _mm512_set1_epi32(0x00012710));
    const __m512i d16 = _mm512_add_epi64(_mm512_mul_epu32(d8, _mm512_set1_epi64(100000000)),
                                         _mm512_srli_epi64(d8, 32));
    const auto present = static_cast<__mmask8>(~((empty >> 8) & 6) & 0xf);
    const __m512i numbers = _mm512_mask_permutexvar_epi64(
        _mm512_set1_epi64(kAbsent), present, _mm512_setr_epi64(0, 2, 4, 6, 0, 0, 0, 0), d16);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(&r.time_us), _mm512_castsi512_si256(numbers));

    // Field i spans [b(i), e(i)); i is a constant after inlining.
    auto b = [&](int i) { return i == 0 ? d + s : d + pos[i - 1] + 1; };
    auto e = [&](int i) { return d + pos[i]; };
    ok &= detail::parse_ipv4_compress(b(1), e(1), r.client_ip);  // 13 fields follow: in bounds

    r.method = (e(2) - b(2) == 3 && std::memcmp(b(2), "GET", 3) == 0)
                   ? Method::get
                   : method_from_token({b(2), static_cast<std::size_t>(e(2) - b(2))});
    if (r.method == Method::other) ok &= detail::valid_method_token(b(2), e(2));
    {
      std::uint64_t w;
      std::memcpy(&w, b(3), 8);  // 11 more fields follow: in bounds
      // With the tab that ends the field, so the length is checked too.
      const bool https = (w & 0xffff'ffff'ffffULL) == word_of("https\t");
      const bool http = (w & 0xff'ffff'ffffULL) == word_of("http\t");
      ok &= https | http;
      r.scheme = https ? Scheme::https : Scheme::http;
    }
    ok &= detail::parse_status(b(7), e(7), r.status);
    if (empty & (1u << 14)) {
      r.action = Action::none;
    } else {
      ok &= action_from_token({b(14), static_cast<std::size_t>(e(14) - b(14))}, r.action);
    }
    return ok;
  }
#endif

  // The buffer's first line in the vector kernel's stead, out of line: one line per datagram
  // should not grow the hot loop's code.
  [[gnu::noinline]] bool parse_first(std::size_t s, AccessLogRecord& r, std::size_t& next) {
    return parse_fast(s, r, next);
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
  Index ix_;
  std::size_t err_at_ = 0;
  ErrorReason reason_ = ErrorReason::bad_syntax;
  std::size_t failed_at_ = ~std::size_t{0};  // the line parse_run stopped at
};

}  // namespace

BatchResult parse_tsv(std::string_view buffer, std::span<AccessLogRecord> records,
                      std::span<AccessLogError> errors) {
  LineParser<kBestFieldKernel> parser(buffer.data(), buffer.size());
  return detail::parse_lines(buffer, records, errors, parser);
}

namespace detail {

BatchResult parse_tsv_portable(std::string_view buffer, std::span<AccessLogRecord> records,
                               std::span<AccessLogError> errors) {
  LineParser<FieldKernel::portable> parser(buffer.data(), buffer.size());
  return parse_lines(buffer, records, errors, parser);
}

}  // namespace detail

}  // namespace gatebench::access_log
