// A text composed into a fixed scratch array (local response bodies and header lines): no
// allocation; a result that does not fit is cut, which the pages and lines written are far from.
#pragma once

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

namespace gatebench::gateway {

// Appends into a fixed scratch array; a result that does not fit is cut (pages are small).
class TextBuf {
 public:
  explicit TextBuf(std::span<char> s) : p_(s.data()), cap_(s.size()) {}
  TextBuf& operator<<(std::string_view s) {
    std::size_t n = std::min(s.size(), cap_ - len_);
    // A byte loop rather than memcpy: an empty view may carry a null pointer, and GCC 12's
    // bounds analysis misfires on memcpy from the to_chars buffer below.
    for (std::size_t i = 0; i < n; ++i) p_[len_ + i] = s[i];
    len_ += n;
    return *this;
  }
  TextBuf& operator<<(std::uint64_t v) {
    char tmp[24];
    auto r = std::to_chars(tmp, tmp + sizeof tmp, v);
    return *this << std::string_view(tmp, static_cast<std::size_t>(r.ptr - tmp));
  }
  // Percent-encodes everything but unreserved characters and '/', for a query value.
  TextBuf& encoded(std::string_view s) {
    static constexpr char kHex[] = "0123456789ABCDEF";
    for (char c : s) {
      unsigned char u = static_cast<unsigned char>(c);
      bool plain = std::isalnum(u) || c == '/' || c == '-' || c == '.' || c == '_' || c == '~';
      if (plain) {
        *this << std::string_view(&c, 1);
      } else {
        char e[3] = {'%', kHex[u >> 4], kHex[u & 15]};
        *this << std::string_view(e, 3);
      }
    }
    return *this;
  }
  // As the content of a JSON string: quotes, backslashes and control bytes escaped.
  TextBuf& json_escaped(std::string_view s) {
    static constexpr char kHex[] = "0123456789abcdef";
    for (char c : s) {
      const auto u = static_cast<unsigned char>(c);
      if (c == '"' || c == '\\') {
        const char e[2] = {'\\', c};
        *this << std::string_view(e, 2);
      } else if (u < 0x20) {
        const char e[6] = {'\\', 'u', '0', '0', kHex[u >> 4], kHex[u & 15]};
        *this << std::string_view(e, 6);
      } else {
        *this << std::string_view(&c, 1);
      }
    }
    return *this;
  }
  std::string_view view() const { return {p_, len_}; }

 private:
  char* p_;
  std::size_t cap_;
  std::size_t len_ = 0;
};

}  // namespace gatebench::gateway
