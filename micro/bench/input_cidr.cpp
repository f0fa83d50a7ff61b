#include "micro/bench/input_cidr.hpp"

#include "micro/core/cidr/list.hpp"

namespace gatebench::bench {

std::vector<cidr::CidrEntry> load_cidr_input(const InputFile& file) {
  cidr::CidrListParse parse = cidr::parse_cidr_list(file.bytes);
  if (!parse.ok()) throw InputError(cidr::format_diagnostic(file.path, parse.errors.front()));
  if (parse.entries.empty()) fail_at(file, 1, "no CIDR entries in the list");
  return std::move(parse.entries);
}

}  // namespace gatebench::bench
