// The physical floor of access-log parsing: finding every record boundary with memchr, the least
// work any parser must do over the same bytes.
#pragma once

#include <cstddef>
#include <string_view>

namespace gatebench::peers {

// Number of records (newline-terminated lines, plus a final unterminated one) in `buffer`.
std::size_t count_lines_memchr(std::string_view buffer);

}  // namespace gatebench::peers
