#include "macro/gateway/body_cursor.hpp"

#include <string_view>

namespace gatebench::gateway {

void BodyCursor::identify(const char* window, std::size_t len, bool eof) {
  if (complete) return;
  switch (kind) {
    case BodyKind::kNone:
      complete = true;
      break;
    case BodyKind::kLength: {
      std::uint64_t avail = len - scan;
      std::uint64_t take = avail < left ? avail : left;
      scan += static_cast<std::size_t>(take);
      left -= take;
      complete = left == 0;
      break;
    }
    case BodyKind::kChunked:
      scan += chunks.feed(std::string_view(window + scan, len - scan));
      complete = chunks.done();
      break;
    case BodyKind::kUntilClose:
      scan = len;
      complete = eof;
      break;
  }
}

}  // namespace gatebench::gateway
