#include "tools/src/micro_binary.hpp"

#include <unistd.h>

#include <cstdlib>
#include <vector>

#include "tools/src/bad_input.hpp"
#include "tools/src/process.hpp"

namespace gatebench::tools {

std::string locate_micro_binary(const std::optional<std::string>& explicit_path) {
  std::vector<std::string> candidates;
  if (explicit_path) {
    candidates.push_back(*explicit_path);
  } else {
    if (const char* env = std::getenv("GATEBENCH_MICRO")) candidates.push_back(env);
    candidates.push_back(self_directory() + "/../../micro/bench/gatebench-micro");
    candidates.push_back("build/release/micro/bench/gatebench-micro");
  }
  for (const auto& c : candidates)
    if (::access(c.c_str(), X_OK) == 0) return c;
  std::string tried;
  for (const auto& c : candidates) tried += (tried.empty() ? "" : ", ") + c;
  throw BadInput("gatebench-micro not found (tried " + tried +
                 "); build it (cmake --build --preset release) or pass --bench");
}

}  // namespace gatebench::tools
