// The small, strict, allocation-free JSON reader JWT verification needs: one top-level object,
// a few named members picked out, everything else validated and skipped.
//
// Strict where laxness would let two parsers disagree about a token: the whole text must be one
// valid JSON object (RFC 8259) with nothing after it; a member this reader looks for may appear
// only once; nesting is limited to kJwtJsonMaxDepth.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

namespace gatebench::tokens {

inline constexpr int kJwtJsonMaxDepth = 16;

struct JwtJsonField {
  // raw: any value, kept as written (string_raw holds the whole value, quotes and brackets
  // included), for members such as "aud" that may be a string or an array.
  enum class Type : std::uint8_t { string, integer, raw };

  JwtJsonField(std::string_view field_name, Type field_type) : name(field_name), type(field_type) {}

  std::string_view name;  // compared with the raw member name (a name with escapes never matches)
  Type type;

  // Filled by scan_json_object.
  bool found = false;
  bool type_ok = false;         // the value has `type` (and, for integers, fits an int64)
  std::string_view string_raw;  // between the quotes, escapes left as written
  bool string_has_escape = false;
  std::int64_t integer = 0;  // a fraction is dropped (NumericDate may have one); no exponent
};

// Scans `json`; returns false when it is not exactly one valid JSON object or a field appears
// twice. Fields not present keep found == false.
bool scan_json_object(std::string_view json, std::span<JwtJsonField> fields);

// Whether a raw JSON value (as Type::raw keeps it) is the string `needle` or an array holding
// it; strings with escapes never match. A value of any other type holds nothing.
bool json_value_has_string(std::string_view raw_value, std::string_view needle);

// Calls visit(context, name, value) for each member of one JSON object, in order: `name` between
// its quotes as written, `value` the raw value text. False when `json` is not exactly one valid
// JSON object (then some members may have been visited).
using JsonMemberVisitor = void (*)(void* context, std::string_view name, std::string_view value);
bool for_each_json_member(std::string_view json, JsonMemberVisitor visit, void* context);

// The content of a JSON string as written between its quotes, unescaped into `out` (\uXXXX as
// UTF-8, surrogate pairs joined); nullopt when an escape is invalid or `out` is too small.
std::optional<std::size_t> json_unescape(std::string_view raw, std::span<char> out);

}  // namespace gatebench::tokens
