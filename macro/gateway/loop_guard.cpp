#include "macro/gateway/loop_guard.hpp"

#include <charconv>
#include <cstring>

#include "macro/gateway/config_json.hpp"

namespace gatebench::gateway {
namespace {

bool is_space(char c) {
  return c == ' ' || c == '\t';
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
  return s;
}

// Via = #( received-protocol RWS received-by [ RWS comment ] ): the second word of each entry.
// A comment may hold commas; entries are split outside parentheses only.
std::uint32_t via_entries_naming(std::string_view value, std::string_view name) {
  std::uint32_t n = 0;
  int depth = 0;
  std::size_t start = 0;
  for (std::size_t i = 0; i <= value.size(); ++i) {
    const char c = i < value.size() ? value[i] : ',';
    if (c == '(') ++depth;
    if (c == ')' && depth > 0) --depth;
    if (c != ',' || depth > 0) continue;
    std::string_view entry = trim(value.substr(start, i - start));
    start = i + 1;
    const std::size_t sp = entry.find_first_of(" \t");
    if (sp == std::string_view::npos) continue;
    std::string_view by = trim(entry.substr(sp));
    by = by.substr(0, by.find_first_of(" \t"));
    if (iequals_ascii(by, name)) ++n;
  }
  return n;
}

}  // namespace

std::optional<std::uint32_t> count_hops(const RequestHead& req, std::string_view head,
                                        std::string_view via_name) {
  std::uint32_t from_header = 0;
  bool seen = false;
  std::uint32_t via = 0;
  for (std::uint16_t i = 0; i < req.fields.count; ++i) {
    const HeaderLine& h = req.fields.lines[i];
    if (h.kind != KnownHeader::kOther) continue;
    const std::string_view name = head.substr(h.line_off, h.name_len);
    const std::string_view value = head.substr(h.value_off, h.value_len);
    if (name.size() == 3 && iequals_lower(name, "via")) {
      via += via_entries_naming(value, via_name);
    } else if (name.size() == kHopHeader.size() && iequals_lower(name, kHopHeader)) {
      if (seen || value.empty() || value.size() > 3) return std::nullopt;
      std::uint32_t v = 0;
      auto r = std::from_chars(value.data(), value.data() + value.size(), v);
      if (r.ec != std::errc() || r.ptr != value.data() + value.size()) return std::nullopt;
      from_header = v;
      seen = true;
    }
  }
  return from_header > via ? from_header : via;
}

std::string_view hop_lines(std::uint32_t hops, std::string_view via_name, std::span<char> out) {
  char digits[12];
  auto r = std::to_chars(digits, digits + sizeof digits, hops);
  const std::string_view number(digits, static_cast<std::size_t>(r.ptr - digits));
  const std::string_view parts[] = {"X-Gatebench-Hops: ", number, "\r\nVia: 1.1 ", via_name,
                                    "\r\n"};
  std::size_t n = 0;
  for (std::string_view p : parts) {
    if (n + p.size() > out.size()) return {};
    std::memcpy(out.data() + n, p.data(), p.size());
    n += p.size();
  }
  return {out.data(), n};
}

}  // namespace gatebench::gateway
