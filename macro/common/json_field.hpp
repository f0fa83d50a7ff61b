// The one JSON field reader: a value together with its file and JSON pointer (RFC 6901), so every
// complaint names both (`macro/scenarios/x.json: /load/rate: expected a number`). Used at load
// time only; each error is a UsageError. JsonField reads nlohmann::json (members sorted by name);
// OrderedJsonField reads nlohmann::ordered_json, for files whose member order is meaning (the
// headers of a request template go out in the order the file lists them).
#pragma once

#include <cstdint>
#include <initializer_list>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gatebench::common {

// Reads and parses a JSON file. Throws UsageError ("<path>: cannot read", "<path>: not valid
// JSON ...").
template <class Json = nlohmann::json>
Json read_json_file(const std::string& path);
// Parses `text`; `file` names it in the error.
template <class Json = nlohmann::json>
Json parse_json_text(const std::string& text, const std::string& file);

// "/a~1b/0" from "a/b" and 0: the escaping of RFC 6901.
std::string pointer_token(std::string_view key);

// Instantiated for nlohmann::json and nlohmann::ordered_json (json_field.cpp).
template <class Json>
class BasicJsonField {
 public:
  // The document's root; `file` names it in messages. `value` must outlive every field.
  BasicJsonField(const Json& value, std::string file);

  [[noreturn]] void fail(std::string_view what) const;
  // "(top level)" for the root, else the JSON pointer.
  std::string where() const;
  const std::string& pointer() const { return pointer_; }
  const std::string& file() const { return file_; }
  const Json& json() const { return *value_; }

  bool present() const { return present_; }  // false for a child() that is not in the document
  bool is_null() const { return !present_ || value_->is_null(); }
  bool has(std::string_view key) const;

  // A member; when absent, a field that is not present(), whose getters say "missing".
  BasicJsonField child(std::string_view key) const;
  BasicJsonField at(std::size_t index) const;  // an array element (bounds are the caller's)
  std::size_t size() const;                    // elements or members; 0 for scalars
  std::vector<std::string> keys() const;       // an object's member names, in Json's order

  void expect_object() const;
  void expect_array() const;
  // Fails unless absent, null or an object (an array); true when there is one to read.
  bool object_if_present() const;
  bool array_if_present() const;
  // Fails on the first member not in `keys` ("<file>: /lod: unknown field").
  void allow_only(std::initializer_list<std::string_view> keys) const;

  std::string string() const;
  double number() const;
  double number(double min, double max) const;
  long integer(long min, long max) const;
  bool boolean() const;
  std::vector<std::string> strings() const;               // absent: empty
  std::map<std::string, std::string> string_map() const;  // absent: empty

  // Absent (or null): nothing / the fallback; present: as above.
  std::optional<std::string> optional_string() const;
  std::optional<double> optional_number() const;
  std::string string_or(std::string_view key, std::string fallback) const;
  double number_or(std::string_view key, double fallback, double min, double max) const;
  long integer_or(std::string_view key, long fallback, long min, long max) const;
  bool boolean_or(std::string_view key, bool fallback) const;

  // Absent or null: `fallback`; present: as string(), number(), boolean(), integer(min, max).
  // For the formats between gatebench's processes (gatebench.load, gatebench.macro), whose
  // readers keep a type's default for what a file leaves out: a file of an older writer, or one a
  // test writes by hand, reads. (The *_or(key, ...) readers above fail on a null member.)
  std::string string_or_default(std::string fallback = {}) const;
  double number_or_default(double fallback = 0) const;
  bool boolean_or_default(bool fallback = false) const;
  long integer_or_default(long fallback, long min, long max) const;
  // A count of things: an integer from 0 to LONG_MAX (a JSON double holds one exactly up to
  // 2^53, which no run reaches).
  std::uint64_t count_or_default(std::uint64_t fallback = 0) const;

 private:
  BasicJsonField(const Json* value, std::string file, std::string pointer, bool present);
  [[noreturn]] void fail_type(std::string_view expected) const;

  const Json* value_;
  std::string file_;
  std::string pointer_;
  bool present_ = true;
};

using JsonField = BasicJsonField<nlohmann::json>;
using OrderedJsonField = BasicJsonField<nlohmann::ordered_json>;

extern template class BasicJsonField<nlohmann::json>;
extern template class BasicJsonField<nlohmann::ordered_json>;

}  // namespace gatebench::common
