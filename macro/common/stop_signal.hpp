#pragma once
// SIGINT/SIGTERM/SIGHUP turn into a flag that every wait in the driver and in the tools that run
// long children (gate, bisect) polls, so the run unwinds through the normal clean-up path
// (process groups stopped, results written, worktrees and private directories removed) instead
// of dying mid-way.
#include <chrono>
#include <stdexcept>

namespace gatebench::common {

void install_stop_handlers();
bool stop_requested();
int stop_signal();  // the signal that asked to stop, 0 if none
// For tests: pretend a signal arrived / forget it.
void request_stop(int signo);
void clear_stop();

// Thrown by throw_if_stopped: what unwinds a tool's stack after a stop signal; main() turns it
// into exit 128 + the signal.
struct StopRequested : std::runtime_error {
  explicit StopRequested(int signo);
  int signo;
};
// Throws StopRequested when a stop signal has arrived.
void throw_if_stopped();

// Sleeps for `duration` in short slices; false if a stop was requested meanwhile.
bool sleep_unless_stopped(std::chrono::milliseconds duration);

}  // namespace gatebench::common
