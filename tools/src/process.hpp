// Child processes for the runners (gatebench-micro, valgrind, callgrind_annotate): argv vectors,
// never a shell, so benchmark names and filters need no quoting. RAII: a ChildProcess still
// running when destroyed is killed and reaped, so no benchmark is ever left behind.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

namespace gatebench::tools {

class ChildProcess {
 public:
  // Empty file names inherit the parent's stream. Throws std::runtime_error if fork/exec fails
  // (exec failure is reported by the child as exit code 127).
  ChildProcess(const std::vector<std::string>& argv, const std::string& stdout_file = "",
               const std::string& stderr_file = "");
  ~ChildProcess();
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  pid_t pid() const { return pid_; }
  bool running();        // non-blocking
  int wait();            // exit code, or 128 + signal number
  void kill_and_wait();  // SIGKILL then reap

 private:
  pid_t pid_ = -1;
  bool reaped_ = false;
  int status_ = 0;
};

int run_process(const std::vector<std::string>& argv, const std::string& stdout_file = "",
                const std::string& stderr_file = "");

// Runs argv and returns its stdout; throws std::runtime_error on a non-zero exit, with stderr.
std::string capture_output(const std::vector<std::string>& argv);

// Path of a program on PATH, or empty.
std::string find_on_path(const std::string& program);

// Directory of the running executable (/proc/self/exe).
std::string self_directory();

}  // namespace gatebench::tools
