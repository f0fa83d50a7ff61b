#pragma once
// SIGINT/SIGTERM turn into a flag that every wait in the driver polls, so the run unwinds through
// the normal clean-up path (process groups stopped, results written) instead of dying mid-way.
#include <chrono>

namespace gatebench::macro {

void install_stop_handlers();
bool stop_requested();
int stop_signal();  // the signal that asked to stop, 0 if none
// For tests: pretend a signal arrived / forget it.
void request_stop(int signo);
void clear_stop();

// Sleeps for `duration` in short slices; false if a stop was requested meanwhile.
bool sleep_unless_stopped(std::chrono::milliseconds duration);

}  // namespace gatebench::macro
