#include "tools/src/results/json_file.hpp"

#include <fstream>
#include <sstream>

#include "macro/common/json_field.hpp"
#include "macro/common/usage_error.hpp"

namespace gatebench::tools {

using nlohmann::json;

std::string read_text_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw common::UsageError(path + ": cannot open for reading");
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

namespace {

// Google Benchmark writes non-finite doubles as bare NaN / Infinity (e.g. the cv of a constant
// counter is 0/0), which JSON does not allow; Python's json (compare.py) accepts them. Outside
// strings they become null, which the readers treat as "no value".
std::string replace_non_finite(const std::string& text) {
  static constexpr std::string_view kWords[] = {"-Infinity", "Infinity", "-NaN", "NaN",
                                                "-nan",      "nan",      "-inf", "inf"};
  std::string out;
  out.reserve(text.size());
  bool in_string = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      out += c;
      if (c == '\\' && i + 1 < text.size()) {
        out += text[++i];
      } else if (c == '"') {
        in_string = false;
      }
      continue;
    }
    if (c == '"') {
      in_string = true;
      out += c;
      continue;
    }
    bool replaced = false;
    for (std::string_view w : kWords) {
      if (text.compare(i, w.size(), w) == 0) {
        out += "null";
        i += w.size() - 1;
        replaced = true;
        break;
      }
    }
    if (!replaced) out += c;
  }
  return out;
}

}  // namespace

json load_json_file(const std::string& path) {
  return common::parse_json_text(replace_non_finite(read_text_file(path)), path);
}

void write_text_file(const std::string& path, std::string_view text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) throw std::runtime_error(path + ": cannot open for writing");
  out.write(text.data(), static_cast<std::streamsize>(text.size()));
  if (!out) throw std::runtime_error(path + ": write failed");
}

}  // namespace gatebench::tools
