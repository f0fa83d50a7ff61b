#pragma once
// The process runtime: every service and load run is a child in its own process group, so
// stopping it reaches the whole tree (nginx workers, gateway threads' helpers, ...).
#include <sys/types.h>

#include <chrono>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "macro/driver/cpu_layout.hpp"

namespace gatebench::macro {

struct SpawnError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct SpawnSpec {
  std::string exe;                         // absolute path
  std::vector<std::string> args;           // without argv[0]
  std::map<std::string, std::string> env;  // added to (or replacing in) the driver's environment
  std::string stdout_path;                 // empty: /dev/null
  std::string stderr_path;                 // empty: /dev/null
  std::string cwd;                         // empty: the driver's
  CpuSet cpus;                             // empty: not pinned
};

// Makes the driver the reaper of orphaned grandchildren (a daemonising service, workers whose
// master died), so nothing escapes the process-group bookkeeping. Call once at start-up.
void become_subreaper();

// One child process group (pgid == pid of the child). Movable, not copyable; the destructor stops
// the group if it is still running.
class ChildProcess {
 public:
  // Throws SpawnError when the executable cannot be started (the message says why).
  static ChildProcess spawn(const SpawnSpec& spec);

  ChildProcess() = default;
  ChildProcess(ChildProcess&& other) noexcept;
  ChildProcess& operator=(ChildProcess&& other) noexcept;
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;
  ~ChildProcess();

  pid_t pid() const { return pid_; }
  // The wait status once the leader has exited (reaped), nothing while it runs.
  std::optional<int> exit_status();
  // True while any process of the group still exists.
  bool group_alive() const;
  // SIGTERM to the group, wait up to `grace`, then SIGKILL and wait again. True when the whole
  // group is gone afterwards.
  bool stop(std::chrono::milliseconds grace = std::chrono::milliseconds(3000));

 private:
  pid_t pid_ = -1;
};

// "exited with status 1", "killed by signal 9".
std::string describe_wait_status(int status);

struct CaptureResult {
  int status = -1;  // wait status
  std::string output;
  bool timed_out = false;
  bool interrupted = false;
};

// Runs a short helper (openssl, git) to completion with a time limit, capturing stdout+stderr.
CaptureResult run_capture(const std::string& exe, const std::vector<std::string>& args,
                          std::chrono::milliseconds timeout, const std::string& cwd = "");

// Processes (other than the driver) whose parent is the driver: left-overs after clean-up.
std::vector<pid_t> stray_children();

}  // namespace gatebench::macro
