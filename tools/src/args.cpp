#include "tools/src/args.hpp"

#include <charconv>

#include "tools/src/bad_input.hpp"

namespace gatebench::tools {

Args::Args(const std::vector<std::string>& argv, const std::set<std::string>& value_options,
           const std::set<std::string>& flag_options) {
  for (std::size_t i = 0; i < argv.size(); ++i) {
    const std::string& a = argv[i];
    if (a.rfind("--", 0) != 0 || a == "--") {
      positionals_.push_back(a);
      continue;
    }
    std::string name = a.substr(2);
    std::optional<std::string> inline_value;
    if (const auto eq = name.find('='); eq != std::string::npos) {
      inline_value = name.substr(eq + 1);
      name = name.substr(0, eq);
    }
    if (flag_options.count(name)) {
      if (inline_value) throw BadInput("option --" + name + " takes no value");
      flags_.insert(name);
    } else if (value_options.count(name)) {
      if (!inline_value && i + 1 >= argv.size())
        throw BadInput("option --" + name + " needs a value");
      values_[name] = inline_value ? *inline_value : argv[++i];
      all_values_[name].push_back(values_[name]);
    } else {
      throw BadInput("unknown option --" + name + " (see --help)");
    }
  }
}

std::optional<std::string> Args::value(const std::string& name) const {
  const auto it = values_.find(name);
  if (it == values_.end()) return std::nullopt;
  return it->second;
}

std::vector<std::string> Args::values(const std::string& name) const {
  const auto it = all_values_.find(name);
  return it == all_values_.end() ? std::vector<std::string>{} : it->second;
}

std::string Args::value_or(const std::string& name, const std::string& fallback) const {
  return value(name).value_or(fallback);
}

double Args::number_or(const std::string& name, double fallback) const {
  const auto v = value(name);
  if (!v) return fallback;
  double out = 0;
  const auto [end, ec] = std::from_chars(v->data(), v->data() + v->size(), out);
  if (ec != std::errc() || end != v->data() + v->size())
    throw BadInput("option --" + name + ": expected a number, got '" + *v + "'");
  return out;
}

double Args::percent_or(const std::string& name, double fallback_fraction) const {
  auto v = value(name);
  if (!v) return fallback_fraction;
  std::string text = *v;
  if (!text.empty() && text.back() == '%') text.pop_back();
  double out = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  if (ec != std::errc() || end != text.data() + text.size() || out < 0)
    throw BadInput("option --" + name + ": expected a percentage like 5 or 5%, got '" + *v + "'");
  return out / 100.0;
}

long Args::integer_or(const std::string& name, long fallback) const {
  const auto v = value(name);
  if (!v) return fallback;
  long out = 0;
  const auto [end, ec] = std::from_chars(v->data(), v->data() + v->size(), out);
  if (ec != std::errc() || end != v->data() + v->size())
    throw BadInput("option --" + name + ": expected an integer, got '" + *v + "'");
  return out;
}

}  // namespace gatebench::tools
