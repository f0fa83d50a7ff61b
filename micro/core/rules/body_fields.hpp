// Request bodies as rules and exploit patterns see them (docs/rules.md, "Bodies"): the fields of
// a form, JSON or multipart body decoded into one text, so an attack cannot hide behind the
// body's own encoding (`%27`, `\u0027`, a multipart part). Each field is written as
// `name=value&` (JSON: every scalar, after its member name if it has one; multipart: each part
// as `name=content&`, a file's name as `filename&` before it); other media types are scanned
// as they are.
//
// Contract: pure computation into a caller-owned buffer of at least body.size() + 1 bytes (the
// worker's scratch); no allocation, no recursion (JSON nesting is bounded by kMaxJsonDepth).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace gatebench::rules {

enum class BodyFormat : std::uint8_t { kRaw, kForm, kJson, kMultipart };

enum class BodyStatus : std::uint8_t {
  kOk,
  kBadEncoding,   // form: '%' without two hex digits
  kBadJson,       // not one JSON value, or nested deeper than kMaxJsonDepth
  kBadMultipart,  // no boundary, no delimiter, or no closing delimiter
};

inline constexpr std::size_t kMaxJsonDepth = 64;

const char* to_string(BodyStatus status);

// The format a Content-Type names (ASCII case ignored): application/x-www-form-urlencoded,
// application/json or any "+json" type, multipart/form-data (its boundary parameter, quotes
// removed, in `boundary`); kRaw for everything else.
BodyFormat body_format(std::string_view content_type, std::string_view& boundary);

// Decodes `body` in `format` into `out` (room for body.size() + 1 bytes). `complete` false: the
// body was cut at the inspection limit, so a value or part left open at the end is not an
// error (the decoded prefix is returned). kRaw returns `body` itself.
BodyStatus decode_body_fields(BodyFormat format, std::string_view boundary, std::string_view body,
                              bool complete, char* out, std::string_view& text);

// The data of a chunked body whose framing was validated already (http1::ChunkedDecoder), into
// `out` (room for framed.size() bytes): sizes, extensions and trailers removed. A body cut in
// the middle gives the data up to the cut.
std::string_view chunked_data(std::string_view framed, char* out);

}  // namespace gatebench::rules
