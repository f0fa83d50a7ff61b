#include "macro/common/json_field.hpp"

#include <algorithm>
#include <cstdint>
#include <fstream>
#include <limits>
#include <sstream>

#include "macro/common/usage_error.hpp"

namespace gatebench::common {

using Json = nlohmann::json;

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

Json parse_json_text(const std::string& text, const std::string& file) {
  try {
    return Json::parse(text);
  } catch (const Json::parse_error& e) {
    throw UsageError(file + ": not valid JSON (byte " + std::to_string(e.byte) + ")");
  }
}

Json read_json_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw UsageError(path + ": cannot read");
  std::ostringstream text;
  text << in.rdbuf();
  return parse_json_text(text.str(), path);
}

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

JsonField::JsonField(const Json& value, std::string file)
    : value_(&value), file_(std::move(file)) {}

JsonField::JsonField(const Json* value, std::string file, std::string pointer, bool present)
    : value_(value), file_(std::move(file)), pointer_(std::move(pointer)), present_(present) {}

std::string JsonField::where() const {
  return pointer_.empty() ? "(top level)" : pointer_;
}

void JsonField::fail(std::string_view what) const {
  throw UsageError(file_ + ": " + where() + ": " + std::string(what));
}

void JsonField::fail_type(std::string_view expected) const {
  if (!present_) fail("missing (expected " + std::string(expected) + ")");
  fail("expected " + std::string(expected));
}

bool JsonField::has(std::string_view key) const {
  return present_ && value_->is_object() && value_->contains(key);
}

JsonField JsonField::child(std::string_view key) const {
  static const Json kAbsent;
  std::string pointer = pointer_ + pointer_token(key);
  if (!has(key)) return JsonField(&kAbsent, file_, std::move(pointer), false);
  return JsonField(&value_->find(key).value(), file_, std::move(pointer), true);
}

JsonField JsonField::at(std::size_t index) const {
  return JsonField(&(*value_)[index], file_, pointer_ + "/" + std::to_string(index), true);
}

std::size_t JsonField::size() const {
  return present_ && (value_->is_array() || value_->is_object()) ? value_->size() : 0;
}

std::vector<std::string> JsonField::keys() const {
  std::vector<std::string> out;
  if (!present_ || !value_->is_object()) return out;
  for (const auto& item : value_->items()) out.push_back(item.key());
  return out;
}

void JsonField::expect_object() const {
  if (!present_ || !value_->is_object()) fail_type("an object");
}

void JsonField::expect_array() const {
  if (!present_ || !value_->is_array()) fail_type("an array");
}

void JsonField::allow_only(std::initializer_list<std::string_view> keys) const {
  expect_object();
  for (const auto& item : value_->items()) {
    if (std::find(keys.begin(), keys.end(), item.key()) == keys.end()) {
      child(item.key()).fail("unknown field");
    }
  }
}

std::string JsonField::string() const {
  if (!present_ || !value_->is_string()) fail_type("a string");
  return value_->get<std::string>();
}

double JsonField::number() const {
  if (!present_ || !value_->is_number()) fail_type("a number");
  return value_->get<double>();
}

double JsonField::number(double min, double max) const {
  const double v = number();
  if (!(v >= min && v <= max)) fail("expected a number " + range_text(min, max));
  return v;
}

long JsonField::integer(long min, long max) const {
  if (!present_ || !value_->is_number_integer()) fail_type("an integer");
  // An unsigned value above LONG_MAX would wrap in get<long>().
  if (value_->is_number_unsigned() &&
      value_->get<std::uint64_t>() > static_cast<std::uint64_t>(std::numeric_limits<long>::max())) {
    fail("expected an integer " + range_text(min, max));
  }
  const long v = value_->get<long>();
  if (v < min || v > max) {
    fail("expected an integer " + range_text(min, max));
  }
  return v;
}

bool JsonField::boolean() const {
  if (!present_ || !value_->is_boolean()) fail_type("true or false");
  return value_->get<bool>();
}

std::vector<std::string> JsonField::strings() const {
  std::vector<std::string> out;
  if (is_null()) return out;
  if (!value_->is_array()) fail("expected an array of strings");
  for (std::size_t i = 0; i < value_->size(); ++i) out.push_back(at(i).string());
  return out;
}

std::map<std::string, std::string> JsonField::string_map() const {
  std::map<std::string, std::string> out;
  if (is_null()) return out;
  if (!value_->is_object()) fail("expected an object of strings");
  for (const std::string& key : keys()) out[key] = child(key).string();
  return out;
}

std::optional<std::string> JsonField::optional_string() const {
  if (is_null()) return std::nullopt;
  return string();
}

std::optional<double> JsonField::optional_number() const {
  if (is_null()) return std::nullopt;
  return number();
}

std::string JsonField::string_or(std::string_view key, std::string fallback) const {
  return has(key) ? child(key).string() : fallback;
}

double JsonField::number_or(std::string_view key, double fallback, double min, double max) const {
  return has(key) ? child(key).number(min, max) : fallback;
}

long JsonField::integer_or(std::string_view key, long fallback, long min, long max) const {
  return has(key) ? child(key).integer(min, max) : fallback;
}

bool JsonField::boolean_or(std::string_view key, bool fallback) const {
  return has(key) ? child(key).boolean() : fallback;
}

}  // namespace gatebench::common
