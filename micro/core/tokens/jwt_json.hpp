// The small, strict, allocation-free JSON reader JWT verification needs: one top-level object,
// a few named members picked out, everything else validated and skipped.
//
// Strict where laxness would let two parsers disagree about a token: the whole text must be one
// valid JSON object (RFC 8259) with nothing after it; a member this reader looks for may appear
// only once; nesting is limited to kJwtJsonMaxDepth.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

namespace gatebench::tokens {

inline constexpr int kJwtJsonMaxDepth = 16;

struct JwtJsonField {
  enum class Type : std::uint8_t { string, integer };

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

}  // namespace gatebench::tokens
