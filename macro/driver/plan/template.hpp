#pragma once
// ${name} substitution for config templates, command arguments and environment values.
#include <map>
#include <stdexcept>
#include <string>
#include <string_view>

namespace gatebench::macro {

using Variables = std::map<std::string, std::string, std::less<>>;

struct TemplateError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Replaces every ${name} with its value; "$${" stands for a literal "${" and any other '$' is kept
// (nginx variables such as $remote_addr pass through untouched). An unknown or unterminated name
// throws TemplateError "<where>:<line>: unknown variable ${name}".
std::string render_template(std::string_view text, const Variables& vars, std::string_view where);

}  // namespace gatebench::macro
