// A JSON value together with its path in the document, so every validation error can name the
// field it is about (`origin: hosts[1].upstream: expected "host:port"`). Used only at load time.
#pragma once

#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "macro/gateway/config.hpp"

namespace gatebench::gateway {

inline bool iequals_ascii(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    char x = a[i];
    char y = b[i];
    if (x >= 'A' && x <= 'Z') x = static_cast<char>(x + 32);
    if (y >= 'A' && y <= 'Z') y = static_cast<char>(y + 32);
    if (x != y) return false;
  }
  return true;
}

class Field {
 public:
  Field(const nlohmann::json& value, std::string path, std::string origin)
      : value_(&value), path_(std::move(path)), origin_(std::move(origin)) {}

  [[noreturn]] void fail(const std::string& what) const {
    throw ConfigError(origin_ + ": " + (path_.empty() ? std::string("(top level)") : path_) + ": " +
                      what);
  }

  const nlohmann::json& json() const { return *value_; }
  const std::string& path() const { return path_; }

  void expect_object() const {
    if (!value_->is_object()) fail("expected an object");
  }
  void expect_array() const {
    if (!value_->is_array()) fail("expected an array");
  }
  std::size_t size() const { return value_->size(); }

  bool has(const char* key) const { return value_->is_object() && value_->contains(key); }

  // A child that may be absent: only call after has(), or to name a missing field in fail().
  Field child(const char* key) const {
    static const nlohmann::json kNull;
    std::string p = path_.empty() ? std::string(key) : path_ + "." + key;
    if (has(key)) return Field((*value_)[key], p, origin_);
    return Field(kNull, p, origin_);
  }
  Field required(const char* key) const {
    expect_object();
    if (!has(key)) child(key).fail("required field is missing");
    return child(key);
  }
  Field at(std::size_t i) const {
    return Field((*value_)[i], path_ + "[" + std::to_string(i) + "]", origin_);
  }

  void allow_keys(std::initializer_list<std::string_view> keys) const {
    expect_object();
    for (const auto& item : value_->items()) {
      bool known = false;
      for (std::string_view k : keys) known = known || item.key() == k;
      if (!known) {
        std::string p = path_.empty() ? item.key() : path_ + "." + item.key();
        throw ConfigError(origin_ + ": " + p + ": unknown field");
      }
    }
  }

  std::string string() const {
    if (!value_->is_string()) fail("expected a string");
    return value_->get<std::string>();
  }
  bool boolean() const {
    if (!value_->is_boolean()) fail("expected true or false");
    return value_->get<bool>();
  }
  long integer(long lo, long hi) const {
    if (!value_->is_number_integer()) fail("expected an integer");
    long v = value_->get<long>();
    if (v < lo || v > hi) {
      fail("expected an integer in " + std::to_string(lo) + ".." + std::to_string(hi));
    }
    return v;
  }
  double number(double lo, double hi) const {
    if (!value_->is_number()) fail("expected a number");
    double v = value_->get<double>();
    if (!(v >= lo && v <= hi)) {
      fail("expected a number in " + std::to_string(lo) + ".." + std::to_string(hi));
    }
    return v;
  }
  std::string string_or(const char* key, const char* dflt) const {
    return has(key) ? child(key).string() : std::string(dflt);
  }
  long integer_or(const char* key, long dflt, long lo, long hi) const {
    return has(key) ? child(key).integer(lo, hi) : dflt;
  }
  bool boolean_or(const char* key, bool dflt) const {
    return has(key) ? child(key).boolean() : dflt;
  }

  // A file path; relative paths are taken from the directory of the config file.
  std::string path_string() const {
    std::string s = string();
    if (s.empty()) fail("expected a file path");
    std::filesystem::path p(s);
    if (p.is_relative()) p = std::filesystem::path(origin_).parent_path() / p;
    return p.string();
  }
  void expect_readable(const std::string& file) const {
    std::ifstream in(file);
    if (!in) fail("cannot read \"" + file + "\"");
  }

 private:
  const nlohmann::json* value_;
  std::string path_;
  std::string origin_;
};

}  // namespace gatebench::gateway
