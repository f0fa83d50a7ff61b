#include "micro/core/access_log/write.hpp"

#include <algorithm>
#include <array>
#include <charconv>

namespace gatebench::access_log {
namespace {

constexpr int kStringFields = 6;

// The string fields in line order, with their EscapedField bits.
struct StringField {
  std::string_view value;
  bool raw;
};
std::array<StringField, kStringFields> string_fields(const AccessLogRecord& r) {
  return {{{r.host, (r.escaped & kEscHost) != 0},
           {r.path, (r.escaped & kEscPath) != 0},
           {r.query, (r.escaped & kEscQuery) != 0},
           {r.user_agent, (r.escaped & kEscUserAgent) != 0},
           {r.referer, (r.escaped & kEscReferer) != 0},
           {r.rule_id, (r.escaped & kEscRuleId) != 0}}};
}

std::size_t escaped_size(unsigned char c) {
  if (c == '\\' || c == '\t' || c == '\n' || c == '\r') return 2;
  if (c < 0x20 || c == 0x7f) return 4;
  return 1;
}

// Bytes the field takes in the line: "-" for empty, "\x2d" for a value that is "-".
std::size_t field_size(const StringField& f) {
  if (f.value.empty()) return 1;
  if (f.raw) return f.value.size();
  if (f.value == "-") return 4;
  std::size_t n = 0;
  for (char c : f.value) n += escaped_size(static_cast<unsigned char>(c));
  return n;
}

// Length of the escape sequence starting at raw[i] (1 for a plain byte).
std::size_t raw_unit(std::string_view raw, std::size_t i) {
  if (raw[i] != '\\' || i + 1 >= raw.size()) return 1;
  return raw[i + 1] == 'x' ? std::min<std::size_t>(4, raw.size() - i) : 2;
}

class Out {
 public:
  explicit Out(char* p) : p_(p) {}
  std::size_t size() const { return static_cast<std::size_t>(p_ - begin_); }
  void ch(char c) { *p_++ = c; }
  void str(std::string_view s) { p_ = std::copy(s.begin(), s.end(), p_); }
  void u64(std::uint64_t v) { p_ = std::to_chars(p_, p_ + 20, v).ptr; }
  void ipv4(std::uint32_t ip) {
    u64(ip >> 24);
    ch('.');
    u64((ip >> 16) & 255);
    ch('.');
    u64((ip >> 8) & 255);
    ch('.');
    u64(ip & 255);
  }
  // Seconds with `digits` fraction digits (6 or 3; lower digits dropped); negative is 0.
  void seconds(std::int64_t us, int digits) {
    std::uint64_t v = us < 0 ? 0 : static_cast<std::uint64_t>(us);
    u64(v / 1000000);
    ch('.');
    std::uint64_t frac = v % 1000000;
    int skip = 6 - digits;
    for (int i = 0; i < skip; ++i) frac /= 10;
    for (int i = digits - 1; i >= 0; --i) {
      p_[i] = static_cast<char>('0' + frac % 10);
      frac /= 10;
    }
    p_ += digits;
  }
  void duration(std::int64_t us, int digits) {
    if (us < 0) {
      ch('-');
    } else {
      seconds(us, digits);
    }
  }
  // At most `limit` bytes of the field; "-" when nothing of it fits.
  void field(const StringField& f, std::size_t limit) {
    char* start = p_;
    if (f.raw) {
      for (std::size_t i = 0; i < f.value.size();) {
        std::size_t n = raw_unit(f.value, i);
        if (size_from(start) + n > limit) break;
        str(f.value.substr(i, n));
        i += n;
      }
    } else if (f.value == "-") {
      if (limit >= 4) str("\\x2d");
    } else {
      static constexpr char kHex[] = "0123456789abcdef";
      for (char c : f.value) {
        auto u = static_cast<unsigned char>(c);
        std::size_t n = escaped_size(u);
        if (size_from(start) + n > limit) break;
        if (n == 1) {
          ch(c);
        } else if (n == 2) {
          ch('\\');
          ch(c == '\\' ? '\\' : c == '\t' ? 't' : c == '\n' ? 'n' : 'r');
        } else {
          str("\\x");
          ch(kHex[u >> 4]);
          ch(kHex[u & 15]);
        }
      }
    }
    if (p_ == start) ch('-');
  }

