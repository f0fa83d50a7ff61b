#include "macro/common/json_field.hpp"

#include <algorithm>
#include <cstdint>
#include <fstream>
#include <limits>
#include <sstream>

#include "macro/common/usage_error.hpp"

namespace gatebench::common {

namespace {

std::string range_text(double min, double max) {
  std::ostringstream out;
  out << "from " << min << " to " << max;
  return out.str();
}

std::string range_text(long min, long max) {
  return "from " + std::to_string(min) + " to " + std::to_string(max);
}

}  // namespace

template <class Json>
Json parse_json_text(const std::string& text, const std::string& file) {
  try {
    return Json::parse(text);
  } catch (const typename Json::parse_error& e) {
    throw UsageError(file + ": not valid JSON (byte " + std::to_string(e.byte) + ")");
  } catch (const typename Json::out_of_range&) {
    // A number no double holds (1e400): nlohmann's out_of_range.406, not a parse_error.
    throw UsageError(file + ": not valid JSON (a number out of range)");
  }
}

template <class Json>
Json read_json_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw UsageError(path + ": cannot read");
  std::ostringstream text;
  text << in.rdbuf();
  return parse_json_text<Json>(text.str(), path);
}

template nlohmann::json parse_json_text<nlohmann::json>(const std::string&, const std::string&);
template nlohmann::ordered_json parse_json_text<nlohmann::ordered_json>(const std::string&,
                                                                        const std::string&);
template nlohmann::json read_json_file<nlohmann::json>(const std::string&);
template nlohmann::ordered_json read_json_file<nlohmann::ordered_json>(const std::string&);

std::string pointer_token(std::string_view key) {
  std::string out = "/";
  for (char c : key) {
    if (c == '~') {
      out += "~0";
    } else if (c == '/') {
      out += "~1";
    } else {
      out += c;
    }
  }
  return out;
}

template <class Json>
BasicJsonField<Json>::BasicJsonField(const Json& value, std::string file)
    : value_(&value), file_(std::move(file)) {}

template <class Json>
BasicJsonField<Json>::BasicJsonField(const Json* value, std::string file, std::string pointer,
                                     bool present)
    : value_(value), file_(std::move(file)), pointer_(std::move(pointer)), present_(present) {}

template <class Json>
std::string BasicJsonField<Json>::where() const {
  return pointer_.empty() ? "(top level)" : pointer_;
}

template <class Json>
void BasicJsonField<Json>::fail(std::string_view what) const {
  throw UsageError(file_ + ": " + where() + ": " + std::string(what));
}

template <class Json>
void BasicJsonField<Json>::fail_type(std::string_view expected) const {
  if (!present_) fail("missing (expected " + std::string(expected) + ")");
  fail("expected " + std::string(expected));
}

template <class Json>
bool BasicJsonField<Json>::has(std::string_view key) const {
  // As a std::string: ordered_json's map has no lookup by string_view.
  return present_ && value_->is_object() && value_->contains(std::string(key));
}

template <class Json>
BasicJsonField<Json> BasicJsonField<Json>::child(std::string_view key) const {
  static const Json kAbsent;
  std::string pointer = pointer_ + pointer_token(key);
  if (!has(key)) return BasicJsonField(&kAbsent, file_, std::move(pointer), false);
  return BasicJsonField(&*value_->find(std::string(key)), file_, std::move(pointer), true);
}

template <class Json>
BasicJsonField<Json> BasicJsonField<Json>::at(std::size_t index) const {
  return BasicJsonField(&(*value_)[index], file_, pointer_ + "/" + std::to_string(index), true);
}

template <class Json>
std::size_t BasicJsonField<Json>::size() const {
  return present_ && (value_->is_array() || value_->is_object()) ? value_->size() : 0;
}

template <class Json>
std::vector<std::string> BasicJsonField<Json>::keys() const {
  std::vector<std::string> out;
  if (!present_ || !value_->is_object()) return out;
  for (const auto& item : value_->items()) out.push_back(item.key());
  return out;
}

template <class Json>
void BasicJsonField<Json>::expect_object() const {
  if (!present_ || !value_->is_object()) fail_type("an object");
}

template <class Json>
void BasicJsonField<Json>::expect_array() const {
  if (!present_ || !value_->is_array()) fail_type("an array");
}

template <class Json>
bool BasicJsonField<Json>::object_if_present() const {
  if (is_null()) return false;
  expect_object();
  return true;
}

