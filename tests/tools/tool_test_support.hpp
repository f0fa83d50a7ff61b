// Helpers shared by the tools tests: paths of the checked-in data and of the built `gatebench`,
// running it, and scratch directories.
#pragma once

#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <string>

namespace gatebench::tools::test {

inline std::string data(const std::string& name) {
  return std::string(GATEBENCH_TOOLS_DATA) + "/" + name;
}

// Runs `gatebench ARGS` with stdout/stderr sent to files; returns the exit code.
inline int run_gatebench(const std::string& args, const std::string& out = "/dev/null",
                         const std::string& err = "/dev/null") {
  const std::string cmd = std::string(GATEBENCH_EXE) + " " + args + " >" + out + " 2>" + err;
  const int status = std::system(cmd.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

inline std::filesystem::path scratch_dir(const std::string& name) {
  auto dir = std::filesystem::temp_directory_path() /
             ("gatebench-tools-test-" + name + "-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

}  // namespace gatebench::tools::test
