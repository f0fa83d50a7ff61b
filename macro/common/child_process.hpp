// The one child-process type of the gatebench executables: argv vectors, never a shell; each
// child optionally leads its own process group so that stopping it reaches the whole tree (nginx
// workers, helpers). RAII: a child still running when its ChildProcess is destroyed is stopped
// (SIGTERM, then SIGKILL) and reaped, so no process is ever left behind.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <functional>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace gatebench::common {

// The executable could not be started (missing binary, bad cwd, CPUs not available): a failure,
// exit 1, not bad input.
struct SpawnError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Where a child's standard stream goes.
struct Stream {
  enum class Kind { inherit, discard, file };
  Kind kind = Kind::discard;
  std::string path;

  static Stream inherit() { return {Kind::inherit, {}}; }
  static Stream discard() { return {Kind::discard, {}}; }
  static Stream to_file(std::string path) { return {Kind::file, std::move(path)}; }
};

struct SpawnSpec {
  std::string exe;                         // a path; a name without '/' is looked up on PATH
  std::vector<std::string> args;           // without argv[0]
  std::map<std::string, std::string> env;  // added to (or replacing in) this process's environment
  std::string cwd;                         // empty: this process's
  Stream in = Stream::discard();           // inherit or discard
  Stream out = Stream::discard();
  Stream err = Stream::discard();  // the same file as `out` shares its offset
  std::vector<int> cpus;           // empty: not pinned
  bool own_group = true;  // false: stays in the caller's group (terminal Ctrl-C reaches it)
};

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
  // The wait status once the child has exited (reaped), nothing while it runs. Non-blocking.
  std::optional<int> exit_status();
  // Blocks until the child exits; its wait status.
  int wait();
  // Waits at most `limit`; nothing when the child still runs then.
  std::optional<int> wait_for(std::chrono::milliseconds limit);
  // True while the child (with own_group: any process of its group) still exists.
  bool alive();
  // SIGTERM (to the group), wait up to `grace`, then SIGKILL and wait again. True when everything
  // is gone afterwards. The ChildProcess is empty after it.
  bool stop(std::chrono::milliseconds grace = std::chrono::milliseconds(3000));

 private:
  pid_t pid_ = -1;
  bool own_group_ = true;
};

// "exited with status 1", "killed by signal 9".
std::string describe_wait_status(int status);
// The exit code a shell would show: the status, or 128 + the signal number.
int exit_code(int wait_status);

struct CaptureResult {
  int status = -1;  // wait status; -1 when timed out or interrupted
  std::string output;
  std::string errors;  // stderr, unless merged into output
  bool timed_out = false;
  bool interrupted = false;
  // Ran to its end and exited with status 0.
  bool succeeded() const;
};

struct CaptureOptions {
  std::chrono::milliseconds timeout = std::chrono::hours(24);
  bool merge_errors = false;          // stderr into output, in order
  std::function<bool()> interrupted;  // polled while waiting; true stops the child
};

// Runs `spec` to completion (its out/err streams are replaced by temporary files) and returns
// what it wrote. Throws SpawnError when it cannot start.
CaptureResult capture(SpawnSpec spec, const CaptureOptions& options = {});

// Runs `spec` to completion; its exit code (see exit_code). Throws SpawnError.
int run_to_exit(const SpawnSpec& spec);
// The same, polling `interrupted` while it waits: when that turns true the child is stopped
// (ChildProcess::stop with `grace`, so a child that cleans up on SIGTERM has that long) and
// 128 + SIGTERM returned.
int run_to_exit(const SpawnSpec& spec, const std::function<bool()>& interrupted,
                std::chrono::milliseconds grace);

// A foreground command as a shell runs one: argv[0] (looked up on PATH when it has no '/') in the
// caller's process group with the caller's streams, so a terminal's Ctrl-C reaches it too.
// Non-empty `out_file` / `err_file` redirect stdout / stderr to those files.
SpawnSpec command(const std::vector<std::string>& argv, const std::string& out_file = "",
                  const std::string& err_file = "");
// The stdout of `argv` run to completion; throws SpawnError naming the exit code and stderr when
// it exits non-zero.
std::string output_of(const std::vector<std::string>& argv);

// A regular file this process may execute.
bool is_executable_file(const std::string& path);
// Path of a program on PATH (then in `extra_dirs`), or empty.
std::string find_on_path(const std::string& program,
                         const std::vector<std::string>& extra_dirs = {});

// Makes this process the reaper of orphaned grandchildren (a daemonising service, workers whose
// master died), so nothing escapes the process-group bookkeeping. Call once at start-up.
void become_subreaper();

// Collects every child of this process that has exited (adopted orphans included), so that what
// is still listed as a child afterwards is really running.
void reap_exited();

}  // namespace gatebench::common
