#include "tools/src/profile/callgrind_profile.hpp"

#include <algorithm>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <unordered_map>

namespace gatebench::tools {

namespace {

// Name compression: "(12) name" defines id 12, "(12)" refers to it; an uncompressed name is its
// own id. Callgrind gives one id per function *in its object*, so two ids may share a name (e.g.
// "(below main)" in ld.so and libc): the id, not the name, is the identity.
struct NameSpec {
  std::string key;   // "(12)", or the name itself
  std::string name;  // empty when the spec only refers to a defined id
  bool defines = false;
};

NameSpec name_spec(const std::string& spec) {
  if (spec.empty() || spec[0] != '(') return {spec, spec, true};
  const auto close = spec.find(')');
  if (close == std::string::npos) throw std::runtime_error("bad compressed name '" + spec + "'");
  const auto start = spec.find_first_not_of(' ', close + 1);
  if (close + 1 >= spec.size()) return {spec.substr(0, close + 1), "", false};
  return {spec.substr(0, close + 1), start == std::string::npos ? "" : spec.substr(start), true};
}

// The function of `spec`, added with `object` (the object file in force) when it is new.
int function_id(const std::string& spec, const std::string& object,
                std::unordered_map<std::string, int>& ids, CallgrindProfile& p) {
  NameSpec n = name_spec(spec);
  if (const auto it = ids.find(n.key); it != ids.end()) return it->second;
  if (!n.defines) throw std::runtime_error("undefined name id " + n.key);
  p.names.push_back(std::move(n.name));
  p.objects.push_back(object);
  p.self.push_back(0);
  return ids[n.key] = static_cast<int>(p.names.size() - 1);
}

// The object file an ob= or cob= names.
std::string object_name(const std::string& spec,
                        std::unordered_map<std::string, std::string>& ids) {
  NameSpec n = name_spec(spec);
  if (n.defines) return ids.try_emplace(n.key, std::move(n.name)).first->second;
  const auto it = ids.find(n.key);
  if (it == ids.end()) throw std::runtime_error("undefined name id " + n.key);
  return it->second;
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
  std::unordered_map<std::string, int> functions;
  std::unordered_map<std::string, std::string> objects;
  std::string object, callee_object;  // names, not ids
  bool callee_object_set = false;
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
        // The line after calls= is the inclusive cost of that call, not the caller's own.
        if (next_is_call_cost) {
          p.calls[{current, callee}] += cost;
          next_is_call_cost = false;
        } else {
          p.self[static_cast<std::size_t>(current)] += cost;
        }
      } else if (starts_with(line, "ob=")) {
        object = object_name(line.substr(3), objects);
      } else if (starts_with(line, "cob=")) {
        callee_object = object_name(line.substr(4), objects);
        callee_object_set = true;
      } else if (starts_with(line, "fn=")) {
        current = function_id(line.substr(3), object, functions, p);
      } else if (starts_with(line, "cfn=")) {
        callee =
            function_id(line.substr(4), callee_object_set ? callee_object : object, functions, p);
        callee_object_set = false;
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
      // fl=, fi=, fe=, cfi=, cfl=, jump=, jcnd=, desc:, ... do not change costs here.
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