template <class Json>
bool BasicJsonField<Json>::array_if_present() const {
  if (is_null()) return false;
  expect_array();
  return true;
}

template <class Json>
void BasicJsonField<Json>::allow_only(std::initializer_list<std::string_view> keys) const {
  expect_object();
  for (const auto& item : value_->items()) {
    if (std::find(keys.begin(), keys.end(), item.key()) == keys.end()) {
      child(item.key()).fail("unknown field");
    }
  }
}

template <class Json>
std::string BasicJsonField<Json>::string() const {
  if (!present_ || !value_->is_string()) fail_type("a string");
  return value_->template get<std::string>();
}

template <class Json>
double BasicJsonField<Json>::number() const {
  if (!present_ || !value_->is_number()) fail_type("a number");
  return value_->template get<double>();
}

template <class Json>
double BasicJsonField<Json>::number(double min, double max) const {
  const double v = number();
  if (!(v >= min && v <= max)) fail("expected a number " + range_text(min, max));
  return v;
}

template <class Json>
long BasicJsonField<Json>::integer(long min, long max) const {
  if (!present_ || !value_->is_number_integer()) fail_type("an integer");
  // An unsigned value above LONG_MAX would wrap in get<long>().
  if (value_->is_number_unsigned() &&
      value_->template get<std::uint64_t>() >
          static_cast<std::uint64_t>(std::numeric_limits<long>::max())) {
    fail("expected an integer " + range_text(min, max));
  }
  const long v = value_->template get<long>();
  if (v < min || v > max) {
    fail("expected an integer " + range_text(min, max));
  }
  return v;
}

template <class Json>
bool BasicJsonField<Json>::boolean() const {
  if (!present_ || !value_->is_boolean()) fail_type("true or false");
  return value_->template get<bool>();
}

template <class Json>
std::vector<std::string> BasicJsonField<Json>::strings() const {
  std::vector<std::string> out;
  if (is_null()) return out;
  if (!value_->is_array()) fail("expected an array of strings");
  for (std::size_t i = 0; i < value_->size(); ++i) out.push_back(at(i).string());
  return out;
}

template <class Json>
std::map<std::string, std::string> BasicJsonField<Json>::string_map() const {
  std::map<std::string, std::string> out;
  if (is_null()) return out;
  if (!value_->is_object()) fail("expected an object of strings");
  for (const std::string& key : keys()) out[key] = child(key).string();
  return out;
}

template <class Json>
std::optional<std::string> BasicJsonField<Json>::optional_string() const {
  if (is_null()) return std::nullopt;
  return string();
}

template <class Json>
std::optional<double> BasicJsonField<Json>::optional_number() const {
  if (is_null()) return std::nullopt;
  return number();
}

template <class Json>
std::string BasicJsonField<Json>::string_or(std::string_view key, std::string fallback) const {
  return has(key) ? child(key).string() : fallback;
}

template <class Json>
double BasicJsonField<Json>::number_or(std::string_view key, double fallback, double min,
                                       double max) const {
  return has(key) ? child(key).number(min, max) : fallback;
}

template <class Json>
long BasicJsonField<Json>::integer_or(std::string_view key, long fallback, long min,
                                      long max) const {
  return has(key) ? child(key).integer(min, max) : fallback;
}

template <class Json>
bool BasicJsonField<Json>::boolean_or(std::string_view key, bool fallback) const {
  return has(key) ? child(key).boolean() : fallback;
}

template <class Json>
std::string BasicJsonField<Json>::string_or_default(std::string fallback) const {
  return is_null() ? fallback : string();
}

template <class Json>
double BasicJsonField<Json>::number_or_default(double fallback) const {
  return is_null() ? fallback : number();
}

template <class Json>
bool BasicJsonField<Json>::boolean_or_default(bool fallback) const {
  return is_null() ? fallback : boolean();
}

template <class Json>
long BasicJsonField<Json>::integer_or_default(long fallback, long min, long max) const {
  return is_null() ? fallback : integer(min, max);
}

template <class Json>
std::uint64_t BasicJsonField<Json>::count_or_default(std::uint64_t fallback) const {
  return is_null() ? fallback
                   : static_cast<std::uint64_t>(integer(0, std::numeric_limits<long>::max()));
}

template class BasicJsonField<nlohmann::json>;
template class BasicJsonField<nlohmann::ordered_json>;

}  // namespace gatebench::common
