#include "tools/src/profile/callgrind_file.hpp"

#include <fstream>
#include <sstream>
#include <stdexcept>

#include "tools/src/profile/callgrind_profile.hpp"

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

std::vector<CallgrindSelfCost> callgrind_self_costs(const std::string& file) {
  const CallgrindProfile p = parse_callgrind(file);
  std::vector<CallgrindSelfCost> out;
  out.reserve(p.names.size());
  for (std::size_t i = 0; i < p.names.size(); ++i)
    out.push_back({p.objects[i], p.names[i], p.self[i]});
  return out;
}

}  // namespace gatebench::tools
