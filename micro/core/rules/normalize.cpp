#include "micro/core/rules/normalize.hpp"

#include <array>
#include <cstdint>
#include <cstring>

#include "micro/core/rules/hex_digits.hpp"
#include "micro/core/rules/request_ascii.hpp"

namespace gatebench::rules {
namespace {

bool hex_pair(const char* p, std::uint8_t& byte) {
  const std::uint8_t hi = kHexValue[static_cast<unsigned char>(p[0])];
  const std::uint8_t lo = kHexValue[static_cast<unsigned char>(p[1])];
  byte = static_cast<std::uint8_t>((hi << 4) | lo);
  return (hi | lo) < 16;
}

bool has_escape(std::string_view s) {
  for (std::size_t i = s.find('%'); i != std::string_view::npos; i = s.find('%', i + 1)) {
    std::uint8_t b;
    if (i + 2 < s.size() && hex_pair(s.data() + i + 1, b)) return true;
  }
  return false;
}

// Removes dot segments and merges slashes of a decoded path in place (the write position never
// passes the read position); returns the new length.
std::size_t resolve_segments(char* d, std::size_t n) {
  std::size_t w = 0;
  std::size_t i = 0;
  bool trailing = false;
  for (;;) {
    while (i < n && d[i] == '/') ++i;
    if (i >= n) {
      trailing = true;
      break;
    }
    const std::size_t s = i;
    while (i < n && d[i] != '/') ++i;
    const std::size_t len = i - s;
    if (len == 1 && d[s] == '.') {
      if (i >= n) trailing = true;
      continue;
    }
    if (len == 2 && d[s] == '.' && d[s + 1] == '.') {
      while (w > 0 && d[w - 1] != '/') --w;
      if (w > 0) --w;
      if (i >= n) trailing = true;
      continue;
    }
    d[w++] = '/';
    std::memmove(d + w, d + s, len);
    w += len;
    if (i >= n) break;
  }
  if (w == 0 || trailing) d[w++] = '/';
  return w;
}

}  // namespace

const char* to_string(NormalizeStatus status) {
  switch (status) {
    case NormalizeStatus::kOk:
      return "ok";
    case NormalizeStatus::kBadEncoding:
      return "bad percent-encoding";
    case NormalizeStatus::kNulByte:
      return "NUL byte in path";
    case NormalizeStatus::kNotAPath:
      return "path does not start with '/'";
  }
  return "?";
}

NormalizeStatus percent_decode_strict(std::string_view in, char* out, PlusMode plus,
                                      std::string_view& result) {
  const char* p = in.data();
  const char* const end = p + in.size();
  char* o = out;
  const char plus_to = plus == PlusMode::kToSpace ? ' ' : '+';
  while (p < end) {
    const char c = *p;
    if (c == '%') {
      std::uint8_t b;
      if (end - p < 3 || !hex_pair(p + 1, b)) return NormalizeStatus::kBadEncoding;
      *o++ = static_cast<char>(b);
      p += 3;
      continue;
    }
    *o++ = c == '+' ? plus_to : c;
    ++p;
  }
  result = {out, static_cast<std::size_t>(o - out)};
  return NormalizeStatus::kOk;
}

std::string_view decode_again_if_encoded(std::string_view decoded) {
  if (!has_escape(decoded)) return decoded;
  // In place: the view's bytes belong to the caller's scratch buffer.
  char* out = const_cast<char*>(decoded.data());
  const char* p = decoded.data();
  const char* const end = p + decoded.size();
  char* o = out;
  while (p < end) {
    std::uint8_t b;
    if (*p == '%' && end - p >= 3 && hex_pair(p + 1, b)) {
      *o++ = static_cast<char>(b);
      p += 3;
      continue;
    }
    *o++ = *p++;
  }
  return {out, static_cast<std::size_t>(o - out)};
}

NormalizeStatus normalize_path(std::string_view raw, char* out, std::string_view& result) {
  if (raw == "*") {
    result = raw;
    return NormalizeStatus::kOk;
  }
  if (raw.empty() || raw.front() != '/') return NormalizeStatus::kNotAPath;
  std::string_view d;
  const NormalizeStatus st = percent_decode_strict(raw, out, PlusMode::kKeep, d);
  if (st != NormalizeStatus::kOk) return st;
  d = decode_again_if_encoded(d);
  char* p = out;
  for (std::size_t i = 0; i < d.size(); ++i) {
    if (p[i] == '\\') p[i] = '/';
    if (p[i] == '\0') return NormalizeStatus::kNulByte;
  }
  result = {out, resolve_segments(p, d.size())};
  return NormalizeStatus::kOk;
}

NormalizeStatus normalize_query(std::string_view raw, char* out, std::string_view& result) {
  std::string_view d;
  const NormalizeStatus st = percent_decode_strict(raw, out, PlusMode::kToSpace, d);
  if (st != NormalizeStatus::kOk) return st;
  result = decode_again_if_encoded(d);
  return NormalizeStatus::kOk;
}

std::string_view origin_form(std::string_view target, std::string_view& authority) {
  authority = {};
  std::size_t scheme_len = 0;
  if (target.size() >= 7 && equals_lower(target.substr(0, 7), "http://")) {
    scheme_len = 7;
  } else if (target.size() >= 8 && equals_lower(target.substr(0, 8), "https://")) {
    scheme_len = 8;
  } else {
    return target;
  }
  const std::string_view rest = target.substr(scheme_len);
  const std::size_t end = rest.find_first_of("/?#");
  authority = rest.substr(0, end);
  if (end == std::string_view::npos) return rest.substr(rest.size());
  return rest.substr(end);
}

}  // namespace gatebench::rules
