// A callgrind output file as a call graph: per function its self cost, and per caller->callee
// edge the inclusive cost of the calls (first event, Ir). Enough for "top functions" and for
// drawing a flame graph without external scripts.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace gatebench::tools {

struct CallgrindProfile {
  std::string event;                            // first event name, e.g. Ir
  double total = 0;                             // summary/totals
  std::vector<std::string> names;               // function id -> name
  std::vector<double> self;                     // function id -> self cost
  std::map<std::pair<int, int>, double> calls;  // (caller, callee) -> inclusive cost

  // self + outgoing call costs (recursive calls counted once per edge, like callgrind_annotate).
  double inclusive(int fn) const;
};

// Throws std::runtime_error naming the file and line on malformed input.
CallgrindProfile parse_callgrind(const std::string& file);

struct FunctionCost {
  std::string name;
  double self = 0, inclusive = 0;
};
// Functions sorted by self (or inclusive) cost, descending.
std::vector<FunctionCost> top_functions(const CallgrindProfile& p, bool by_inclusive,
                                        std::size_t limit);

}  // namespace gatebench::tools
