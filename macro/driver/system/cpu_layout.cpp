#include "macro/driver/system/cpu_layout.hpp"

#include <algorithm>
#include <charconv>
#include <stdexcept>

namespace gatebench::macro {
namespace {

int parse_cpu_number(std::string_view text, std::string_view whole) {
  int value = -1;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc{} || end != text.data() + text.size() || value < 0 ||
      value > 4095) {
    throw std::invalid_argument("bad CPU list '" + std::string(whole) +
                                "': expected numbers and ranges like 0,2-3");
  }
  return value;
}

CpuSet range(int first, int last) {
  CpuSet set;
  for (int cpu = first; cpu <= last; ++cpu) set.cpus.push_back(cpu);
  return set;
}

}  // namespace

std::string CpuSet::to_string() const {
  std::string out;
  for (size_t i = 0; i < cpus.size();) {
    size_t j = i;
    while (j + 1 < cpus.size() && cpus[j + 1] == cpus[j] + 1) ++j;
    if (!out.empty()) out += ',';
    out += std::to_string(cpus[i]);
    if (j > i) out += '-' + std::to_string(cpus[j]);
    i = j + 1;
  }
  return out;
}

CpuSet parse_cpu_set(std::string_view text) {
  CpuSet set;
  if (text.empty()) throw std::invalid_argument("empty CPU list");
  size_t start = 0;
  while (start <= text.size()) {
    size_t comma = text.find(',', start);
    if (comma == std::string_view::npos) comma = text.size();
    std::string_view item = text.substr(start, comma - start);
    size_t dash = item.find('-');
    if (dash == std::string_view::npos) {
      set.cpus.push_back(parse_cpu_number(item, text));
    } else {
      int first = parse_cpu_number(item.substr(0, dash), text);
      int last = parse_cpu_number(item.substr(dash + 1), text);
      if (last < first) throw std::invalid_argument("bad CPU range in '" + std::string(text) + "'");
      for (int cpu = first; cpu <= last; ++cpu) set.cpus.push_back(cpu);
    }
    start = comma + 1;
  }
  std::sort(set.cpus.begin(), set.cpus.end());
  set.cpus.erase(std::unique(set.cpus.begin(), set.cpus.end()), set.cpus.end());
  return set;
}

std::string_view role_name(Role role) {
  switch (role) {
    case Role::load:
      return "load";
    case Role::backend:
      return "backend";
    case Role::gateway:
      return "gateway";
  }
  return "?";
}

std::optional<Role> parse_role(std::string_view name) {
  if (name == "load") return Role::load;
  if (name == "backend") return Role::backend;
  if (name == "gateway") return Role::gateway;
  return std::nullopt;
}

const CpuSet& CpuLayout::of(Role role) const {
  switch (role) {
    case Role::load:
      return load;
    case Role::backend:
      return backend;
    case Role::gateway:
      return gateway;
  }
  return gateway;
}

int CpuLayout::usable(Role role) const {
  const CpuSet& set = of(role);
  return set.empty() ? online_cpus : set.count();
}

CpuLayout make_cpu_layout(int online_cpus, const CpuOverrides& overrides) {
  CpuLayout layout;
  layout.online_cpus = online_cpus;
  if (online_cpus >= 8) {
    layout.load = range(0, 1);
    layout.backend = range(2, 3);
    layout.gateway = range(4, online_cpus - 1);
  } else if (online_cpus >= 4) {
    layout.load = range(0, 0);
    layout.backend = range(1, 1);
    layout.gateway = range(2, online_cpus - 1);
  }
  if (overrides.load) layout.load = *overrides.load;
  if (overrides.backend) layout.backend = *overrides.backend;
  if (overrides.gateway) layout.gateway = *overrides.gateway;
  return layout;
}

}  // namespace gatebench::macro
