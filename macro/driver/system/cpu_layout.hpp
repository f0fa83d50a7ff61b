#pragma once
// CPU layout of a macro run: which CPUs the load generator, the backend and the gateway get.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gatebench::macro {

// A sorted, duplicate-free list of CPU numbers. Empty means "not pinned".
struct CpuSet {
  std::vector<int> cpus;

  bool empty() const { return cpus.empty(); }
  int count() const { return static_cast<int>(cpus.size()); }
  // taskset-style text: "0", "2-3", "0,2,4-7"; "" when empty.
  std::string to_string() const;
};

// Parses "0", "2-3", "0,2,4-7". Throws std::invalid_argument naming what is wrong.
CpuSet parse_cpu_set(std::string_view text);

enum class Role { load, backend, gateway };
std::string_view role_name(Role role);
std::optional<Role> parse_role(std::string_view name);

struct CpuLayout {
  CpuSet load, backend, gateway;
  int online_cpus = 0;

  const CpuSet& of(Role role) const;
  // CPUs a role may use: its set when pinned, every online CPU otherwise.
  int usable(Role role) const;
  bool pinned() const { return !load.empty() || !backend.empty() || !gateway.empty(); }
};

struct CpuOverrides {
  std::optional<CpuSet> load, backend, gateway;
};

// The reference layout: fewer than 4 CPUs not pinned; 4-7: load 0, backend 1, gateway 2..n-1;
// 8 or more: load 0-1, backend 2-3, gateway 4..n-1. An override replaces one role's set.
CpuLayout make_cpu_layout(int online_cpus, const CpuOverrides& overrides);

}  // namespace gatebench::macro
