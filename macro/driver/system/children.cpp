#include "macro/driver/system/children.hpp"

#include <unistd.h>

#include "macro/common/stop_signal.hpp"
#include "macro/driver/system/proc_sampler.hpp"

namespace gatebench::macro {

CaptureResult run_capture(const std::string& exe, const std::vector<std::string>& args,
                          std::chrono::milliseconds timeout, const std::string& cwd) {
  SpawnSpec spec;
  spec.exe = exe;
  spec.args = args;
  spec.cwd = cwd;
  common::CaptureOptions options;
  options.timeout = timeout;
  options.merge_errors = true;
  options.interrupted = [] { return common::stop_requested(); };
  return common::capture(std::move(spec), options);
}

std::vector<pid_t> stray_children() {
  common::reap_exited();
  std::vector<pid_t> out;
  const pid_t self = getpid();
  for (const ProcInfo& p : scan_proc()) {
    if (p.ppid == self) out.push_back(p.pid);
  }
  return out;
}

}  // namespace gatebench::macro
