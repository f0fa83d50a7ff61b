#include "macro/common/command_line.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>

#include "macro/common/duration.hpp"
#include "macro/common/usage_error.hpp"

namespace gatebench::common {
namespace {

std::string dashed(std::string_view name) {
  return "--" + std::string(name);
}

}  // namespace

long parse_integer(std::string_view text, std::string_view what, long min, long max) {
  long value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec == std::errc::invalid_argument || end != text.data() + text.size()) {
    throw UsageError(std::string(what) + ": '" + std::string(text) + "' is not a whole number");
  }
  if (ec == std::errc::result_out_of_range || value < min || value > max) {
    throw UsageError(std::string(what) + ": " + std::string(text) + " is out of range [" +
                     std::to_string(min) + ", " + std::to_string(max) + "]");
  }
  return value;
}

double parse_number(std::string_view text, std::string_view what) {
  double value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size() ||
      !std::isfinite(value)) {
    throw UsageError(std::string(what) + ": '" + std::string(text) + "' is not a number");
  }
  return value;
}

CommandLine::CommandLine(const std::vector<std::string>& args,
                         const std::vector<OptionSpec>& options) {
  auto by_name = [&](std::string_view name) -> const OptionSpec* {
    const auto it = std::find_if(options.begin(), options.end(),
                                 [&](const OptionSpec& o) { return o.name == name; });
    return it == options.end() ? nullptr : &*it;
  };
  auto by_letter = [&](char letter) -> const OptionSpec* {
    const auto it = std::find_if(options.begin(), options.end(),
                                 [&](const OptionSpec& o) { return o.letter == letter; });
    return it == options.end() ? nullptr : &*it;
  };
  bool options_ended = false;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (options_ended || arg.size() < 2 || arg[0] != '-') {
      positionals_.push_back(arg);
      continue;
    }
    if (arg == "--") {
      options_ended = true;
      continue;
    }
    // `spelling` is what the user typed, for messages about the option itself.
    std::string spelling;
    std::optional<std::string> inline_value;
    const OptionSpec* spec = nullptr;
    if (arg[1] == '-') {
      const std::size_t eq = arg.find('=');
      spelling = arg.substr(0, eq);
      if (eq != std::string::npos) inline_value = arg.substr(eq + 1);
      spec = by_name(std::string_view(spelling).substr(2));
    } else {
      spelling = arg.substr(0, 2);
      if (arg.size() > 2) inline_value = arg.substr(2);
      spec = by_letter(arg[1]);
      if (spec != nullptr && !spec->takes_value && inline_value) spec = nullptr;
    }
    if (spec == nullptr)
      throw UsageError("unknown option " + arg.substr(0, arg.find('=')) + " (see --help)");
    if (!spec->takes_value) {
      if (inline_value) throw UsageError("option " + spelling + " takes no value");
      given_.push_back({spec->name, {}});
      continue;
    }
    if (!inline_value) {
      if (i + 1 >= args.size()) throw UsageError("option " + spelling + " needs a value");
      inline_value = args[++i];
    }
    given_.push_back({spec->name, std::move(*inline_value)});
  }
}

namespace {

std::vector<OptionSpec> long_options(const std::vector<std::string>& value_names,
                                     const std::vector<std::string>& flag_names) {
  std::vector<OptionSpec> out;
  for (const auto& name : value_names) out.push_back(value_option(name));
  for (const auto& name : flag_names) out.push_back(flag_option(name));
  return out;
}

}  // namespace

CommandLine::CommandLine(const std::vector<std::string>& args,
                         const std::vector<std::string>& value_names,
                         const std::vector<std::string>& flag_names)
    : CommandLine(args, long_options(value_names, flag_names)) {}

bool CommandLine::given(std::string_view name) const {
  return std::any_of(given_.begin(), given_.end(), [&](const Given& g) { return g.name == name; });
}

std::optional<std::string> CommandLine::last_of(
    std::initializer_list<std::string_view> names) const {
  for (auto it = given_.rbegin(); it != given_.rend(); ++it) {
    if (std::find(names.begin(), names.end(), it->name) != names.end()) return it->name;
  }
  return std::nullopt;
}

bool CommandLine::flag(std::string_view name) const {
  return given(name);
}

std::optional<std::string> CommandLine::value(std::string_view name) const {
  for (auto it = given_.rbegin(); it != given_.rend(); ++it) {
    if (it->name == name) return it->value;
  }
  return std::nullopt;
}

std::vector<std::string> CommandLine::values(std::string_view name) const {
  std::vector<std::string> out;
  for (const Given& g : given_) {
    if (g.name == name) out.push_back(g.value);
  }
  return out;
}

std::string CommandLine::value_or(std::string_view name, std::string fallback) const {
  return value(name).value_or(std::move(fallback));
}

void CommandLine::expect_no_positionals() const {
  if (!positionals_.empty()) {
    throw UsageError("unexpected argument '" + positionals_.front() + "' (see --help)");
  }
}

std::optional<long> CommandLine::integer(std::string_view name, long min, long max) const {
  const auto v = value(name);
  if (!v) return std::nullopt;
  return parse_integer(*v, dashed(name), min, max);
}

std::optional<double> CommandLine::number(std::string_view name) const {
  const auto v = value(name);
  if (!v) return std::nullopt;
  return parse_number(*v, dashed(name));
}

std::optional<std::uint64_t> CommandLine::duration_ns(std::string_view name) const {
  const auto v = value(name);
  if (!v) return std::nullopt;
  return parse_duration_ns(*v, dashed(name));
}

std::optional<double> CommandLine::duration_s(std::string_view name) const {
  const auto v = value(name);
  if (!v) return std::nullopt;
  return parse_duration_s(*v, dashed(name));
}

std::optional<std::string> CommandLine::choice(
    std::string_view name, std::initializer_list<std::string_view> choices) const {
  auto v = value(name);
  if (!v) return std::nullopt;
  if (std::find(choices.begin(), choices.end(), *v) != choices.end()) return v;
  std::string list;
  std::size_t k = 0;
  for (std::string_view c : choices) {
    if (k > 0) list += k + 1 == choices.size() ? " or " : ", ";
    list += c;
    ++k;
  }
  throw UsageError(dashed(name) + ": expected " + list + ", got '" + *v + "'");
}

}  // namespace gatebench::common
