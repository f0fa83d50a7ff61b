// Sampled call stacks (from `perf script`): exact self and inclusive cost per function, unlike a
// callgrind call graph, which keeps caller->callee edges only.
#pragma once

#include <string>
#include <unordered_map>
#include <vector>

#include "tools/src/profile/callgrind_profile.hpp"

namespace gatebench::tools {

struct StackProfile {
  std::string event;               // e.g. cpu-clock
  std::vector<std::string> names;  // function id -> name
  struct Sample {
    std::vector<int> frames;  // outermost caller first, the sampled function last
    double weight = 0;
  };
  std::vector<Sample> samples;
  double total = 0;  // sum of the samples' weights

  int intern(const std::string& name);  // id of name, added when new

 private:
  std::unordered_map<std::string, int> ids_;
};

// Self cost: samples whose last frame is the function; inclusive: samples with the function
// anywhere in the stack, counted once per sample however deep its recursion. Descending.
std::vector<FunctionCost> top_functions(const StackProfile& p, bool by_inclusive,
                                        std::size_t limit);

}  // namespace gatebench::tools
