#include "micro/core/http1/scan.hpp"

namespace gatebench::http1 {
namespace {

inline char lower(char c) {
  return (c >= 'A' && c <= 'Z') ? static_cast<char>(c + 32) : c;
}

}  // namespace

bool iequals_lower(std::string_view s, std::string_view low) {
  if (s.size() != low.size()) return false;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (lower(s[i]) != low[i]) return false;
  }
  return true;
}

KnownHeader classify_header(std::string_view name) {
  for (char c : name) {
    if (!detail::is_tchar(c)) return KnownHeader::kOther;
  }
  return detail::classify_token(name.data(), name.size());
}

namespace detail {

bool parse_length(std::string_view v, std::uint64_t& out) {
  if (v.empty() || v.size() > 18) return false;
  std::uint64_t n = 0;
  for (char c : v) {
    if (c < '0' || c > '9') return false;
    n = n * 10 + static_cast<std::uint64_t>(c - '0');
  }
  out = n;
  return true;
}

void mark_connection_token(std::string_view buf, HeadFields& fields, std::string_view tok) {
  for (std::uint16_t i = 0; i < fields.count; ++i) {
    HeaderLine& h = fields.lines[i];
    if (h.name_len != tok.size() || h.kind == KnownHeader::kHost) continue;
    std::string_view name(buf.data() + h.line_off, h.name_len);
    bool eq = true;
    for (std::size_t k = 0; k < tok.size() && eq; ++k) eq = lower(name[k]) == lower(tok[k]);
    if (eq) h.named_in_connection = true;
  }
}

LineScan scan_line_careful(std::string_view buf, std::size_t pos, std::size_t max_head,
                           HeaderLine& h) {
  const char* base = buf.data();
  const HeadStatus short_status =
      buf.size() >= max_head ? HeadStatus::kTooLarge : HeadStatus::kIncomplete;
  if (pos >= buf.size()) return {short_status, "header section too large", 0};
  const void* nl = std::memchr(base + pos, '\n', buf.size() - pos);
  if (nl == nullptr) return {short_status, "header section too large", 0};
  const auto lf = static_cast<std::size_t>(static_cast<const char*>(nl) - base);
  if (lf + 1 > max_head) return {HeadStatus::kTooLarge, "header section too large", 0};
  if (lf == pos || base[lf - 1] != '\r') return {HeadStatus::kBad, "bare LF in header section", 0};
  const std::size_t line_end = lf - 1;  // index of CR
  if (line_end == pos) return {HeadStatus::kComplete, nullptr, lf + 1};
  if (is_ows(base[pos])) return {HeadStatus::kBad, "obsolete line folding", 0};
  std::size_t p = pos;
  while (p < line_end && is_tchar(base[p])) ++p;
  if (p == pos || p == line_end || base[p] != ':') {
    return {HeadStatus::kBad, "malformed header name", 0};
  }
  std::size_t v = p + 1;
  while (v < line_end && is_ows(base[v])) ++v;
  std::size_t ve = line_end;
  while (ve > v && is_ows(base[ve - 1])) --ve;
  if (find_value_ctl(base + v, base + ve) != ve - v) {
    return {HeadStatus::kBad, "control character in header value", 0};
  }
  h = make_line(base, pos, p, v, ve, lf + 1);
  return {HeadStatus::kIncomplete, nullptr, lf + 1, true};
}

}  // namespace detail
}  // namespace gatebench::http1
