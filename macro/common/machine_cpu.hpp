// The machine's CPU, read locally for the driver and the run record of `gatebench run`: busy, idle
// and stolen CPU seconds since boot over all CPUs (/proc/stat's first line), and the CPU model.
#pragma once

#include <optional>
#include <string>

namespace gatebench::common {

// What no role's process tree shows, other sessions' work included. Idle counts iowait; steal is
// busy (the host had the CPU, not this machine's idle loop), and also kept on its own: on a
// shared VM it is the CPU the hypervisor gave to other guests.
struct MachineCpu {
  double busy_s = 0;
  double idle_s = 0;
  double steal_s = 0;
};

// Nothing when /proc/stat cannot be read or does not start with the "cpu" line.
std::optional<MachineCpu> read_machine_cpu();

// The first "model name" of /proc/cpuinfo; empty when there is none (some architectures).
std::string cpu_model();

}  // namespace gatebench::common
