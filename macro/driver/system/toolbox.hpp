#pragma once
// Finds the executables scenarios name: Debian packages on PATH (and /usr/sbin), gatebench's own
// binaries in the build tree next to the driver.
#include <map>
#include <optional>
#include <string>

#include "macro/common/load_capabilities.hpp"

namespace gatebench::macro {

class Toolbox {
 public:
  // `bin_dir`: where gatebench-* binaries are looked for first (empty: $GATEBENCH_BIN_DIR, then the
  // build tree around this executable, then PATH).
  explicit Toolbox(std::string bin_dir = "");

  std::optional<std::string> find(const std::string& name) const;
  // Why a tool is unavailable: "gatebench-load not built", "haproxy not installed".
  static std::string missing_reason(const std::string& name);
  // What `<tool> --capabilities` states (gatebench-load, macro/common/load_capabilities.hpp),
  // asked once per tool. Nothing when the tool is missing, fails, or prints no such document (a
  // build older than the option).
  std::optional<common::LoadCapabilities> capabilities(const std::string& name) const;

 private:
  std::string bin_dir_;
  mutable std::map<std::string, std::optional<std::string>> cache_;
  mutable std::map<std::string, std::optional<common::LoadCapabilities>> capabilities_cache_;
};

}  // namespace gatebench::macro
