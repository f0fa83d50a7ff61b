#include "micro/peers/hpack_limit.hpp"

#include <cstring>

namespace gatebench::peers {

std::size_t hpack_copy_floor(std::string_view block, std::span<const http2::HeaderField> fields,
                             std::span<char> scratch, std::span<http2::HeaderField> out) {
  if (block.size() > scratch.size() || fields.size() > out.size()) return 0;
  std::memcpy(scratch.data(), block.data(), block.size());
  std::memcpy(static_cast<void*>(out.data()), fields.data(), fields.size_bytes());
  return fields.size();
}

}  // namespace gatebench::peers
