// The checks of a host that decide who sent a request before what it asks for is judged: loop
// detection (the hop count) and the bearer JWT. Both run before the IP lists and the rules, so a
// looping request costs one header scan, and the rules can read the verified claims.
#include <iterator>

#include "macro/gateway/loop_guard.hpp"
#include "macro/gateway/policy.hpp"
#include "macro/gateway/text_buf.hpp"

namespace gatebench::gateway {
namespace {

// Rule ids of the 401s, by VerifyStatus (static storage: a Decision's rule_id outlives the call).
constexpr std::string_view kJwtRuleIds[] = {"jwt:ok",
                                            "jwt:malformed",
                                            "jwt:wrong_kind",
                                            "jwt:wrong_algorithm",
                                            "jwt:unknown_key",
                                            "jwt:bad_signature",
                                            "jwt:expired",
                                            "jwt:not_yet_valid",
                                            "jwt:wrong_binding",
                                            "jwt:wrong_issuer",
                                            "jwt:wrong_audience"};
static_assert(std::size(kJwtRuleIds) ==
              static_cast<std::size_t>(tokens::VerifyStatus::wrong_audience) + 1);
constexpr std::string_view kJwtMissingId = "jwt:missing";

bool is_space(char c) {
  return c == ' ' || c == '\t';
}

// The token of "Authorization: Bearer <token>" (RFC 6750 2.1; the scheme in any case). Empty
// when there is no Authorization header or it is another scheme; `twice` when there are two.
std::string_view bearer_token(const PolicyRequest& r, bool& twice) {
  std::string_view token;
  bool seen = false;
  twice = false;
  for (std::uint16_t i = 0; i < r.req.fields.count; ++i) {
    const HeaderLine& h = r.req.fields.lines[i];
    if (h.kind != KnownHeader::kOther || h.name_len != 13 ||
        !iequals_lower(r.head.substr(h.line_off, h.name_len), "authorization")) {
      continue;
    }
    if (seen) twice = true;
    seen = true;
    std::string_view v = r.head.substr(h.value_off, h.value_len);
    if (v.size() > 7 && iequals_lower(v.substr(0, 6), "bearer") && is_space(v[6])) {
      v.remove_prefix(7);
      while (!v.empty() && is_space(v.front())) v.remove_prefix(1);
      token = v;
    }
  }
  return token;
}

}  // namespace

bool HostPolicy::check_loop(const PolicyRequest& r, Decision& d, PolicyScratch& s) {
  const LoopFeature& loop = *host_.features->loop;
  const std::optional<std::uint32_t> hops = count_hops(r.req, r.head, loop.via_name);
  if (!hops) {
    d = bad_request("invalid-hops", "X-Gatebench-Hops must be one field of 1-3 digits", s);
    return false;
  }
  if (*hops >= loop.max_hops) {
    d.respond = true;
    d.action = access_log::Action::block;
    d.rule_id = "loop-detected";
    d.response.status = 508;
    d.response.body = (TextBuf(s.body) << "loop detected: " << std::uint64_t{*hops}
                                       << " hops, at most " << std::uint64_t{loop.max_hops} << "\n")
                          .view();
    d.response.extra_headers = "X-Gatebench-Rule: loop-detected\r\n";
    return false;
  }
  d.hops = static_cast<std::uint16_t>(*hops + 1);
  return true;
}

bool HostPolicy::check_jwt(const PolicyRequest& r, Decision& d, PolicyScratch& s) {
  const JwtFeature& jwt = *host_.features->jwt;
  bool twice = false;
  const std::string_view token = bearer_token(r, twice);
  tokens::VerifyStatus status = tokens::VerifyStatus::malformed;
  if (!token.empty() && !twice) {
    status = jwt_->verify(token, static_cast<std::int64_t>(r.now_s), jwt.required, &claims_);
    if (status == tokens::VerifyStatus::ok) return true;
  }
  d.respond = true;
  d.action = access_log::Action::block;
  d.response.status = 401;
  if (token.empty() && !twice) {
    // No credentials at all: RFC 6750 3.1 says to send no error code.
    d.rule_id = kJwtMissingId;
    d.response.body = "bearer token required\n";
    d.response.extra_headers = "WWW-Authenticate: Bearer\r\n";
    return false;
  }
  const std::string_view reason = tokens::to_string(status);
  d.rule_id = kJwtRuleIds[static_cast<std::size_t>(status)];
  d.response.body = (TextBuf(s.body) << "invalid bearer token: " << reason << "\n").view();
  d.response.extra_headers =
      (TextBuf(s.headers) << "WWW-Authenticate: Bearer error=\"invalid_token\", "
                             "error_description=\""
                          << reason << "\"\r\n")
          .view();
  return false;
}

std::size_t HostPolicy::add_claim_headers(std::size_t count, PolicyScratch& s) const {
  const std::string_view values[kClaimHeaders] = {claims_.sub, claims_.iss, claims_.scope,
                                                  claims_.kid};
  for (std::size_t i = 0; i < kClaimHeaders; ++i) {
    if (values[i].empty()) continue;
    s.header_views[count++] = rules::HeaderView{kClaimHeaderNames[i], values[i]};
  }
  return count;
}

}  // namespace gatebench::gateway
