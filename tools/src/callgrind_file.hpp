// Reading callgrind output files (format: valgrind docs, "Callgrind Format Specification").
#pragma once

#include <string>

namespace gatebench::tools {

// The first event count (Ir, instructions) of the file's "summary:" or "totals:" line.
// Throws std::runtime_error when the file has neither.
double callgrind_total_instructions(const std::string& file);

}  // namespace gatebench::tools
