// Reading and writing the tools' files. Google Benchmark's JSON needs its non-finite numbers
// mended first; its fields are read with common::JsonField (macro/common/json_field.hpp).
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace gatebench::tools {

// Throws common::UsageError when the file cannot be read or is not JSON.
nlohmann::json load_json_file(const std::string& path);

// Throws std::runtime_error when the file cannot be written.
void write_text_file(const std::string& path, std::string_view text);
std::string read_text_file(const std::string& path);

}  // namespace gatebench::tools
