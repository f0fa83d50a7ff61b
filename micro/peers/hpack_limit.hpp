// The floor of HPACK decoding into a list of views: the block's bytes read and written once
// (memcpy into the scratch) and the finished field list written once (a copy of the decoded
// list's views), the least any decoder returning that list does. It decodes nothing, so it
// says how far a decoder is from moving its input and output, not what decoding could cost.
#pragma once

#include <cstddef>
#include <span>
#include <string_view>

#include "micro/core/http2/hpack.hpp"

namespace gatebench::peers {

// Copies `block` into `scratch` and `fields` into `out`; returns the fields copied (0 when
// either does not fit).
std::size_t hpack_copy_floor(std::string_view block, std::span<const http2::HeaderField> fields,
                             std::span<char> scratch, std::span<http2::HeaderField> out);

}  // namespace gatebench::peers
