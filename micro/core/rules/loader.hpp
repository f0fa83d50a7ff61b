// Loads a RuleSet from the JSON format in docs/rules.md. Configuration-time only: every error
// throws RuleLoadError naming the source, the JSON path (rule index and field) and what was
// expected, so a bad rule file is fixed from the message alone.
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>

#include "micro/core/rules/set.hpp"

namespace gatebench::rules {

class RuleLoadError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// `source` names the input in messages (a file name, or "<inline>").
RuleSet load_rule_set(std::string_view json_text, std::string_view source = "<inline>");
RuleSet load_rule_set_file(const std::string& path);

// Parses an ip_lists entry: "a.b.c.d" or "a.b.c.d/len" with host bits clear (a set host bit
// is refused rather than cleared: a list entry that means something else than it says is a
// configuration error). Returns false on anything else.
bool parse_rule_cidr(std::string_view text, cidr::Ipv4Prefix& out);

}  // namespace gatebench::rules
