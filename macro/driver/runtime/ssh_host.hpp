#pragma once
// One host reached with the system OpenSSH client (docs/multi-host.md): one shared connection
// (ControlMaster) per host, commands through the remote shell, files with scp, long-running
// programs started in a process group of their own under a wrapper that kills that group when
// the ssh session ends, so a controller that dies leaves nothing running there. In a dry run every
// command is recorded, in order, and nothing is contacted.
#include <chrono>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "macro/driver/plan/hosts.hpp"
#include "macro/driver/system/children.hpp"

namespace gatebench::macro {

// A host could not be reached or a command failed there; the message starts with the host name.
struct RemoteError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// A program to start on the host: `exe args` in `cwd`, its stdout and stderr to files there.
struct RemoteCommand {
  std::string exe;
  std::vector<std::string> args;
  std::string cwd;
  std::string stdout_path, stderr_path;    // remote
  std::map<std::string, std::string> env;  // added to the host's environment
};

class SshHost {
 public:
  // `control_dir`: where the connection's socket lives (short: a socket path has 108 bytes).
  // `dry_log` non-null: a dry run, commands are appended to it and nothing runs.
  SshHost(Host host, std::string control_dir, std::vector<std::string>* dry_log = nullptr);
  SshHost(const SshHost&) = delete;
  SshHost& operator=(const SshHost&) = delete;
  ~SshHost();

  const Host& host() const { return host_; }
  bool dry_run() const { return dry_log_ != nullptr; }

  // Opens the shared connection (once). Throws RemoteError with ssh's own last line.
  void connect(std::chrono::milliseconds timeout);
  // Closes it; commands started over it end with it.
  void disconnect();

  // Runs `script` in the remote shell; its output (stdout then stderr). Throws RemoteError when
  // it cannot run, times out or exits non-zero, Interrupted on a stop signal unless it is a
  // clean-up (`interruptible` false: runs to its end or its timeout even then).
  std::string run(const std::string& script, std::chrono::milliseconds timeout,
                  bool interruptible = true);
  // scp, keeping modes (an executable stays executable); `recursive`: directories too.
  void copy_to(const std::vector<std::string>& local_files, const std::string& remote_dir,
               std::chrono::milliseconds timeout, bool recursive = false);
  void copy_from(const std::string& remote_file, const std::string& local_file,
                 std::chrono::milliseconds timeout);

  // Starts `command` through `ssh -tt`: the wrapper prints "gatebench-pgid N" (into
  // `local_log`, the ssh client's output), waits for the program, prints its CPU time
  // (parse_remote_cpu_s) and exits with its status; on
  // the session's hang-up it kills the program's group. The returned child is the local ssh
  // client (its exit status is the program's). Throws RemoteError when ssh cannot be started.
  ChildProcess start(const RemoteCommand& command, const std::string& local_log);
  // SIGTERM to the remote group, up to 3 s, then SIGKILL; true when nothing of it is left.
  bool stop_group(long pgid);
  // The shared connection is up (its master still runs); false after a lost connection, and
  // connect() then opens a new one.
  bool alive();

  // The argument vectors, for tests and the dry run.
  std::vector<std::string> ssh_args(const std::string& script, bool tty) const;
  std::vector<std::string> master_args() const;

 private:
  std::vector<std::string> connection_options() const;
  std::string destination() const;
  // The ssh client with `args`, its stdout and stderr into local files (recorded in a dry run).
  ChildProcess spawn_ssh(const std::vector<std::string>& args, const std::string& out,
                         const std::string& err);
  CaptureResult exec(const std::string& exe, const std::vector<std::string>& args,
                     std::chrono::milliseconds timeout, const std::string& what,
                     bool interruptible = true);

  Host host_;
  std::string control_path_;
  std::vector<std::string>* dry_log_;
  ChildProcess master_;
  bool connected_ = false;
  std::string master_log_;
};

// The wrapper script of start(), for tests and docs.
std::string remote_wrapper(const RemoteCommand& command);
// "gatebench-pgid N" in a wrapper's output; 0 when absent.
long parse_remote_pgid(const std::string& output);
// The CPU seconds (user + system) of the program, from the wrapper's `times` after it exited;
// nothing when the wrapper did not get that far.
std::optional<double> parse_remote_cpu_s(const std::string& output);

}  // namespace gatebench::macro
