#include "tools/src/callgrind_file.hpp"

#include <fstream>
#include <sstream>
#include <stdexcept>

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

}  // namespace gatebench::tools
