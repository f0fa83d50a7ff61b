#include "tools/src/profile/stack_profile.hpp"

#include <algorithm>

namespace gatebench::tools {

int StackProfile::intern(const std::string& name) {
  const auto [it, inserted] = ids_.try_emplace(name, static_cast<int>(names.size()));
  if (inserted) names.push_back(name);
  return it->second;
}

std::vector<FunctionCost> top_functions(const StackProfile& p, bool by_inclusive,
                                        std::size_t limit) {
  std::vector<FunctionCost> all(p.names.size());
  for (std::size_t i = 0; i < p.names.size(); ++i) all[i].name = p.names[i];
  std::vector<std::size_t> seen_in(p.names.size(), static_cast<std::size_t>(-1));
  for (std::size_t s = 0; s < p.samples.size(); ++s) {
    const auto& sample = p.samples[s];
    if (sample.frames.empty()) continue;
    all[static_cast<std::size_t>(sample.frames.back())].self += sample.weight;
    for (const int f : sample.frames) {
      const auto fn = static_cast<std::size_t>(f);
      if (seen_in[fn] == s) continue;
      seen_in[fn] = s;
      all[fn].inclusive += sample.weight;
    }
  }
  std::stable_sort(all.begin(), all.end(), [&](const FunctionCost& a, const FunctionCost& b) {
    return by_inclusive ? a.inclusive > b.inclusive : a.self > b.self;
  });
  if (all.size() > limit) all.resize(limit);
  return all;
}

}  // namespace gatebench::tools
