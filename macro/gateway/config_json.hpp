// The gateway configuration's view of common::JsonField: the shared reader (file and JSON pointer
// in every message, `gw.json: /hosts/1/upstream: expected "host:port"`) plus the two things only
// this configuration needs, file paths relative to the configuration file and a check that such
// a file can be read. Used only at load time.
#pragma once

#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <sstream>
#include <string>
#include <string_view>

#include "macro/common/json_field.hpp"

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

class Field : public common::JsonField {
 public:
  // Implicit: every JsonField read from the configuration is a Field.
  Field(const common::JsonField& field) : common::JsonField(field) {}

  // Children are Fields again, so the gateway's extras stay at hand all the way down.
  Field child(std::string_view key) const { return common::JsonField::child(key); }
  Field at(std::size_t index) const { return common::JsonField::at(index); }

  // A member of this object that must be there: when absent, the typed getter called on it says
  // "missing (expected ...)", naming its JSON pointer.
  Field required(std::string_view key) const {
    expect_object();
    return child(key);
  }
  void allow_keys(std::initializer_list<std::string_view> keys) const { allow_only(keys); }

  // A file path; relative paths are taken from the directory of the config file.
  std::string path_string() const {
    const std::string s = string();
    if (s.empty()) fail("expected a file path");
    std::filesystem::path p(s);
    if (p.is_relative()) p = std::filesystem::path(file()).parent_path() / p;
    return p.string();
  }
  // The whole content of the file at `path` (from path_string()); fails naming this field.
  std::string file_text(const std::string& path) const {
    std::ifstream in(path, std::ios::binary);
    if (!in) fail("cannot read \"" + path + "\"");
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
  }
  void expect_readable(const std::string& path) const {
    std::ifstream in(path);
    if (!in) fail("cannot read \"" + path + "\"");
  }
};

}  // namespace gatebench::gateway
