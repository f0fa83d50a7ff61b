// The request traffic shared by the rules, exploit and modsecurity benchmarks: one set per kind
// (clean, post10, mix, malicious: generated on first use; input: the --input traffic file), kept
// for the whole process, so every implementation is measured on the same requests.
#pragma once

#include <cstddef>
#include <map>
#include <memory>
#include <string>
#include <utility>

#include "fixtures/traffic.hpp"

namespace gatebench::bench {

inline constexpr std::size_t kTrafficRequests = 4096;

inline std::map<std::string, std::unique_ptr<fixtures::Traffic>>& traffic_sets() {
  static std::map<std::string, std::unique_ptr<fixtures::Traffic>> sets;
  return sets;
}

inline const fixtures::Traffic& traffic(const std::string& kind) {
  auto& slot = traffic_sets()[kind];
  if (!slot)
    slot = std::make_unique<fixtures::Traffic>(fixtures::generate_traffic(kind, kTrafficRequests));
  return *slot;
}

// The --input traffic file, from then on traffic("input").
inline void set_input_traffic(std::unique_ptr<fixtures::Traffic> input) {
  traffic_sets()["input"] = std::move(input);
}

}  // namespace gatebench::bench
