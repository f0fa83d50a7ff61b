// The decision API's JSON form (gateway::describe_from_json, POST /v1/decision) on arbitrary
// bodies. Promised (macro/gateway/decision.hpp): either an error naming what was wrong or a head
// rebuilt in the caller's buffer, never past it. The rebuilt head ends with its empty line, holds
// no CR or LF but the CRLF of each line (an escaped "\r\n" in a JSON string must not smuggle in a
// header), and where the gateway's parser reads it whole, it is one head to its last byte. Where
// nlohmann::json reads the same body as an object too, the parsed head carries the method, path,
// query and host (without its surrounding whitespace) the JSON named.
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "macro/gateway/decision.hpp"

namespace {

using namespace gatebench::gateway;

void check(bool ok) {
  if (!ok) std::abort();
}

// The decision flow's buffer (kDecisionHeadCap in decision_flow.hpp) and a small one, so that a
// head that does not fit is refused rather than cut.
std::array<char, 16384 + 1024> big;
std::array<char, 64> small;

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1) return 0;
  const bool use_small = (data[0] & 1) != 0;
  const std::string_view body(reinterpret_cast<const char*>(data + 1), size - 1);
  const std::span<char> out = use_small ? std::span<char>(small) : std::span<char>(big);
  const Described d = describe_from_json(body, 0x7f000001u, out);
  check((d.head_len == 0) == (d.error != nullptr && *d.error != '\0'));
  if (d.head_len == 0) return 0;
  check(d.head_len <= out.size());
  const std::string_view head(out.data(), d.head_len);
  check(head.size() >= 4 && head.substr(head.size() - 4) == "\r\n\r\n");
  for (std::size_t i = 0; i < head.size(); ++i) {
    if (head[i] == '\r') check(i + 1 < head.size() && head[i + 1] == '\n');
    if (head[i] == '\n') check(i > 0 && head[i - 1] == '\r');
  }

  RequestHead req;
  if (parse_request_head(head, 1 << 20, req) != HeadStatus::kComplete) return 0;
  check(req.head_len == head.size());

  const nlohmann::json j = nlohmann::json::parse(body, nullptr, false);
  if (!j.is_object()) return 0;
  const auto text = [&](const char* key, const char* absent) {
    return j.contains(key) ? j[key].get<std::string>() : std::string(absent);
  };
  check(req.method == text("method", "GET"));
  const std::string query = text("query", "");
  check(req.target == text("path", "") + (query.empty() ? "" : "?" + query));
  // A field value's leading and trailing whitespace is not part of it (RFC 9110 5.5).
  std::string host = text("host", "");
  host.erase(0, host.find_first_not_of(" \t"));
  host.erase(host.find_last_not_of(" \t") + 1);
  check(req.host == host);
  return 0;
}
