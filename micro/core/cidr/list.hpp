// The CIDR list text format (docs/cidr.md) and its parser: configuration time, so it collects
// every error and warning with its line number instead of stopping at the first.
//
//   # comment (also after an entry)
//   10.0.0.0/8                  prefix
//   192.0.2.7                   bare address = /32
//   198.51.100.10-198.51.100.20 inclusive range, split into prefixes
//   203.0.113.0/24 7            optional value: decimal number ...
//   1.0.0.0/24 AU               ... or two-character country code (packed, see prefix.hpp)
//
// Host bits below the prefix length are cleared and reported as a warning, never silently.
// A prefix given twice is a warning too; the later line's value wins.
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "micro/core/cidr/prefix.hpp"

namespace gatebench::cidr {

struct CidrDiagnostic {
  std::size_t line = 0;  // 1-based line in the text
  std::string message;   // e.g. "octet over 255 in '10.0.300.1'"
};

struct CidrListParse {
  std::vector<CidrEntry> entries;  // in text order; ranges expanded to their prefixes
  std::vector<CidrDiagnostic> warnings;
  std::vector<CidrDiagnostic> errors;

  bool ok() const noexcept { return errors.empty(); }
};

// Parses a whole list. Lines without their own value get default_value (which must not be
// kNoMatch). Never throws for bad text: every problem lands in errors/warnings.
CidrListParse parse_cidr_list(std::string_view text, CidrValue default_value = 1);

// Thrown by the helpers that turn a list into a table when the list has errors. what() names the
// source and the first errors ("blocklist.txt:3: octet over 255 in '10.0.300.1'").
class CidrListError : public std::runtime_error {
 public:
  CidrListError(std::string source, std::vector<CidrDiagnostic> errors);
  const std::string& source() const noexcept { return source_; }
  const std::vector<CidrDiagnostic>& errors() const noexcept { return errors_; }

 private:
  std::string source_;
  std::vector<CidrDiagnostic> errors_;
};

// "source:line: message", the form every diagnostic is printed in.
std::string format_diagnostic(std::string_view source, const CidrDiagnostic& diagnostic);

}  // namespace gatebench::cidr
