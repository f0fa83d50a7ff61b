#include "micro/peers/http1_limit.hpp"

#include <cstring>

namespace gatebench::peers {
namespace {

// The first line from `p` that is only CRLF: the offset past it, or 0.
std::size_t empty_line_end(const char* begin, const char* p, const char* end) {
  while (p < end) {
    const auto* nl =
        static_cast<const char*>(std::memchr(p, '\n', static_cast<std::size_t>(end - p)));
    if (nl == nullptr) return 0;
    if (nl == p + 1) return static_cast<std::size_t>(nl + 1 - begin);
    p = nl + 1;
  }
  return 0;
}

}  // namespace

std::size_t head_end_memchr(std::string_view message) {
  const char* begin = message.data();
  return empty_line_end(begin, begin, begin + message.size());
}

std::size_t chunked_end_memchr(std::string_view body) {
  const char* begin = body.data();
  const char* const end = begin + body.size();
  const char* p = begin;
  for (;;) {
    const auto* nl =
        static_cast<const char*>(std::memchr(p, '\n', static_cast<std::size_t>(end - p)));
    if (nl == nullptr) return 0;
    std::size_t size = 0;
    for (; p < nl; ++p) {
      const unsigned d = static_cast<unsigned char>(*p) - '0';
      const unsigned x = (static_cast<unsigned char>(*p) | 0x20) - 'a';
      if (d < 10) {
        size = size * 16 + d;
      } else if (x < 6) {
        size = size * 16 + x + 10;
      } else {
        break;
      }
    }
    p = nl + 1;
    if (size == 0) return empty_line_end(begin, p, end);
    p += size + 2;
    if (p > end) return 0;
  }
}

}  // namespace gatebench::peers
