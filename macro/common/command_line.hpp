// The one command-line parser of the gatebench executables. Every option is declared up front, so
// an unknown or misspelt one is an error rather than a positional. Accepted forms: `--name value`,
// `--name=value`, `--flag`, and for options with a one-letter alias `-n value` and `-nVALUE` (wrk
// style, `-t4`); a lone `--` ends the options. The typed getters check values and name the
// option in their UsageError ("--threads: 0 is out of range [1, 1024]").
#pragma once

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gatebench::common {

struct OptionSpec {
  std::string name;  // without the leading "--"
  char letter = 0;   // one-letter alias ("-t"), 0 for none
  bool takes_value = true;
};

inline OptionSpec value_option(std::string name, char letter = 0) {
  return {std::move(name), letter, true};
}
inline OptionSpec flag_option(std::string name, char letter = 0) {
  return {std::move(name), letter, false};
}

class CommandLine {
 public:
  // Throws UsageError on an unknown option, a missing value or a value given to a flag.
  CommandLine(const std::vector<std::string>& args, const std::vector<OptionSpec>& options);
  // Long options only: these take a value, these are flags.
  CommandLine(const std::vector<std::string>& args, const std::vector<std::string>& value_names,
              const std::vector<std::string>& flag_names);

  bool flag(std::string_view name) const;
  bool given(std::string_view name) const;
  // Which of `names` came last (a flag and its negation, --tls-resume / --no-tls-resume).
  std::optional<std::string> last_of(std::initializer_list<std::string_view> names) const;
  // The last occurrence of a value option; values() gives every occurrence, in order.
  std::optional<std::string> value(std::string_view name) const;
  std::vector<std::string> values(std::string_view name) const;
  std::string value_or(std::string_view name, std::string fallback) const;
  const std::vector<std::string>& positionals() const { return positionals_; }
  // For commands that take options only: UsageError on the first positional ("unexpected
  // argument 'x' (see --help)").
  void expect_no_positionals() const;

  // Typed values of the last occurrence; nothing when the option is absent.
  std::optional<long> integer(std::string_view name, long min, long max) const;
  std::optional<double> number(std::string_view name) const;
  std::optional<std::uint64_t> duration_ns(std::string_view name) const;
  std::optional<double> duration_s(std::string_view name) const;
  // One of `choices`; the message lists them ("--io: expected auto, uring or epoll, got 'poll'").
  std::optional<std::string> choice(std::string_view name,
                                    std::initializer_list<std::string_view> choices) const;

 private:
  struct Given {
    std::string name;
    std::string value;
  };
  std::vector<Given> given_;
  std::vector<std::string> positionals_;
};

// The same checks for values that do not come from an option (environment variables, lists).
long parse_integer(std::string_view text, std::string_view what, long min, long max);
double parse_number(std::string_view text, std::string_view what);

}  // namespace gatebench::common
