// The gateway's request-head parser (gatecore http1) on arbitrary client bytes, differential
// against Boost.Beast's parser. Where both accept, the request line, every field, the framing and
// keep-alive must agree. Where they disagree, the disagreement must be one of our deliberate,
// documented rules (docs/http1.md): we are stricter than Beast on Host, versions, obs-fold, bare
// LF, control bytes and DEL in values, Content-Length lists and 19-digit lengths, transfer codings
// and framing pairs, and more than 100 fields; and more lenient nowhere.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "micro/core/http1/request_head.hpp"
#include "micro/peers/http1_beast.hpp"

namespace {

using gatebench::http1::BodyKind;
using gatebench::http1::HeadStatus;
using gatebench::http1::RequestHead;
using gatebench::peers::BeastRequest;

constexpr std::size_t kMaxHead = 8192;

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::size_t count(const BeastRequest& b, std::string_view name) {
  return static_cast<std::size_t>(std::count_if(
      b.fields.begin(), b.fields.end(), [&](const auto& f) { return lower(f.first) == name; }));
}

const std::string* value_of(const BeastRequest& b, std::string_view name) {
  for (const auto& f : b.fields) {
    if (lower(f.first) == name) return &f.second;
  }
  return nullptr;
}

bool has_ctl(std::string_view v) {
  return std::any_of(v.begin(), v.end(), [](char c) {
    const auto u = static_cast<unsigned char>(c);
    return (u < 0x20 && c != '\t') || u == 0x7f;
  });
}

bool has_bare_lf(std::string_view s) {
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\n' && (i == 0 || s[i - 1] != '\r')) return true;
  }
  return false;
}

bool connection_has(const BeastRequest& b, std::string_view token) {
  for (const auto& f : b.fields) {
    if (lower(f.first) == "connection" && lower(f.second).find(token) != std::string::npos) {
      return true;
    }
  }
  return false;
}

// Whether our rejection of a head Beast accepts is one of the rules we chose to be stricter by.
bool stricter_by_rule(std::string_view why, const BeastRequest& b, std::string_view bytes) {
  const std::string* te = value_of(b, "transfer-encoding");
  const std::string* cl = value_of(b, "content-length");
  if (why == "missing Host header") return b.version == 11 && count(b, "host") == 0;
  if (why == "duplicate Host header") return count(b, "host") > 1;
  if (why == "unsupported HTTP version") return b.version != 10 && b.version != 11;
  if (why == "obsolete line folding") {
    return bytes.find("\n ") != std::string_view::npos ||
           bytes.find("\n\t") != std::string_view::npos;
  }
  if (why == "bare LF in request line" || why == "bare LF in header section") {
    return has_bare_lf(bytes);
  }
  if (why == "unsupported Transfer-Encoding") return te != nullptr && lower(*te) != "chunked";
  if (why == "duplicate Transfer-Encoding header") return count(b, "transfer-encoding") > 1;
  if (why == "Transfer-Encoding in an HTTP/1.0 request") return b.version == 10 && te != nullptr;
  if (why == "both Content-Length and Transfer-Encoding") return te != nullptr && cl != nullptr;
  if (why == "too many header fields") return b.fields.size() > gatebench::http1::kMaxHeaderFields;
  if (why == "invalid Content-Length") {
    for (const auto& f : b.fields) {
      if (lower(f.first) != "content-length") continue;
      const bool digits = std::all_of(f.second.begin(), f.second.end(),
                                      [](char c) { return c >= '0' && c <= '9'; });
      if (!digits || f.second.size() > 18) return true;
    }
    return false;
  }
  if (why == "control character in header value") {
    return std::any_of(b.fields.begin(), b.fields.end(),
                       [](const auto& f) { return has_ctl(f.second); });
  }
  return false;
}

// Beast's verdict on the same head with its Connection lines removed.
bool beast_accepts_without_connection(std::string_view bytes, const RequestHead& h) {
  std::string rest(bytes.substr(0, h.head_len));
  bool had = false;
  for (std::size_t i = h.fields.count; i-- > 0;) {
    const auto& line = h.fields.lines[i];
    if (line.kind != gatebench::http1::KnownHeader::kConnection) continue;
    rest.erase(line.line_off, line.line_len);
    had = true;
  }
  return had && gatebench::peers::beast_parse_request(rest, kMaxHead).has_value();
}

void check_agreement(const RequestHead& h, const BeastRequest& b) {
  if (h.method != b.method || h.target != b.target) std::abort();
  if (b.version != 10 + h.minor_version) std::abort();
  if (b.fields.size() != h.fields.count) std::abort();
  if (h.has_content_length != b.content_length.has_value()) std::abort();
  if (b.content_length && *b.content_length != h.content_length) std::abort();
  if ((h.body == BodyKind::kChunked) != b.chunked) std::abort();
  // HTTP/1.0 with both "close" and "keep-alive": close wins for us, Beast keeps the connection.
  const bool contradictory =
      h.minor_version == 0 && connection_has(b, "close") && connection_has(b, "keep-alive");
  if (!contradictory && h.keep_alive != b.keep_alive) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  // Beast's header limit counts differently near the bound; stay clear of it.
  if (size > kMaxHead - 512) return 0;
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  RequestHead h;
  const HeadStatus ours = gatebench::http1::parse_request_head(bytes, kMaxHead, h);
  const auto beast = gatebench::peers::beast_parse_request(bytes, kMaxHead);
  if (ours == HeadStatus::kComplete) {
    if (!beast) {
      // We would accept what Beast refuses. The one deliberate case: a Connection value that is
      // not a token list (Beast: bad value). Its tokens only mark fields hop-by-hop and the
      // header itself is never forwarded, so it cannot reach an upstream.
      if (!beast_accepts_without_connection(bytes, h)) std::abort();
      return 0;
    }
    check_agreement(h, *beast);
    // Field by field: names as sent, values without surrounding whitespace. Beast lists a
    // repeated name next to its first occurrence, so both sides are compared grouped by name
    // (wire order kept within a name).
    std::vector<std::pair<std::string, std::string>> ours;
    for (std::size_t i = 0; i < h.fields.count; ++i) {
      const auto& line = h.fields.lines[i];
      ours.emplace_back(bytes.substr(line.line_off, line.name_len),
                        bytes.substr(line.value_off, line.value_len));
    }
    auto theirs = beast->fields;
    const auto by_name = [](const auto& a, const auto& b) {
      return lower(a.first) < lower(b.first);
    };
    std::stable_sort(ours.begin(), ours.end(), by_name);
    std::stable_sort(theirs.begin(), theirs.end(), by_name);
    if (ours != theirs) std::abort();
  } else if (beast) {
    if (ours == HeadStatus::kIncomplete) std::abort();
    if (!stricter_by_rule(h.error, *beast, bytes)) std::abort();
  }
  return 0;
}
