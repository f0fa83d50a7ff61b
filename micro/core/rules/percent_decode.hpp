// Percent-decoding for exploit scanning: attacks hide their bytes behind %XX (and '+' in form
// data), so patterns must see the decoded text. One pass decodes and lower-cases together so the
// field is touched once.
#pragma once

#include <cstddef>
#include <string_view>

namespace gatebench::rules {

enum class PlusMode : unsigned char {
  kKeep,     // path: '+' is a literal plus
  kToSpace,  // query string and form bodies: '+' encodes a space
};

// Decodes `in` into `out`, which must have room for in.size() bytes (decoding never grows),
// lower-casing ASCII letters. "%XX" with two hex digits becomes the byte; a '%' not followed by
// two hex digits is copied as is. Returns the decoded view into `out`.
std::string_view percent_decode_lower(std::string_view in, char* out, PlusMode plus);

}  // namespace gatebench::rules
