#pragma once
// /proc sampling of process groups on an ssh host (docs/multi-host.md): one shell loop per
// measured run, started there under the wrapper of SshHost::start (its own process group, killed
// when the session ends), appends the stat lines of the groups' processes and their PSS to a file
// in the run directory there every interval; the file comes back with one scp when the run is
// over. The cost there is one grep over /proc/*/stat plus one grep of smaps_rollup per member each
// interval (a few ms of CPU); here, one `cat /proc/uptime` before and one scp after. The session
// stays idle meanwhile, so sshd's ClientAlive still notices a controller that is gone (a loop
// streaming its output would keep the session busy and alive).
// Each sample carries the host's uptime; the instants on this machine are that uptime shifted by
// the offset measured with the `cat /proc/uptime` (within half its round trip).
#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "macro/driver/runtime/ssh_host.hpp"
#include "macro/driver/system/children.hpp"
#include "macro/driver/system/proc_sampler.hpp"

namespace gatebench::macro {

struct RemoteSample {
  double uptime_s = 0;  // the host's /proc/uptime when the sample was taken
  double t_s = 0;       // on this machine's clock of the run (set by RemoteSampler::finish)
  std::vector<ProcInfo> processes;
};

// The loop's script for these process groups, one sample every `interval_s` (`groups` as an ERE
// alternation, "123|456").
std::string remote_sampling_script(const std::string& groups, double interval_s);
// "123|456".
std::string group_pattern(const std::vector<long>& groups);
// Its output: "S <uptime>", the stat lines, "P <pid> Pss: <n> kB" lines, "E" per sample; an
// unfinished last sample is left out.
std::vector<RemoteSample> parse_remote_samples(const std::string& text);

class RemoteSampler {
 public:
  // Measures the clock offset and starts the loop in `remote_dir`; `local_dir` receives its
  // output at finish(). `start`: the run's clock. Throws RemoteError naming the host.
  // `groups`: an ERE alternation of process groups ("123|456", group_pattern()).
  RemoteSampler(SshHost& ssh, const std::string& groups, double interval_s,
                const std::string& remote_dir, const std::string& local_dir,
                const std::string& label, std::chrono::steady_clock::time_point start);
  RemoteSampler(const RemoteSampler&) = delete;
  RemoteSampler& operator=(const RemoteSampler&) = delete;
  ~RemoteSampler();

  // The loop runs there (its wrapper printed its group).
  bool started() const;
  // Stops the loop and returns its samples with their instants on the run's clock; none when the
  // host could not be reached.
  std::vector<RemoteSample> finish();

 private:
  SshHost& ssh_;
  ChildProcess client_;
  std::string remote_file_, local_file_, log_;
  double offset_s_ = 0;  // run clock = uptime + offset
};

}  // namespace gatebench::macro
