// The decision API (docs/gateway.md, "Decision endpoint"): a listener with "role": "decision"
// answers what the proxy would do with a described request, without proxying it. The described
// request is rebuilt as an HTTP/1.1 head and parsed by the same parser, then judged by the same
// HostPolicy::evaluate as on the proxy path, so both paths give one verdict.
//
// Two forms of description:
//   JSON     POST /v1/decision {"method", "host", "path", "query", "scheme", "client_ip",
//            "headers": {name: value}}; answered 200 with a JSON verdict;
//   compact  any other request, as nginx auth_request sends it: the original request from
//            X-Original-Method (GET), X-Original-URI (required), X-Forwarded-Host (or Host),
//            X-Forwarded-Proto, the last X-Forwarded-For entry (or the peer address) and every
//            other header; answered 200 (allow), 401 or 403 (auth_request's three outcomes).
// Pure functions here; the worker's part is decision_flow.cpp.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

#include "macro/gateway/http_head.hpp"
#include "macro/gateway/policy.hpp"

namespace gatebench::gateway {

inline constexpr std::string_view kDecisionJsonPath = "/v1/decision";
inline constexpr std::size_t kDecisionMaxBody = 16384;

enum class Verdict : std::uint8_t { kAllow, kDeny, kChallenge, kRateLimited };
std::string_view to_string(Verdict v);
Verdict verdict_of(const Decision& d);

// The described request rebuilt as a head in `out` (a request line, Host, the headers, the empty
// line). `error` names what was wrong when head_len is 0.
struct Described {
  std::size_t head_len = 0;
  std::uint32_t client_ip = 0;
  bool https = false;
  const char* error = "";
};

// peer_ip: the client when the description names none.
Described describe_from_json(std::string_view body, std::uint32_t peer_ip, std::span<char> out);
Described describe_from_original(const RequestHead& req, std::string_view head,
                                 std::uint32_t peer_ip, std::span<char> out);

// The JSON answer: {"verdict", "status", "rule", "action", "headers": ["Name: value", ...]} where
// headers are the lines the gateway's own answer would carry (WWW-Authenticate, Retry-After,
// Set-Cookie ...; an array, since a name may repeat).
std::string_view decision_json(const Decision& d, std::span<char> out);

}  // namespace gatebench::gateway
