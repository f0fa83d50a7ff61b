#pragma once
// Helpers of the end-to-end tests: run gatebench-macro, find processes a run may have left.
#include <sys/wait.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "macro/driver/system/children.hpp"

namespace gatebench::macro::testing {

// The exit status of a finished child, -1 when a signal ended it.
inline int exit_code(const CaptureResult& r) {
  return WIFEXITED(r.status) ? WEXITSTATUS(r.status) : -1;
}

inline CaptureResult run_driver(const std::vector<std::string>& args,
                                std::chrono::milliseconds limit = std::chrono::seconds(60)) {
  return run_capture(GATEBENCH_MACRO_EXE, args, limit);
}

// Processes whose command line or working directory mentions `needle`: services run in their
// run directory and their masters name it, so a unique results directory finds whatever a run
// left behind (nginx workers included, whose command line does not).
inline std::vector<std::string> processes_mentioning(const std::string& needle) {
  std::vector<std::string> out;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator("/proc", ec)) {
    const std::string name = entry.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::string cmdline;
    try {
      std::ifstream in(entry.path() / "cmdline");
      cmdline.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    } catch (const std::ios_base::failure&) {
      continue;  // libstdc++ throws when the process exits mid-read (ESRCH): it is gone anyway
    }
    for (char& c : cmdline) {
      if (c == '\0') c = ' ';
    }
    std::error_code cwd_error;
    const std::string cwd = std::filesystem::read_symlink(entry.path() / "cwd", cwd_error).string();
    if (cmdline.find(needle) != std::string::npos || cwd.find(needle) != std::string::npos) {
      out.push_back(name + ": " + cmdline);
    }
  }
  return out;
}

inline std::string unique_dir(const std::string& tag) {
  return (std::filesystem::temp_directory_path() /
          ("gatebench-macro-" + tag + "-" + std::to_string(getpid())))
      .string();
}

}  // namespace gatebench::macro::testing
