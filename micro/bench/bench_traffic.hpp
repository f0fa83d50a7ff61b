// The generated request traffic shared by the rules, exploit and modsecurity benchmarks: one set
// per kind (clean, post10, mix, malicious), built on first use and kept for the whole process, so
// every implementation is measured on the same requests.
#pragma once

#include <cstddef>
#include <map>
#include <memory>
#include <string>

#include "fixtures/traffic.hpp"

namespace gatebench::bench {

inline constexpr std::size_t kTrafficRequests = 4096;

inline const fixtures::Traffic& traffic(const std::string& kind) {
  static std::map<std::string, std::unique_ptr<fixtures::Traffic>> cache;
  auto& slot = cache[kind];
  if (!slot)
    slot = std::make_unique<fixtures::Traffic>(fixtures::generate_traffic(kind, kTrafficRequests));
  return *slot;
}

}  // namespace gatebench::bench
