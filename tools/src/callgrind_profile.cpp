#include "tools/src/callgrind_profile.hpp"

#include <algorithm>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <unordered_map>

namespace gatebench::tools {

namespace {

// Name compression: "(12) name" defines id 12, "(12)" refers to it. Callgrind gives one id per
// function *in its object*, so two ids may share a name (e.g. "(below main)" in ld.so and libc):
// the id, not the name, is the identity. Uncompressed files fall back to the name.
int function_id(const std::string& spec, std::unordered_map<int, int>& compressed,
                std::unordered_map<std::string, int>& by_name, CallgrindProfile& p) {
  auto add = [&](const std::string& name) {
    p.names.push_back(name);
    p.self.push_back(0);
    return static_cast<int>(p.names.size() - 1);
  };
  if (spec.empty() || spec[0] != '(') {
    auto it = by_name.find(spec);
    return it != by_name.end() ? it->second : by_name[spec] = add(spec);
  }
  const auto close = spec.find(')');
  if (close == std::string::npos) throw std::runtime_error("bad compressed name '" + spec + "'");
  const int cid = std::stoi(spec.substr(1, close - 1));
  const auto it = compressed.find(cid);
  if (it != compressed.end()) return it->second;
  if (close + 2 > spec.size())
    throw std::runtime_error("undefined name id (" + std::to_string(cid) + ")");
  return compressed[cid] = add(spec.substr(close + 2));
}

bool starts_with(const std::string& s, const char* prefix) {
  return s.rfind(prefix, 0) == 0;
}

}  // namespace

double CallgrindProfile::inclusive(int fn) const {
  double sum = self[static_cast<std::size_t>(fn)];
  for (auto it = calls.lower_bound({fn, -1}); it != calls.end() && it->first.first == fn; ++it)
    sum += it->second;
  return sum;
}

CallgrindProfile parse_callgrind(const std::string& file) {
  std::ifstream in(file);
  if (!in) throw std::runtime_error(file + ": cannot open callgrind output");
  CallgrindProfile p;
  std::unordered_map<int, int> compressed;
  std::unordered_map<std::string, int> by_name;
  int positions = 1;
  int current = -1, callee = -1;
  bool next_is_call_cost = false;
  std::string line;
  std::size_t line_no = 0;
  try {
    while (std::getline(in, line)) {
      ++line_no;
      if (line.empty() || line[0] == '#') continue;
      const char c = line[0];
      if ((c >= '0' && c <= '9') || c == '+' || c == '-' || c == '*') {
        std::istringstream fields(line);
        std::string pos;
        for (int i = 0; i < positions; ++i) fields >> pos;
        double cost = 0;
        fields >> cost;  // a missing count means 0
        if (current < 0) throw std::runtime_error("cost line before any fn=");
        if (next_is_call_cost) {
          p.calls[{current, callee}] += cost;
          next_is_call_cost = false;
        } else {
          p.self[static_cast<std::size_t>(current)] += cost;
        }
      } else if (starts_with(line, "fn=")) {
        current = function_id(line.substr(3), compressed, by_name, p);
      } else if (starts_with(line, "cfn=")) {
        callee = function_id(line.substr(4), compressed, by_name, p);
      } else if (starts_with(line, "calls=")) {
        if (callee < 0) throw std::runtime_error("calls= without cfn=");
        next_is_call_cost = true;
      } else if (starts_with(line, "positions:")) {
        std::istringstream fields(line.substr(10));
        std::string tok;
        positions = 0;
        while (fields >> tok) ++positions;
      } else if (starts_with(line, "events:")) {
        std::istringstream fields(line.substr(7));
        fields >> p.event;
      } else if (starts_with(line, "summary:") || starts_with(line, "totals:")) {
        std::istringstream fields(line.substr(line.find(':') + 1));
        double v = 0;
        if (fields >> v) p.total = std::max(p.total, v);
      }
      // ob=, fl=, fi=, fe=, cob=, cfi=, cfl=, jump=, jcnd=, desc:, ... do not change costs here.
    }
  } catch (const std::exception& e) {
    throw std::runtime_error(file + ":" + std::to_string(line_no) + ": " + e.what());
  }
  if (p.names.empty()) throw std::runtime_error(file + ": no functions (empty profile?)");
  return p;
}

std::vector<FunctionCost> top_functions(const CallgrindProfile& p, bool by_inclusive,
                                        std::size_t limit) {
  std::vector<FunctionCost> all;
  for (std::size_t i = 0; i < p.names.size(); ++i)
    all.push_back({p.names[i], p.self[i], p.inclusive(static_cast<int>(i))});
  std::stable_sort(all.begin(), all.end(), [&](const FunctionCost& a, const FunctionCost& b) {
    return by_inclusive ? a.inclusive > b.inclusive : a.self > b.self;
  });
  if (all.size() > limit) all.resize(limit);
  return all;
}

}  // namespace gatebench::tools
