// Per-request feature checks of a proxy host, in the documented order (docs/gateway.md,
// "Order of checks"): IP lists, country, block rules and exploit patterns, rate limit, access
// queue, challenge. One HostPolicy per worker and host: it owns the thread-local parts (rule
// evaluator scratch, rate-limit table) and reads the shared, immutable HostFeatures.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string_view>
#include <vector>

#include "macro/gateway/config.hpp"
#include "macro/gateway/http_head.hpp"
#include "micro/core/access_log/record.hpp"
#include "micro/core/rules/request.hpp"

namespace gatebench::gateway {

inline constexpr std::string_view kQueueJoinPath = "/__gatebench/queue/join";
inline constexpr std::string_view kQueueStatusPath = "/__gatebench/queue/status";
inline constexpr std::string_view kChallengeVerifyPath = "/__gatebench/challenge/verify";
inline constexpr std::string_view kQueueCookie = "gb_queue";
inline constexpr std::string_view kPassCookie = "gb_pass";
inline constexpr std::string_view kNonceCookie = "gb_challenge";
// Rule id of a request whose body was longer than the host's body_limit and scanned in part.
inline constexpr std::string_view kBodyTruncatedId = "body-truncated";

// A response the gateway writes itself. Views point into configuration storage or into the
// worker's PolicyScratch; respond() copies them before the next request is evaluated.
struct LocalResponse {
  std::uint16_t status = 0;
  std::string_view content_type = "text/plain";
  std::string_view body;
  std::string_view extra_headers;  // whole CRLF-terminated lines
};

struct Decision {
  bool respond = false;  // answer locally instead of proxying
  // Hops to state upstream (loop detection, loop_guard.hpp); 0 when the host has none.
  std::uint16_t hops = 0;
  access_log::Action action = access_log::Action::none;
  std::string_view rule_id;  // configuration storage: stays valid for the whole request
  LocalResponse response;
};

struct PolicyRequest {
  const RequestHead& req;
  std::string_view head;  // the raw head the fields of `req` index into
  std::uint32_t client_ip = 0;
  bool https = false;
  std::uint64_t now_ns = 0;  // monotonic
  std::uint64_t now_s = 0;   // unix seconds (token expiry)
  // The body prefix the worker buffered for inspection (chunked framing removed), and whether
  // it is the whole body; empty when the host does not inspect bodies or there is none.
  std::string_view body;
  bool body_complete = true;
};

// Claims of a verified bearer JWT, given to the rules as headers with these names. A '/' is not
// a token character, so no client can send a header of that name (the parser refuses it).
inline constexpr std::size_t kClaimHeaders = 4;
inline constexpr std::string_view kClaimHeaderNames[kClaimHeaders] = {"jwt/sub", "jwt/iss",
                                                                      "jwt/scope", "jwt/kid"};

// Worker-owned buffers local responses are composed in.
struct PolicyScratch {
  std::array<char, 8192> body;
  std::array<char, 2048> headers;
  std::array<char, 4096> decoded;
  // The request's headers, then the verified JWT's claims as pseudo-headers for the rules.
  std::array<rules::HeaderView, kMaxHeaderFields + kClaimHeaders> header_views;
  // Normalised path and query, and the decoded body fields (rules/normalize.hpp,
  // rules/body_fields.hpp): grown to the largest request seen, then reused.
  std::vector<char> target;
  std::vector<char> body_fields;
};

class HostPolicy {
 public:
  HostPolicy(const HostConfig& host, const tokens::TokenKeyRing* keys);
  ~HostPolicy();
  HostPolicy(const HostPolicy&) = delete;
  HostPolicy& operator=(const HostPolicy&) = delete;

  Decision evaluate(const PolicyRequest& r, PolicyScratch& scratch);

 private:
  Decision block(std::string_view rule_id, PolicyScratch& s);
  Decision bad_request(std::string_view rule_id, std::string_view why, PolicyScratch& s);
  Decision queue(const PolicyRequest& r, std::string_view path, std::string_view query,
                 PolicyScratch& s);
  Decision challenge(const PolicyRequest& r, std::string_view path, std::string_view query,
                     std::string_view rule_id, PolicyScratch& s);
  // Loop detection and the bearer JWT (policy_auth.cpp): true when the request may go on,
  // otherwise `d` is the local answer (508, 400, 401).
  bool check_loop(const PolicyRequest& r, Decision& d, PolicyScratch& s);
  bool check_jwt(const PolicyRequest& r, Decision& d, PolicyScratch& s);
  // Appends the verified claims to the rules' header views after `count` request headers.
  std::size_t add_claim_headers(std::size_t count, PolicyScratch& s) const;

  const HostConfig& host_;
  const tokens::TokenKeyRing* keys_;
  std::unique_ptr<rules::RuleEvaluator> rules_;
  std::optional<rules::GcraLimiter> limiter_;
  std::unique_ptr<tokens::JwtVerifier> jwt_;
  tokens::JwtClaims claims_;  // of the request being evaluated, when jwt_ verified one
};

// The value of cookie `name` in a Cookie header, or an empty view.
std::string_view find_cookie(std::string_view header, std::string_view name);

// The "return" query parameter, percent-decoded into `out`, when it is a safe local path
// ("/..." but not "//...", no control bytes); otherwise "/".
std::string_view safe_return_path(std::string_view query, std::span<char> out);

}  // namespace gatebench::gateway
