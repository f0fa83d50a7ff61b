#include "tools/src/json_file.hpp"

#include <fstream>
#include <sstream>

#include "tools/src/bad_input.hpp"

namespace gatebench::tools {

using nlohmann::json;

std::string read_text_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw BadInput(path + ": cannot open for reading");
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

json load_json_file(const std::string& path) {
  const std::string text = read_text_file(path);
  try {
    return json::parse(text);
  } catch (const json::parse_error& e) {
    throw BadInput(path + ": not valid JSON (byte " + std::to_string(e.byte) + ")");
  }
}

void write_text_file(const std::string& path, std::string_view text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) throw std::runtime_error(path + ": cannot open for writing");
  out.write(text.data(), static_cast<std::streamsize>(text.size()));
  if (!out) throw std::runtime_error(path + ": write failed");
}

const json& require_field(const json& obj, std::string_view key, const std::string& where) {
  if (!obj.is_object()) throw BadInput(where + ": expected an object");
  const auto it = obj.find(key);
  if (it == obj.end()) throw BadInput(where + "/" + std::string(key) + ": missing field");
  return *it;
}

double require_number(const json& obj, std::string_view key, const std::string& where) {
  const json& v = require_field(obj, key, where);
  if (!v.is_number()) throw BadInput(where + "/" + std::string(key) + ": expected a number");
  return v.get<double>();
}

std::string require_string(const json& obj, std::string_view key, const std::string& where) {
  const json& v = require_field(obj, key, where);
  if (!v.is_string()) throw BadInput(where + "/" + std::string(key) + ": expected a string");
  return v.get<std::string>();
}

std::optional<double> optional_number(const json& obj, std::string_view key,
                                      const std::string& where) {
  if (!obj.is_object()) throw BadInput(where + ": expected an object");
  const auto it = obj.find(key);
  if (it == obj.end() || it->is_null()) return std::nullopt;
  if (!it->is_number()) throw BadInput(where + "/" + std::string(key) + ": expected a number");
  return it->get<double>();
}

std::optional<std::string> optional_string(const json& obj, std::string_view key,
                                           const std::string& where) {
  if (!obj.is_object()) throw BadInput(where + ": expected an object");
  const auto it = obj.find(key);
  if (it == obj.end() || it->is_null()) return std::nullopt;
  if (!it->is_string()) throw BadInput(where + "/" + std::string(key) + ": expected a string");
  return it->get<std::string>();
}

}  // namespace gatebench::tools
