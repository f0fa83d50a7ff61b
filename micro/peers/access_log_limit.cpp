#include "micro/peers/access_log_limit.hpp"

#include <cstring>

namespace gatebench::peers {

std::size_t count_lines_memchr(std::string_view buffer) {
  const char* p = buffer.data();
  const char* const end = p + buffer.size();
  std::size_t lines = 0;
  while (p < end) {
    const void* nl = std::memchr(p, '\n', static_cast<std::size_t>(end - p));
    ++lines;
    if (nl == nullptr) break;
    p = static_cast<const char*>(nl) + 1;
  }
  return lines;
}

}  // namespace gatebench::peers
