// A callgrind output file as a call graph: per function its object and self cost, and per
// caller->callee edge the inclusive cost of the calls (first event, Ir). Enough for "top
// functions", for drawing a flame graph without external scripts and for the self costs per
// function and object of the attribution (callgrind_file.hpp): the one parser of the format.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace gatebench::tools {

struct CallgrindProfile {
  std::string event;               // first event name, e.g. Ir
  double total = 0;                // summary/totals
  std::vector<std::string> names;  // function id -> name
  // function id -> its object file (the ob= in force where fn= first names it, or the cob= of a
  // cfn=): "/usr/lib/x86_64-linux-gnu/libssl.so.3", the gateway's binary, ...
  std::vector<std::string> objects;
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
