// A request on a decision listener (decision.hpp; docs/gateway.md "Decision endpoint"): its form
// (the original request, or the JSON form whose body is read first), then the described request
// rebuilt, parsed, routed and judged by the host's policy; nothing goes upstream. The part owns
// the buffers the rebuilt head, its parse and the answer live in; the worker's request machine
// reads the body and sends the answer it returns.
#pragma once

#include <cstddef>
#include <memory>

#include "macro/gateway/connection.hpp"
#include "macro/gateway/policy.hpp"

namespace gatebench::gateway {

// A described request rebuilt as a head (decision.hpp), and the decision's own answer.
inline constexpr std::size_t kDecisionHeadCap = 16384 + 1024;
inline constexpr std::size_t kDecisionOutCap = 8192;

class DecisionFlow {
 public:
  // The answer to send, or status 0 for the JSON form whose body is read first: the request part
  // must then hold head_len + kDecisionMaxBody bytes, and decide(c, true) follows once it is
  // complete. The answer's views are static text or this part's buffers: valid until its next
  // call. `scratch` is the worker's (the policy composes local answers in it).
  LocalResponse begin(Client& c, PolicyScratch& scratch);
  LocalResponse decide(Client& c, bool json, PolicyScratch& scratch);

 private:
  std::unique_ptr<char[]> head_ = std::make_unique<char[]>(kDecisionHeadCap);
  std::unique_ptr<RequestHead> req_ = std::make_unique<RequestHead>();
  std::unique_ptr<char[]> out_ = std::make_unique<char[]>(kDecisionOutCap);
};

}  // namespace gatebench::gateway
