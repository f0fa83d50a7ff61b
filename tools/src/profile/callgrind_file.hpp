// Reading callgrind output files (format: valgrind docs, "Callgrind Format Specification").
#pragma once

#include <string>
#include <vector>

namespace gatebench::tools {

// The first event count (Ir, instructions) of the file's "summary:" or "totals:" line.
// Throws std::runtime_error when the file has neither.
double callgrind_total_instructions(const std::string& file);

// The self cost (first event, Ir) of one function in one object (the ELF file it came from:
// "/usr/lib/x86_64-linux-gnu/libssl.so.3", the gateway's binary, ...).
struct CallgrindSelfCost {
  std::string object, function;
  double self = 0;
};

// Every function of the file with its self cost, in order of first appearance. A function's
// object is the ob= (for fn=) or cob= (for cfn=) in force where its name is first defined. The
// self costs add up to the file's total. Read by parse_callgrind (callgrind_profile.hpp). Throws
// std::runtime_error naming the file and line, or the file when it holds no function.
std::vector<CallgrindSelfCost> callgrind_self_costs(const std::string& file);

}  // namespace gatebench::tools
