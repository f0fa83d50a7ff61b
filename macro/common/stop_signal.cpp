#include "macro/common/stop_signal.hpp"

#include <csignal>
#include <string>
#include <thread>

namespace gatebench::common {
namespace {

volatile std::sig_atomic_t g_signal = 0;

extern "C" void on_stop_signal(int signo) {
  g_signal = signo;
}

}  // namespace

void install_stop_handlers() {
  struct sigaction action {};
  action.sa_handler = on_stop_signal;
  sigemptyset(&action.sa_mask);
  sigaction(SIGINT, &action, nullptr);
  sigaction(SIGTERM, &action, nullptr);
  sigaction(SIGHUP, &action, nullptr);
  // A service closing a probe connection early must not kill the driver.
  signal(SIGPIPE, SIG_IGN);
}

bool stop_requested() {
  return g_signal != 0;
}
int stop_signal() {
  return g_signal;
}
void request_stop(int signo) {
  g_signal = signo;
}
void clear_stop() {
  g_signal = 0;
}

StopRequested::StopRequested(int signal)
    : std::runtime_error("interrupted by signal " + std::to_string(signal)), signo(signal) {}

void throw_if_stopped() {
  if (const int signo = g_signal) throw StopRequested(signo);
}

bool sleep_unless_stopped(std::chrono::milliseconds duration) {
  auto deadline = std::chrono::steady_clock::now() + duration;
  while (!stop_requested()) {
    auto left = deadline - std::chrono::steady_clock::now();
    if (left <= std::chrono::milliseconds(0)) return true;
    std::this_thread::sleep_for(
        std::min<std::chrono::steady_clock::duration>(left, std::chrono::milliseconds(20)));
  }
  return false;
}

}  // namespace gatebench::common
