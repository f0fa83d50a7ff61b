#include "macro/common/machine_cpu.hpp"

#include <unistd.h>

#include <cstdint>
#include <fstream>
#include <string>

namespace gatebench::common {

std::optional<MachineCpu> read_machine_cpu() {
  static const double kTicks = static_cast<double>(sysconf(_SC_CLK_TCK));
  std::ifstream in("/proc/stat");
  std::string label;
  std::uint64_t user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0,
                steal = 0;
  if (!(in >> label >> user >> nice >> system >> idle >> iowait >> irq >> softirq >> steal) ||
      label != "cpu" || kTicks <= 0)
    return std::nullopt;
  return MachineCpu{static_cast<double>(user + nice + system + irq + softirq + steal) / kTicks,
                    static_cast<double>(idle + iowait) / kTicks,
                    static_cast<double>(steal) / kTicks};
}

std::string cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  for (std::string line; std::getline(in, line);) {
    if (!line.starts_with("model name")) continue;
    const auto colon = line.find(':');
    if (colon == std::string::npos) return {};
    const auto start = line.find_first_not_of(" \t", colon + 1);
    return start == std::string::npos ? std::string() : line.substr(start);
  }
  return {};
}

}  // namespace gatebench::common
