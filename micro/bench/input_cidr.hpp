// A CIDR list given with --input cidr=FILE (docs/cidr.md's format), parsed by gatecore's list
// parser; its errors are the input's errors.
#pragma once

#include <vector>

#include "micro/bench/input_options.hpp"
#include "micro/core/cidr/prefix.hpp"

namespace gatebench::bench {

// Throws InputError with the parser's first error ("FILE:LINE: what").
std::vector<cidr::CidrEntry> load_cidr_input(const InputFile& file);

}  // namespace gatebench::bench
