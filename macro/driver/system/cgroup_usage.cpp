#include "macro/driver/system/cgroup_usage.hpp"

#include <algorithm>
#include <charconv>
#include <fstream>
#include <sstream>
#include <vector>

namespace gatebench::macro {

namespace {

std::vector<std::string_view> split_on(std::string_view text, char sep) {
  std::vector<std::string_view> out;
  for (;;) {
    const size_t at = text.find(sep);
    out.push_back(text.substr(0, at));
    if (at == std::string_view::npos) return out;
    text.remove_prefix(at + 1);
  }
}

bool comma_list_has(std::string_view comma_list, std::string_view item) {
  const auto items = split_on(comma_list, ',');
  return std::find(items.begin(), items.end(), item) != items.end();
}

// mountinfo writes a space, tab, newline or backslash in a path as \ and three octal digits.
std::string mountinfo_unescape(std::string_view text) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\\' && i + 3 < text.size()) {
      int value = 0;
      auto [end, ec] = std::from_chars(text.data() + i + 1, text.data() + i + 4, value, 8);
      if (ec == std::errc() && end == text.data() + i + 4) {
        out += static_cast<char>(value);
        i += 3;
        continue;
      }
    }
    out += text[i];
  }
  return out;
}

struct CgroupMount {
  std::string root;        // the cgroup path that appears at the mount point
  std::string mountpoint;  // e.g. /sys/fs/cgroup/cpuacct
};

// The mount of the v1 hierarchy holding `controller`, or with an empty `controller` the v2 one.
std::optional<CgroupMount> find_mount(std::string_view mountinfo, std::string_view controller) {
  for (std::string_view line : split_on(mountinfo, '\n')) {
    std::vector<std::string_view> f;
    for (std::string_view w : split_on(line, ' '))
      if (!w.empty()) f.push_back(w);
    const auto dash = std::find(f.begin(), f.end(), std::string_view("-"));
    // ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTIONS [OPTIONAL...] - FSTYPE SOURCE SUPEROPTIONS
    if (dash == f.end() || dash - f.begin() < 6 || f.end() - dash < 4) continue;
    const std::string_view fstype = dash[1], superopts = dash[3];
    const bool match = controller.empty()
                           ? fstype == "cgroup2"
                           : fstype == "cgroup" && comma_list_has(superopts, controller);
    if (match) return CgroupMount{mountinfo_unescape(f[3]), mountinfo_unescape(f[4])};
  }
  return std::nullopt;
}

// The cgroup path of /proc/PID/cgroup's line for `controller` (v1), or of its "0::" line (v2).
std::optional<std::string> cgroup_path(std::string_view proc_cgroup, std::string_view controller) {
  for (std::string_view line : split_on(proc_cgroup, '\n')) {
    const size_t first = line.find(':');
    const size_t second = first == std::string_view::npos ? first : line.find(':', first + 1);
    if (second == std::string_view::npos) continue;
    const std::string_view hierarchy = line.substr(0, first);
    const std::string_view controllers = line.substr(first + 1, second - first - 1);
    const std::string_view path = line.substr(second + 1);
    const bool match = controller.empty() ? hierarchy == "0" && controllers.empty()
                                          : comma_list_has(controllers, controller);
    if (match) return std::string(path);
  }
  return std::nullopt;
}

// The directory of cgroup `path` under `mount`; nullopt for a path outside the mount's root
// (another cgroup namespace: "/../x").
std::optional<std::string> cgroup_dir(const CgroupMount& mount, const std::string& path) {
  if (path.find("/..") != std::string::npos) return std::nullopt;
  if (mount.root == "/") return path == "/" ? mount.mountpoint : mount.mountpoint + path;
  if (path == mount.root) return mount.mountpoint;
  if (path.starts_with(mount.root + "/")) return mount.mountpoint + path.substr(mount.root.size());
  return std::nullopt;
}

std::optional<std::string> hierarchy_dir(std::string_view proc_cgroup, std::string_view mountinfo,
                                         std::string_view controller) {
  const auto path = cgroup_path(proc_cgroup, controller);
  const auto mount = find_mount(mountinfo, controller);
  if (!path || !mount) return std::nullopt;
  return cgroup_dir(*mount, *path);
}

std::optional<std::string> slurp(const std::string& path) {
  std::ifstream in(path);
  if (!in) return std::nullopt;
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::optional<double> leading_number(std::string_view text) {
  double value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc()) return std::nullopt;
  return value;
}

// The value of `key` in a "key value" per line file (cpu.stat).
std::optional<double> keyed_value(std::string_view text, std::string_view key) {
  for (std::string_view line : split_on(text, '\n')) {
    if (line.size() > key.size() && line.starts_with(key) && line[key.size()] == ' ')
      return leading_number(line.substr(key.size() + 1));
  }
  return std::nullopt;
}

}  // namespace

std::optional<CgroupFiles> cgroup_files(std::string_view proc_cgroup, std::string_view mountinfo) {
  CgroupFiles files;
  if (auto v1 = hierarchy_dir(proc_cgroup, mountinfo, "cpuacct")) {
    files.cpu = *v1 + "/cpuacct.usage";
  } else if (auto v2 = hierarchy_dir(proc_cgroup, mountinfo, "")) {
    files.cpu = *v2 + "/cpu.stat";
  } else {
    return std::nullopt;
  }
  if (auto v1 = hierarchy_dir(proc_cgroup, mountinfo, "memory")) {
    files.memory_dir = *v1;
  } else if (auto v2 = hierarchy_dir(proc_cgroup, mountinfo, "")) {
    files.memory_dir = *v2;
    files.memory_v2 = true;
  } else {
    return std::nullopt;
  }
  return files;
}

std::optional<CgroupFiles> process_cgroup(pid_t pid) {
  const auto proc_cgroup = slurp("/proc/" + std::to_string(pid) + "/cgroup");
  const auto mountinfo = slurp("/proc/self/mountinfo");
  if (!proc_cgroup || !mountinfo || proc_cgroup->empty()) return std::nullopt;
  return cgroup_files(*proc_cgroup, *mountinfo);
}

std::optional<CgroupUsage> read_cgroup(const CgroupFiles& files) {
  CgroupUsage usage;
  const auto cpu = slurp(files.cpu);
  if (!cpu) return std::nullopt;
  const bool cpu_v2 = files.cpu.ends_with("/cpu.stat");
  const auto cpu_value = cpu_v2 ? keyed_value(*cpu, "usage_usec") : leading_number(*cpu);
  if (!cpu_value) return std::nullopt;
  usage.cpu_s = *cpu_value / (cpu_v2 ? 1e6 : 1e9);

  const auto in_use =
      slurp(files.memory_dir + (files.memory_v2 ? "/memory.current" : "/memory.usage_in_bytes"));
  const auto bytes = in_use ? leading_number(*in_use) : std::nullopt;
  if (!bytes) return std::nullopt;
  usage.mem_mb = *bytes / 1e6;
  return usage;
}

}  // namespace gatebench::macro
