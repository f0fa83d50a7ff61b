// Normalisation of the request target before rules see it (docs/rules.md, "Normalisation"):
// an encoded, doubled or dotted spelling of a path must not slip past a rule written for the
// plain one (`/wp-%61dmin`, `//wp-admin`, `/x/../wp-admin`, `/wp-admin%252f`), and an encoding
// that does not decode is an error the gateway answers with 400.
//
// Contract: pure computation into a caller-owned buffer of at least raw.size() + 1 bytes (the
// worker's scratch); no allocation. Results are views into that buffer.
#pragma once

#include <cstddef>
#include <string_view>

#include "micro/core/rules/percent_decode.hpp"

namespace gatebench::rules {

enum class NormalizeStatus : unsigned char {
  kOk,
  kBadEncoding,  // '%' not followed by two hex digits
  kNulByte,      // the path decodes to a NUL byte
  kNotAPath,     // a path that is neither "*" nor starts with '/'
};

const char* to_string(NormalizeStatus status);

// One round of strict percent-decoding of `in` into `out` (room for in.size() bytes; `out` may
// equal in.data()): "%XX" becomes the byte, '+' becomes a space with kToSpace. A '%' without two
// hex digits after it is kBadEncoding. Case is kept.
NormalizeStatus percent_decode_strict(std::string_view in, char* out, PlusMode plus,
                                      std::string_view& result);

// A second, lenient round when the first left a "%XX" behind (double encoding: "%252e" is "."):
// decodes in place; a '%' without hex digits after it is kept (it was itself encoded), and so is
// '+' (after the first round it was "%2B", a plus sign).
std::string_view decode_again_if_encoded(std::string_view decoded);

// The path as rules see it: decoded (two rounds as above), '\' read as '/', runs of '/' merged,
// "." segments dropped and ".." segments removing the segment before them (never above the
// root). A trailing '/' (or a final "." / ".." segment) is kept as a trailing '/'. "*" (the
// asterisk-form of OPTIONS) is returned unchanged.
NormalizeStatus normalize_path(std::string_view raw, char* out, std::string_view& result);

// The query as rules see it: decoded in two rounds with '+' as a space. Separators that were
// encoded ("%26") become separators: rules read the query as text, not as parameters.
NormalizeStatus normalize_query(std::string_view raw, char* out, std::string_view& result);

// The origin-form of a request target (RFC 9112 3.2): an absolute-form target
// ("http://example.com/a?b", scheme case-insensitive) gives its path and query and, in
// `authority`, the host[:port] it names; any other target is returned unchanged with an empty
// authority. Without a path the result is empty or starts with '?' (the caller sends "/" first).
std::string_view origin_form(std::string_view target, std::string_view& authority);

}  // namespace gatebench::rules