 private:
  std::size_t size_from(const char* start) const { return static_cast<std::size_t>(p_ - start); }
  char* p_;
  char* begin_ = p_;
};

bool valid_token(std::string_view m) {
  if (m.empty() || m.size() > 16) return false;
  return std::all_of(m.begin(), m.end(), [](char c) { return c >= 'A' && c <= 'Z'; });
}

}  // namespace

Method method_for_log(std::string_view token) {
  return valid_token(token) ? method_from_token(token) : Method::other;
}

namespace {

std::string_view method_text(const AccessLogRecord& r, const TsvWriteOptions& o) {
  if (r.method != Method::other) return name(r.method);
  return valid_token(o.other_method) ? o.other_method : std::string_view("OTHER");
}

// An upper bound of everything but the string fields: time, client, method, scheme, status,
// bytes, two durations, action, 14 tabs and the '\n'.
constexpr std::size_t kSecondsMax = 20 + 1 + 6;
constexpr std::size_t kFixedMax = kSecondsMax + 15 + 16 + 5 + 5 + 20 + 2 * kSecondsMax + 9 + 15;
static_assert(kFixedMax + kStringFields <= kTsvMinLine);

void write_line(Out& w, const AccessLogRecord& r, const TsvWriteOptions& o,
                const std::array<StringField, kStringFields>& s,
                const std::array<std::size_t, kStringFields>& limits) {
  w.seconds(r.time_us, o.fraction_digits);
  w.ch('\t');
  w.ipv4(r.client_ip);
  w.ch('\t');
  w.str(method_text(r, o));
  w.ch('\t');
  w.str(name(r.scheme));
  for (int i = 0; i < 3; ++i) {
    w.ch('\t');
    w.field(s[i], limits[i]);
  }
  w.ch('\t');
  w.u64(r.status);
  w.ch('\t');
  w.u64(r.bytes_sent);
  w.ch('\t');
  w.duration(r.request_time_us, o.fraction_digits);
  w.ch('\t');
  w.duration(r.upstream_time_us, o.fraction_digits);
  for (int i = 3; i < kStringFields; ++i) {
    w.ch('\t');
    w.field(s[i], limits[i]);
  }
  w.ch('\t');
  w.str(name(r.action));
  w.ch('\n');
}

// The line's length without its string fields.
std::size_t fixed_size(const AccessLogRecord& r, const TsvWriteOptions& o) {
  std::array<char, kTsvMinLine> scratch;
  Out w(scratch.data());
  constexpr std::array<std::size_t, kStringFields> kNothing{};
  write_line(w, r, o, std::array<StringField, kStringFields>{}, kNothing);
  return w.size() - kStringFields;  // each empty field wrote "-"
}

}  // namespace

std::size_t tsv_line_size(const AccessLogRecord& r, const TsvWriteOptions& o) {
  std::size_t n = fixed_size(r, o);
  for (const StringField& f : string_fields(r)) n += field_size(f);
  return n;
}

std::size_t write_tsv(std::span<char> out, const AccessLogRecord& r, const TsvWriteOptions& o) {
  if (out.size() < kTsvMinLine) return 0;
  const auto s = string_fields(r);
  // No byte takes more than 4 in the line: most lines need no measuring at all.
  std::size_t raw = 0;
  for (const StringField& f : s) raw += f.value.size();
  if (kFixedMax + 4 * (raw + kStringFields) <= out.size()) {
    Out w(out.data());
    constexpr std::size_t kWhole = ~std::size_t{0};
    write_line(w, r, o, s, {kWhole, kWhole, kWhole, kWhole, kWhole, kWhole});
    return w.size();
  }
  std::array<std::size_t, kStringFields> sizes;
  std::size_t strings = 0;
  for (int i = 0; i < kStringFields; ++i) strings += sizes[i] = field_size(s[i]);
  std::array<std::size_t, kStringFields> limits = sizes;
  // The common case fits by the fixed part's upper bound; only a long line measures it.
  if (kFixedMax + strings > out.size()) {
    const std::size_t budget = out.size() - fixed_size(r, o);
    if (strings > budget) {
      // The largest per-field cap that fits: the longest fields are cut, short ones stay whole.
      std::size_t lo = 1, hi = *std::max_element(sizes.begin(), sizes.end());
      while (lo < hi) {
        std::size_t mid = (lo + hi + 1) / 2;
        std::size_t total = 0;
        for (std::size_t z : sizes) total += std::min(z, mid);
        if (total <= budget) {
          lo = mid;
        } else {
          hi = mid - 1;
        }
      }
      for (auto& l : limits) l = std::min(l, lo);
    }
  }
  Out w(out.data());
  write_line(w, r, o, s, limits);
  return w.size();
}

void append_tsv(std::string& out, const AccessLogRecord& r, const TsvWriteOptions& o) {
  const std::size_t at = out.size();
  const std::size_t n = std::max(tsv_line_size(r, o), kTsvMinLine);
  out.resize(at + n);
  out.resize(at + write_tsv(std::span<char>(out.data() + at, n), r, o));
}

}  // namespace gatebench::access_log
