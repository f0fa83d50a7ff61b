#include "micro/bench/input_cidr.hpp"

#include <cstdio>

#include "micro/core/cidr/list.hpp"

namespace gatebench::bench {

std::vector<cidr::CidrEntry> load_cidr_input(const InputFile& file) {
  cidr::CidrListParse parse = cidr::parse_cidr_list(file.bytes);
  if (!parse.ok()) throw InputError(cidr::format_diagnostic(file.path, parse.errors.front()));
  // Warnings (host bits set, a prefix given twice) do not stop the run but are not hidden either.
  for (const cidr::CidrDiagnostic& w : parse.warnings)
    std::fprintf(stderr, "gatebench-micro: %s\n", cidr::format_diagnostic(file.path, w).c_str());
  if (parse.entries.empty()) fail_at(file, 1, "no CIDR entries in the list");
  return std::move(parse.entries);
}

}  // namespace gatebench::bench
