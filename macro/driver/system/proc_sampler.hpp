#pragma once
// CPU and memory of process trees from /proc, sampled during the measured run.
#include <sys/types.h>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace gatebench::macro {

struct ProcInfo {
  pid_t pid = 0;
  pid_t ppid = 0;
  pid_t pgrp = 0;
  std::string comm;
  uint64_t cpu_ticks = 0;  // utime + stime, all threads
  uint64_t rss_bytes = 0;
  uint64_t pss = 0;  // read on another host with the stat line (remote_sampler.hpp); 0: not read
};

// One pass over /proc/[pid]/stat. Processes that vanish mid-scan are skipped.
std::vector<ProcInfo> scan_proc();

// /proc/[pid]/stat of these processes only (those that exited are absent): between full scans
// the driver samples the trees it already knows, at a fraction of a full scan's cost.
std::vector<ProcInfo> scan_pids(const std::vector<pid_t>& pids);

// Parses one /proc/[pid]/stat line (the comm may contain spaces and parentheses).
bool parse_proc_stat(const std::string& line, ProcInfo& out);

// Members of the trees rooted at `groups`: processes in one of those process groups, and their
// descendants (a child that started its own group stays counted).
std::vector<const ProcInfo*> select_trees(const std::vector<ProcInfo>& all,
                                          const std::vector<pid_t>& groups);

// Name for cpu_by_process: the executable's file name (comm is cut at 15 characters,
// "gatebench-contr"), the comm when the executable cannot be read.
std::string process_name(const ProcInfo& process);

// Proportional set size of a process in bytes (shared pages split between sharers, so the sum over
// a tree is meaningful); falls back to RSS when smaps_rollup is unreadable.
uint64_t pss_bytes(const ProcInfo& process);

struct TreeUsage {
  double cpu_percent = 0;  // mean over the sampled interval, 100 = one CPU
  std::map<std::string, double> cpu_by_process;
  double peak_mb = 0;      // peak of the summed PSS
  double peak_rss_mb = 0;  // peak of the summed RSS
  int max_processes = 0;
};

struct TreeSample {
  double t_s = 0;
  int processes = 0;
  double cpu_percent = 0;  // since the previous sample
  double pss_mb = 0;
  double rss_mb = 0;
};

// Accumulates one role's trees between start() and usage().
class TreeSampler {
 public:
  // `local` false: the snapshots come from another host, so process names are the comm and PSS
  // the snapshot's own (RSS when absent), never this machine's /proc.
  explicit TreeSampler(std::vector<pid_t> groups, bool with_memory = true, bool local = true)
      : groups_(std::move(groups)), with_memory_(with_memory), local_(local) {}

  void start(const std::vector<ProcInfo>& snapshot, double t_s);
  // `with_memory` false skips the PSS reads (smaps_rollup), the costly part of a sample.
  TreeSample sample(const std::vector<ProcInfo>& snapshot, double t_s, bool with_memory = true);
  TreeUsage usage(double elapsed_s) const;

  // CPU seconds of the trees since start(), in all and by process name.
  double cpu_seconds() const;
  std::map<std::string, double> cpu_seconds_by_name() const;
  // Every process seen since start() (some may have exited).
  std::vector<pid_t> members() const;

 private:
  struct Seen {
    std::string comm;
    uint64_t first = 0;
    uint64_t last = 0;
  };
  uint64_t total_ticks() const;

  std::string name_of(const ProcInfo& p) const { return local_ ? process_name(p) : p.comm; }
  uint64_t pss_of(const ProcInfo& p) const {
    return local_ ? pss_bytes(p) : (p.pss > 0 ? p.pss : p.rss_bytes);
  }

  std::vector<pid_t> groups_;
  bool with_memory_;
  bool local_;
  std::map<pid_t, Seen> seen_;
  double last_t_ = 0;
  uint64_t last_total_ = 0;
  TreeUsage peak_;
};

}  // namespace gatebench::macro
