#pragma once
// One load run spread over the load hosts of --place (docs/multi-host.md): every host runs
// gatebench-load with its share of the connections and of the rate, all starting at one
// wall-clock instant (--start-at); a host over ssh gets its run directory and request mix copied
// there and its results pulled back, and the results are merged into one gatebench.load/1 file.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "macro/driver/plan/hosts.hpp"
#include "macro/driver/plan/plan.hpp"
#include "macro/driver/runtime/remote_hosts.hpp"
#include "macro/driver/system/children.hpp"

namespace gatebench::macro {

// How long after the start commands the generators begin: at least this, and at least twice the
// slowest host's session set-up just measured (the run directory's mkdir, the same ssh session
// as the start) plus 1.5 s for the generator's own start, so a loaded machine is not late.
inline constexpr int64_t kStartMarginMs = 2000;

class LoadFanout {
 public:
  // Prepares every host (connect, copy) and starts the generators; `label` names the artifacts
  // in `run_dir` as measure() does (load-<label>-<host>.json ...). In a dry run the commands are
  // recorded by `remote` and nothing runs. Throws Outcome failed naming the host, or Interrupted.
  LoadFanout(RemoteHosts& remote, const ScenarioPlan& plan, const LoadPlan& load,
             const std::string& out_dir, const std::string& label, double duration_s,
             std::optional<double> rate);
  LoadFanout(const LoadFanout&) = delete;
  LoadFanout& operator=(const LoadFanout&) = delete;
  ~LoadFanout();

  // Nothing while a generator runs; "" when all exited 0; else why the first failure failed
  // ("load on nsA: gatebench-load exited with status 1: ...").
  std::optional<std::string> poll();
  // Stops whatever still runs, here and on the hosts; the hosts whose processes could not be
  // stopped, comma-separated ("" when none).
  std::string stop();
  // Pulls the hosts' results and writes the merged one to `json_path`. Throws Outcome failed.
  void collect(const std::string& json_path);

  // The monotonic instant (CLOCK_MONOTONIC ns of this machine) the generators' window began.
  uint64_t start_monotonic_ns() const { return start_mono_ns_; }
  // The local generator's pid (for the progress line and the load role's CPU); 0 when a
  // generator runs on another host (its CPU is not sampled there yet).
  pid_t local_pid() const;

  // CPU seconds of each ssh host's generator over its whole run (the wrapper's `times`), once
  // they exited; hosts whose wrapper did not report are missing.
  std::map<std::string, double> remote_cpu_s() const;
  // Every generator runs over ssh.
  bool all_remote() const;

  // Share i of n of `total` (the first `total % n` get one more).
  static int share(int total, int i, int n);

 private:
  struct Part {
    const Host* host = nullptr;
    ChildProcess process;   // gatebench-load, or the ssh client running it
    std::string json_path;  // local (pulled back here for an ssh host)
    std::string stderr_path;
    std::string ssh_log;  // ssh hosts: the ssh client's output (the wrapper's pgid line)
    std::string remote_dir;
    std::optional<int> status;
  };

  // Each load host's part (an ssh host's run directory made there, the request mix copied);
  // the start margin in ms, widened by the slowest host's set-up.
  int64_t add_parts(const ScenarioPlan& plan, const LoadPlan& load, const std::string& out_dir);
  // Starts the generator of a part here (nothing in a dry run) or over ssh, with its share
  // `mine` of the load, at `start_at`.
  void spawn_local(Part& p, const ScenarioPlan& plan, const LoadPlan& mine, const LoadPlan& load,
                   double duration_s, std::optional<double> rate, const std::string& start_at);
  void start_remote(Part& p, const ScenarioPlan& plan, LoadPlan mine, const LoadPlan& load,
                    double duration_s, std::optional<double> rate, const std::string& start_at);

  RemoteHosts& remote_;
  std::string label_;
  std::vector<Part> parts_;
  uint64_t start_mono_ns_ = 0;
};

}  // namespace gatebench::macro
