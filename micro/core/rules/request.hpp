// The request as rule evaluation sees it: views into buffers the gateway owns. The reference
// gateway fills this struct once per request; micro benchmarks fill it from generated traffic.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

namespace gatebench::rules {

struct HeaderView {
  std::string_view name;  // as received; matched ASCII case-insensitively
  std::string_view value;
};

struct RequestView {
  std::string_view method;  // "GET", "POST", ...
  std::string_view scheme;  // "http" or "https"
  std::string_view host;    // Host without port, as the gateway routed on it
  // Path and query as rules match them by default: normalised by the producer (normalize.hpp)
  // or, where nothing normalises (generated traffic), the raw bytes.
  std::string_view path;   // starts with '/'
  std::string_view query;  // without '?', empty when absent
  std::span<const HeaderView> headers;
  std::uint32_t client_ip = 0;  // IPv4, host byte order (1.2.3.4 == 0x01020304)
  // ISO 3166 alpha-2 code the gateway resolved from client_ip (cidr table value); empty when
  // unknown. Resolved outside the evaluator so one lookup serves logging, rules and routing.
  std::string_view country;
  std::string_view body;  // body as rules see it: decoded fields (body_fields.hpp) or raw bytes
  // The bytes as received, for rules with "match": "raw" and for exploit scanning (which decodes
  // on its own, and must see "../" that normalisation resolves away). Empty: same as the field
  // above (nothing was normalised).
  std::string_view raw_path;
  std::string_view raw_query;
  std::string_view raw_body;
};

// The raw form of a field: the raw member when set, else the field itself.
inline std::string_view raw_or(std::string_view raw, std::string_view normalised) {
  return raw.empty() ? normalised : raw;
}

// First header whose name equals `lower_name` ASCII case-insensitively; `lower_name` must be
// lower case. Returns false when the request has no such header.
bool find_header(const RequestView& request, std::string_view lower_name, std::string_view& value);

}  // namespace gatebench::rules
