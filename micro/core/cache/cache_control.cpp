#include "micro/core/cache/cache_control.hpp"

#include "micro/core/cache/key.hpp"
#include "micro/core/http1/scan.hpp"

namespace gatebench::cache {
namespace {

bool is_ows(char c) noexcept {
  return c == ' ' || c == '\t';
}

// One directive's argument: a token or a quoted-string. `unquoted` is its content with the
// quoting removed when it has no quoted-pair; with one, a view of the raw text (the numeric
// directives then fail to parse, as an escaped digit is not a delta-seconds).
struct Argument {
  std::string_view value;
  bool ok = false;
};

class DirectiveReader {
 public:
  explicit DirectiveReader(std::string_view line) : s_(line) {}

  // Reads the next non-empty element; false at the end of the line or on a syntax error
  // (then error() is true).
  bool next(std::string_view& name, Argument& arg) noexcept {
    while (pos_ < s_.size() && (is_ows(s_[pos_]) || s_[pos_] == ',')) ++pos_;
    if (pos_ >= s_.size()) return false;
    const std::size_t start = pos_;
    while (pos_ < s_.size() && http1::detail::is_tchar(s_[pos_])) ++pos_;
    name = s_.substr(start, pos_ - start);
    if (name.empty()) return fail();
    arg = {};
    if (pos_ < s_.size() && s_[pos_] == '=') {
      ++pos_;
      if (!read_argument(arg)) return fail();
    }
    skip_ows();
    if (pos_ < s_.size() && s_[pos_] != ',') return fail();
    return true;
  }
  bool error() const noexcept { return error_; }

 private:
  bool fail() noexcept {
    error_ = true;
    return false;
  }
  void skip_ows() noexcept {
    while (pos_ < s_.size() && is_ows(s_[pos_])) ++pos_;
  }
  bool read_argument(Argument& arg) noexcept {
    if (pos_ < s_.size() && s_[pos_] == '"') {
      const std::size_t start = ++pos_;
      bool escaped = false;
      while (pos_ < s_.size() && s_[pos_] != '"') {
        const auto c = static_cast<unsigned char>(s_[pos_]);
        if (c == '\\') {
          escaped = true;
          if (++pos_ >= s_.size()) return false;
        } else if ((c < 0x20 && c != '\t') || c == 0x7F) {
          return false;
        }
        ++pos_;
      }
      if (pos_ >= s_.size()) return false;  // no closing quote
      arg.value = s_.substr(start, pos_ - start);
      arg.ok = !escaped;
      ++pos_;
      return true;
    }
    const std::size_t start = pos_;
    while (pos_ < s_.size() && http1::detail::is_tchar(s_[pos_])) ++pos_;
    if (pos_ == start) return false;
    arg.value = s_.substr(start, pos_ - start);
    arg.ok = true;
    return true;
  }

  std::string_view s_;
  std::size_t pos_ = 0;
  bool error_ = false;
};

void set_seconds(const Argument& arg, bool& has, bool& valid, std::uint32_t& out) noexcept {
  if (has) return;  // RFC 9111 4.2.1: the first occurrence is used
  has = true;
  valid = arg.ok && parse_delta_seconds(arg.value, out);
}

}  // namespace

bool parse_delta_seconds(std::string_view s, std::uint32_t& out) noexcept {
  if (s.empty()) return false;
  std::uint64_t v = 0;
  for (const char c : s) {
    if (c < '0' || c > '9') return false;
    if (v < kMaxDeltaSeconds) v = v * 10 + static_cast<unsigned>(c - '0');
  }
  out = static_cast<std::uint32_t>(v < kMaxDeltaSeconds ? v : kMaxDeltaSeconds);
  return true;
}

CacheControl parse_cache_control(std::span<const std::string_view> lines) noexcept {
  CacheControl cc;
  for (const std::string_view line : lines) {
    DirectiveReader reader(line);
    std::string_view name;
    Argument arg;
    while (reader.next(name, arg)) {
      if (equals_lower(name, "max-age")) {
        set_seconds(arg, cc.has_max_age, cc.max_age_valid, cc.max_age);
      } else if (equals_lower(name, "s-maxage")) {
        set_seconds(arg, cc.has_s_maxage, cc.s_maxage_valid, cc.s_maxage);
      } else if (equals_lower(name, "no-store")) {
        cc.no_store = true;
      } else if (equals_lower(name, "no-cache")) {
        cc.no_cache = true;
      } else if (equals_lower(name, "private")) {
        cc.is_private = true;
      } else if (equals_lower(name, "public")) {
        cc.is_public = true;
      } else if (equals_lower(name, "must-revalidate")) {
        cc.must_revalidate = true;
      }
    }
    if (reader.error()) cc.malformed = true;
  }
  return cc;
}

}  // namespace gatebench::cache
