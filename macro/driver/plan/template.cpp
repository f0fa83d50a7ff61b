#include "macro/driver/plan/template.hpp"

#include <algorithm>

namespace gatebench::macro {
namespace {

std::string locate(std::string_view text, size_t pos, std::string_view where) {
  size_t line = 1 + static_cast<size_t>(std::count(text.begin(), text.begin() + pos, '\n'));
  return std::string(where) + ":" + std::to_string(line);
}

}  // namespace

std::string render_template(std::string_view text, const Variables& vars, std::string_view where) {
  std::string out;
  out.reserve(text.size());
  size_t pos = 0;
  while (pos < text.size()) {
    size_t dollar = text.find('$', pos);
    if (dollar == std::string_view::npos) {
      out.append(text.substr(pos));
      break;
    }
    out.append(text.substr(pos, dollar - pos));
    if (text.substr(dollar).starts_with("$${")) {
      out.append("${");
      pos = dollar + 3;
      continue;
    }
    if (!text.substr(dollar).starts_with("${")) {
      out.push_back('$');
      pos = dollar + 1;
      continue;
    }
    size_t close = text.find('}', dollar + 2);
    if (close == std::string_view::npos) {
      throw TemplateError(locate(text, dollar, where) + ": unterminated ${");
    }
    std::string_view name = text.substr(dollar + 2, close - dollar - 2);
    auto it = vars.find(name);
    if (it == vars.end()) {
      throw TemplateError(locate(text, dollar, where) + ": unknown variable ${" +
                          std::string(name) + "}");
    }
    out.append(it->second);
    pos = close + 1;
  }
  return out;
}

}  // namespace gatebench::macro
