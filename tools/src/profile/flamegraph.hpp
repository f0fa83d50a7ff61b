// Flame graph SVG, drawn here (no flamegraph.pl), from sampled stacks (perf: exact widths) or
// from a callgrind call graph. Callgrind keeps caller->callee edges, not whole stacks, so those
// stacks are rebuilt top-down: a function reached with amount A splits A over its callees in
// proportion to their edge costs (exact for a tree, an estimate where a function has several
// callers); recursion stops at a function already on the stack. In both, frames below
// min_fraction of the total are folded into their parent.
#pragma once

#include <string>

#include "tools/src/profile/callgrind_profile.hpp"
#include "tools/src/profile/stack_profile.hpp"

namespace gatebench::tools {

struct FlameGraphOptions {
  std::string title = "flame graph";
  double width = 1200;
  double min_fraction = 0.001;
  int max_depth = 80;
};

std::string flamegraph_svg(const CallgrindProfile& p, const FlameGraphOptions& opt);
// From sampled stacks (perf): no estimate, each path's width is the weight of its samples.
std::string flamegraph_svg(const StackProfile& p, const FlameGraphOptions& opt);

}  // namespace gatebench::tools
