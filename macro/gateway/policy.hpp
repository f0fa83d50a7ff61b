// Per-request feature checks of a proxy host, in the documented order (docs/gateway.md): IP
// lists and country, block rules and exploit patterns, rate limit, access queue, challenge.
// evaluate_policy() decides; render_decision() turns a decision into the local response.
#pragma once

#include <cstdint>
#include <string_view>

#include "macro/gateway/config.hpp"
#include "macro/gateway/http_head.hpp"

namespace gatebench::gateway {

// Values and names follow access_log::Action so log records carry them unchanged.
enum class PolicyAction : std::uint8_t {
  kNone,
  kAllow,
  kBlock,
  kChallenge,
  kQueue,
  kRateLimit,
  kDetect
};

std::string_view action_name(PolicyAction a);

struct Decision {
  bool respond = false;  // answer locally instead of proxying
  PolicyAction action = PolicyAction::kNone;
  std::string_view rule_id;  // points into the configuration (stable for its lifetime)
  std::uint16_t status = 0;
};

struct PolicyInput {
  const RequestHead& req;
  std::uint32_t client_ip;
  bool https;
  std::uint64_t now_ms;
};

Decision evaluate_policy(const HostConfig& host, const PolicyInput& in);

struct LocalResponse {
  std::uint16_t status;
  std::string_view content_type;
  std::string_view body;
  std::string_view extra_headers;
};
LocalResponse render_decision(const HostConfig& host, const Decision& d, const RequestHead& req);

}  // namespace gatebench::gateway
