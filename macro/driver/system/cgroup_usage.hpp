#pragma once
// CPU and memory of a cgroup, found through one of its processes: what a container uses, read
// the same way whichever engine (podman, docker) made it, on cgroup v1 or v2.
#include <sys/types.h>

#include <optional>
#include <string>
#include <string_view>

namespace gatebench::macro {

// The accounting files of one cgroup.
struct CgroupFiles {
  std::string cpu;         // v1: cpuacct.usage (ns); v2: cpu.stat (usage_usec)
  std::string memory_dir;  // the memory cgroup's directory
  bool memory_v2 = false;  // memory.current (v2) or memory.usage_in_bytes (v1)
};

// From the texts of /proc/PID/cgroup and /proc/self/mountinfo: v1's cpuacct and memory
// hierarchies when they are mounted (v1 or hybrid), else the unified (v2) one. nullopt when no
// hierarchy holding the cgroup is mounted here (a path outside every mount's root).
std::optional<CgroupFiles> cgroup_files(std::string_view proc_cgroup, std::string_view mountinfo);

// The same for process `pid` of this machine; nullopt when it has exited.
std::optional<CgroupFiles> process_cgroup(pid_t pid);

struct CgroupUsage {
  double cpu_s = 0;  // cumulative CPU time of every process the cgroup ever held
  // Memory charged to the cgroup, resident and page cache: what `podman stats` reports as
  // mem_usage (`docker stats` subtracts the inactive file pages).
  double mem_mb = 0;
};

// nullopt when the files are gone (the cgroup was removed with its container) or unreadable.
std::optional<CgroupUsage> read_cgroup(const CgroupFiles& files);

}  // namespace gatebench::macro
