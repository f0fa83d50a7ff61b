#include "macro/gateway/policy.hpp"

namespace gatebench::gateway {

std::string_view action_name(PolicyAction a) {
  switch (a) {
    case PolicyAction::kNone:
      return "-";
    case PolicyAction::kAllow:
      return "allow";
    case PolicyAction::kBlock:
      return "block";
    case PolicyAction::kChallenge:
      return "challenge";
    case PolicyAction::kQueue:
      return "queue";
    case PolicyAction::kRateLimit:
      return "ratelimit";
    case PolicyAction::kDetect:
      return "detect";
  }
  return "-";
}

Decision evaluate_policy(const HostConfig& host, const PolicyInput& in) {
  (void)host;
  (void)in;
  return Decision{};
}

LocalResponse render_decision(const HostConfig& host, const Decision& d, const RequestHead& req) {
  (void)host;
  (void)req;
  return LocalResponse{d.status, "text/plain", "request refused\n", {}};
}

}  // namespace gatebench::gateway
