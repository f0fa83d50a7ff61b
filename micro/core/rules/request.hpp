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
  std::string_view path;    // raw request-target path (not decoded), starts with '/'
  std::string_view query;   // raw query string without '?', empty when absent
  std::span<const HeaderView> headers;
  std::uint32_t client_ip = 0;  // IPv4, host byte order (1.2.3.4 == 0x01020304)
  // ISO 3166 alpha-2 code the gateway resolved from client_ip (cidr table value); empty when
  // unknown. Resolved outside the evaluator so one lookup serves logging, rules and routing.
  std::string_view country;
  std::string_view body;  // body prefix the gateway buffered (POST); empty otherwise
};

// First header whose name equals `lower_name` ASCII case-insensitively; `lower_name` must be
// lower case. Returns false when the request has no such header.
bool find_header(const RequestView& request, std::string_view lower_name, std::string_view& value);

}  // namespace gatebench::rules
