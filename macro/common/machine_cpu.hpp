// Busy, idle and stolen CPU seconds of the whole machine since boot, over all CPUs (/proc/stat's
// first line), for the driver's per-round machine series and the run record of `gatebench run`.
#pragma once

#include <optional>

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

}  // namespace gatebench::common
