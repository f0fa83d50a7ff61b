// gatebench-control's access-log collector (gateway::ControlStats) on arbitrary UDP payloads:
// anyone who can reach its port can send them. The input is split into datagrams at each
// "\xff\xfe"; each is ingested as one payload. Promised: every datagram is counted; a malformed
// one is counted as such; what it renders stays well formed whatever the records held:
// /stats is JSON whose per-host status counts add up to the host's requests and whose hosts add
// up to the parsed records, and /metrics is Prometheus text (each line a comment or
// `name{label="escaped",...} number`).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "macro/gateway/control_stats.hpp"

namespace {

void check(bool ok) {
  if (!ok) std::abort();
}

bool name_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

// One line of the Prometheus text format as ControlStats writes it.
bool prometheus_line(std::string_view l) {
  if (l.substr(0, 2) == "# ") return true;
  std::size_t i = 0;
  while (i < l.size() && name_char(l[i])) ++i;
  if (i == 0) return false;
  if (i < l.size() && l[i] == '{') {
    ++i;
    for (;;) {
      const std::size_t name = i;
      while (i < l.size() && name_char(l[i])) ++i;
      if (i == name || l.substr(i, 2) != "=\"") return false;
      i += 2;
      for (;; ++i) {
        if (i >= l.size() || l[i] == '\n') return false;
        if (l[i] == '"') break;
        if (l[i] == '\\') {
          if (++i >= l.size() || (l[i] != '\\' && l[i] != '"' && l[i] != 'n')) return false;
        }
      }
      ++i;
      if (i < l.size() && l[i] == ',') {
        ++i;
        continue;
      }
      if (i >= l.size() || l[i] != '}') return false;
      ++i;
      break;
    }
  }
  if (i >= l.size() || l[i] != ' ' || ++i == l.size()) return false;
  for (; i < l.size(); ++i) {
    const char c = l[i];
    if (!((c >= '0' && c <= '9') || c == '.' || c == 'e' || c == '+' || c == '-')) return false;
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view in(reinterpret_cast<const char*>(data), size);
  gatebench::gateway::ControlStats stats;
  std::uint64_t sent = 0;
  for (;;) {
    const std::size_t cut = in.find("\xff\xfe");
    stats.ingest_datagram(in.substr(0, cut));
    ++sent;
    if (cut == std::string_view::npos) break;
    in.remove_prefix(cut + 2);
  }
  check(stats.datagrams() == sent);
  check(stats.malformed_datagrams() <= sent);

  const nlohmann::json j = nlohmann::json::parse(stats.stats_json());
  check(j.at("datagrams").at("received").get<std::uint64_t>() == sent);
  check(j.at("records").at("parsed").get<std::uint64_t>() == stats.records());
  std::uint64_t hosts_total = 0;
  for (const auto& [host, h] : j.at("hosts").items()) {
    std::uint64_t by_status = 0;
    for (const auto& [status, n] : h.at("status").items()) by_status += n.get<std::uint64_t>();
    check(by_status == h.at("requests").get<std::uint64_t>());
    hosts_total += by_status;
  }
  check(hosts_total == stats.records());

  const std::string text = stats.metrics_text();
  check(!text.empty() && text.back() == '\n');
  for (std::size_t at = 0; at < text.size();) {
    const std::size_t nl = text.find('\n', at);
    check(prometheus_line(std::string_view(text).substr(at, nl - at)));
    at = nl + 1;
  }
  return 0;
}
