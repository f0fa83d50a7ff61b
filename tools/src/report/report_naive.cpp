#include "tools/src/report/report_naive.hpp"

namespace gatebench::tools {

std::optional<std::vector<std::string>> faster_naive_peers(const std::vector<MicroRow>& rows,
                                                           const MicroRow& row) {
  const std::string& impl = row.parts.impl;
  if (impl != "gatecore" && !impl.starts_with("gatecore_")) return std::nullopt;
  if (row.repetitions == 0 || !row.bench->error.empty()) return std::nullopt;
  std::optional<std::vector<std::string>> peers;
  for (const MicroRow& peer : rows) {
    if (peer.parts.impl != "naive" && peer.parts.impl != "linear") continue;
    if (peer.parts.hotpath != row.parts.hotpath || peer.parts.case_name != row.parts.case_name)
      continue;
    if (peer.repetitions == 0 || !peer.bench->error.empty()) continue;
    if (!peers) peers.emplace();
    if (peer.ns_per_op < row.ns_per_op) peers->push_back(peer.parts.impl);
  }
  return peers;
}

std::string slower_than_naive_note(const std::optional<std::vector<std::string>>& peers) {
  std::string note;
  if (!peers) return note;
  for (const std::string& p : *peers) note += (note.empty() ? "slower than " : ", ") + p;
  return note;
}

}  // namespace gatebench::tools
