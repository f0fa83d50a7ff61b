// Minimal option parser for the subcommands: `--name value`, `--name=value`, boolean `--flag`,
// positionals. Unknown options and malformed numbers are BadInput (exit 2).
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace gatebench::tools {

class Args {
 public:
  Args(const std::vector<std::string>& argv, const std::set<std::string>& value_options,
       const std::set<std::string>& flag_options);

  bool flag(const std::string& name) const { return flags_.count(name) > 0; }
  // The last occurrence of a value option; values() gives every occurrence, in order.
  std::optional<std::string> value(const std::string& name) const;
  std::vector<std::string> values(const std::string& name) const;
  std::string value_or(const std::string& name, const std::string& fallback) const;
  double number_or(const std::string& name, double fallback) const;
  // Accepts "5" or "5%" and returns the fraction (0.05).
  double percent_or(const std::string& name, double fallback_fraction) const;
  long integer_or(const std::string& name, long fallback) const;
  const std::vector<std::string>& positionals() const { return positionals_; }

 private:
  std::map<std::string, std::string> values_;
  std::map<std::string, std::vector<std::string>> all_values_;
  std::set<std::string> flags_;
  std::vector<std::string> positionals_;
};

}  // namespace gatebench::tools
