#include "macro/driver/measure/remote_sampler.hpp"

#include <algorithm>
#include <chrono>
#include <sstream>

#include "macro/driver/results/run_support.hpp"

namespace gatebench::macro {
using namespace std::chrono_literals;

std::string group_pattern(const std::vector<long>& groups) {
  std::string alternatives;
  for (long g : groups) alternatives += (alternatives.empty() ? "" : "|") + std::to_string(g);
  return alternatives;
}

std::string remote_sampling_script(const std::string& alternatives, double interval_s) {
  std::ostringstream interval;
  interval << std::max(0.01, interval_s);
  // Field 5 of /proc/PID/stat is the process group; the comm (2) may hold spaces and parentheses,
  // which the greedy \(.*\) covers. The loop ends when the groups are empty, or its wrapper kills
  // it when the ssh session ends.
  return "e='^[0-9]+ \\(.*\\) [A-Za-z] [0-9]+ (" + alternatives +
         ") '; while :; do read u r </proc/uptime; "
         "l=$(grep -Eh \"$e\" /proc/[0-9]*/stat 2>/dev/null); printf 'S %s\\n' \"$u\"; "
         "[ -n \"$l\" ] || { echo E; exit 0; }; printf '%s\\n' \"$l\"; "
         "printf '%s\\n' \"$l\" | while read -r p rest; do "
         "printf 'P %s %s\\n' \"$p\" \"$(grep -m1 '^Pss:' /proc/$p/smaps_rollup 2>/dev/null)\"; "
         "done; echo E; sleep " +
         interval.str() + "; done";
}

std::vector<RemoteSample> parse_remote_samples(const std::string& text) {
  std::vector<RemoteSample> out;
  RemoteSample current;
  bool open = false;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.starts_with("S ")) {
      current = RemoteSample{};
      current.uptime_s = std::strtod(line.c_str() + 2, nullptr);
      open = true;
    } else if (!open) {
      continue;
    } else if (line == "E") {
      out.push_back(std::move(current));
      open = false;
    } else if (line.starts_with("P ")) {
      // "P 1234 Pss:    5678 kB"
      std::istringstream words(line.substr(2));
      long pid = 0;
      std::string label;
      uint64_t kb = 0;
      if (words >> pid >> label >> kb)
        for (auto& p : current.processes)
          if (p.pid == pid) p.pss = kb * 1024;
    } else {
      ProcInfo info;
      if (parse_proc_stat(line, info)) current.processes.push_back(std::move(info));
    }
  }
  return out;
}

RemoteSampler::RemoteSampler(SshHost& ssh, const std::string& groups, double interval_s,
                             const std::string& remote_dir, const std::string& local_dir,
                             const std::string& label, std::chrono::steady_clock::time_point start)
    : ssh_(ssh) {
  const std::string name = "samples-" + label + "-" + ssh.host().name + ".txt";
  remote_file_ = remote_dir + "/" + name;
  local_file_ = local_dir + "/" + name;
  log_ = local_file_ + ".ssh";
  // The host's uptime against this run's clock, taken halfway through one round trip.
  const double before = seconds_since(start);
  const std::string uptime = ssh.run("cat /proc/uptime", std::chrono::seconds(15));
  const double after = seconds_since(start);
  offset_s_ = (before + after) / 2 - std::strtod(uptime.c_str(), nullptr);
  RemoteCommand loop;
  loop.exe = "sh";
  loop.args = {"-c", remote_sampling_script(groups, interval_s)};
  loop.cwd = remote_dir;
  loop.stdout_path = remote_file_;
  loop.stderr_path = remote_file_ + ".stderr";
  client_ = ssh.start(loop, log_);
}

RemoteSampler::~RemoteSampler() {
  if (client_.pid() > 0) client_.stop(500ms);
}

bool RemoteSampler::started() const {
  return ssh_.dry_run() || parse_remote_pgid(read_text(log_)) > 0;
}

std::vector<RemoteSample> RemoteSampler::finish() {
  const long pgid = parse_remote_pgid(read_text(log_));
  const bool exited = client_.pid() <= 0 || client_.exit_status().has_value();
  // Ending the client hangs up the session: the wrapper stops the loop.
  if (client_.pid() > 0) client_.stop(1000ms);
  try {
    if (pgid > 0 && !exited) ssh_.stop_group(pgid);
    ssh_.copy_from(remote_file_, local_file_, std::chrono::seconds(30));
  } catch (const RemoteError&) {
    return {};
  }
  std::vector<RemoteSample> samples = parse_remote_samples(read_text(local_file_));
  for (auto& s : samples) s.t_s = s.uptime_s + offset_s_;
  return samples;
}

}  // namespace gatebench::macro
