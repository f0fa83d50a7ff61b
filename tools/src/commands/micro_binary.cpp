#include "tools/src/commands/micro_binary.hpp"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <vector>

#include "macro/common/usage_error.hpp"

namespace gatebench::tools {

namespace {

std::string self_directory() {
  std::error_code ec;
  const auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::string(".") : exe.parent_path().string();
}

std::string locate(const std::optional<std::string>& explicit_path, const char* env_name,
                   const std::string& in_build_tree) {
  std::vector<std::string> candidates;
  if (explicit_path) {
    candidates.push_back(*explicit_path);
  } else {
    if (const char* env = std::getenv(env_name)) candidates.push_back(env);
    candidates.push_back(self_directory() + "/../../" + in_build_tree);
    candidates.push_back("build/release/" + in_build_tree);
  }
  for (const auto& c : candidates)
    if (::access(c.c_str(), X_OK) == 0) return c;
  std::string tried;
  for (const auto& c : candidates) tried += (tried.empty() ? "" : ", ") + c;
  const std::string program = in_build_tree.substr(in_build_tree.rfind('/') + 1);
  throw common::UsageError(program + " not found (tried " + tried +
                           "); build it (cmake --build --preset release) or give its path");
}

}  // namespace

std::string locate_micro_binary(const std::optional<std::string>& explicit_path) {
  return locate(explicit_path, "GATEBENCH_MICRO", "micro/bench/gatebench-micro");
}

std::string locate_macro_binary(const std::optional<std::string>& explicit_path) {
  return locate(explicit_path, "GATEBENCH_MACRO", "macro/driver/gatebench-macro");
}

}  // namespace gatebench::tools
