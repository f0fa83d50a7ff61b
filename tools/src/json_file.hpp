// Reading JSON files and their fields with errors that name the file and the field (a JSON
// pointer such as /benchmarks/3/cpu_time), so a bad input can be fixed without a debugger.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

namespace gatebench::tools {

// Throws BadInput when the file cannot be read or is not JSON.
nlohmann::json load_json_file(const std::string& path);

// Throws std::runtime_error when the file cannot be written.
void write_text_file(const std::string& path, std::string_view text);
std::string read_text_file(const std::string& path);

// `where` is "<file>:<json pointer of obj>"; the messages append the key.
const nlohmann::json& require_field(const nlohmann::json& obj, std::string_view key,
                                    const std::string& where);
double require_number(const nlohmann::json& obj, std::string_view key, const std::string& where);
std::string require_string(const nlohmann::json& obj, std::string_view key,
                           const std::string& where);
std::optional<double> optional_number(const nlohmann::json& obj, std::string_view key,
                                      const std::string& where);
std::optional<std::string> optional_string(const nlohmann::json& obj, std::string_view key,
                                           const std::string& where);

}  // namespace gatebench::tools
