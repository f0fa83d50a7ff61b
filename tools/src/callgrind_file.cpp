#include "tools/src/callgrind_file.hpp"

#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string_view>

namespace gatebench::tools {

double callgrind_total_instructions(const std::string& file) {
  std::ifstream in(file);
  if (!in) throw std::runtime_error(file + ": cannot open callgrind output");
  std::string line;
  double totals = -1;
  while (std::getline(in, line)) {
    for (const char* key : {"summary:", "totals:"}) {
      if (line.rfind(key, 0) == 0) {
        std::istringstream fields(line.substr(std::string(key).size()));
        double v = 0;
        if (fields >> v) {
          if (key[0] == 's') return v;
          totals = v;
        }
      }
    }
  }
  if (totals >= 0) return totals;
  throw std::runtime_error(file + ": no summary/totals line (truncated callgrind output?)");
}

namespace {

// One name space of the compressed format ("(12) name" defines 12, "(12)" refers to it).
class NameTable {
 public:
  // The id of the name ("(12)"; an uncompressed name is its own id), defined if new.
  std::string resolve(std::string_view spec) {
    if (spec.empty() || spec[0] != '(') {
      std::string name(spec);
      seen_.emplace(name, name);
      return name;
    }
    const auto close = spec.find(')');
    if (close == std::string_view::npos)
      throw std::runtime_error("bad compressed name '" + std::string(spec) + "'");
    std::string id(spec.substr(0, close + 1));
    if (close + 1 < spec.size()) {
      const std::size_t start = spec.find_first_not_of(' ', close + 1);
      seen_.emplace(id, start == std::string_view::npos ? "" : spec.substr(start));
    } else if (!seen_.contains(id)) {
      throw std::runtime_error("undefined name id " + id);
    }
    return id;
  }
  const std::string& name(const std::string& id) const { return seen_.at(id); }

 private:
  std::map<std::string, std::string> seen_;
};

bool starts_with(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}

}  // namespace

std::vector<CallgrindSelfCost> callgrind_self_costs(const std::string& file) {
  std::ifstream in(file);
  if (!in) throw std::runtime_error(file + ": cannot open callgrind output");
  NameTable objects, functions;
  std::vector<CallgrindSelfCost> out;
  std::map<std::string, std::size_t> index;  // function id -> out
  std::string object, callee_object;         // names, not ids
  bool callee_object_set = false;
  long current = -1;
  int positions = 1;
  bool call_cost = false;
  auto function_index = [&](std::string_view spec, const std::string& obj) {
    const std::string id = functions.resolve(spec);
    auto it = index.find(id);
    if (it == index.end()) {
      it = index.emplace(id, out.size()).first;
      out.push_back({obj, functions.name(id), 0});
    }
    return static_cast<long>(it->second);
  };
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
        if (!call_cost) out[static_cast<std::size_t>(current)].self += cost;
        call_cost = false;
      } else if (starts_with(line, "ob=")) {
        object = objects.name(objects.resolve(std::string_view(line).substr(3)));
      } else if (starts_with(line, "cob=")) {
        callee_object = objects.name(objects.resolve(std::string_view(line).substr(4)));
        callee_object_set = true;
      } else if (starts_with(line, "fn=")) {
        current = function_index(std::string_view(line).substr(3), object);
      } else if (starts_with(line, "cfn=")) {
        function_index(std::string_view(line).substr(4),
                       callee_object_set ? callee_object : object);
        callee_object_set = false;
      } else if (starts_with(line, "calls=")) {
        call_cost = true;
      } else if (starts_with(line, "positions:")) {
        std::istringstream fields(line.substr(10));
        std::string tok;
        positions = 0;
        while (fields >> tok) ++positions;
      }
    }
  } catch (const std::exception& e) {
    throw std::runtime_error(file + ":" + std::to_string(line_no) + ": " + e.what());
  }
  return out;
}

}  // namespace gatebench::tools
