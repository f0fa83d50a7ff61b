// What rule evaluation decides for one request, and the order of evaluation every engine
// (compiled, naive) follows (docs/rules.md, "Evaluation order"):
//   1. rate limit (if configured) charges the client; over the limit -> block, nothing else runs;
//   2. rules in order; the first whose host scope and conditions all hold gives rule + action;
//   3. an allow or block rule ends evaluation; otherwise exploit scanning runs (mode != off);
//   4. decision: block rule -> block; exploit found in block mode -> block; challenge rule ->
//      challenge; else pass (a log rule or a detect-mode finding only records).
#pragma once

#include <cstdint>

#include "micro/core/rules/exploit_patterns.hpp"
#include "micro/core/rules/set.hpp"

namespace gatebench::rules {

enum class Decision : std::uint8_t { kPass, kBlock, kChallenge };

struct Verdict {
  Decision decision = Decision::kPass;
  RuleAction action = RuleAction::kNone;  // of the first matching rule
  std::int32_t rule = -1;                 // its index in RuleSet::rules; -1: none matched
  ExploitCategory exploit = ExploitCategory::kNone;
  bool rate_limited = false;

  friend bool operator==(const Verdict&, const Verdict&) = default;
};

// Step 3's question: does exploit scanning run after this rule action?
constexpr bool exploit_scan_follows(RuleAction action) {
  return action != RuleAction::kBlock && action != RuleAction::kAllow;
}

// Step 4.
constexpr Decision decide(RuleAction action, ExploitCategory exploit, ExploitMode mode) {
  if (action == RuleAction::kBlock) return Decision::kBlock;
  if (action == RuleAction::kAllow) return Decision::kPass;
  if (exploit != ExploitCategory::kNone && mode == ExploitMode::kBlock) return Decision::kBlock;
  if (action == RuleAction::kChallenge) return Decision::kChallenge;
  return Decision::kPass;
}

const char* to_string(Decision decision);

}  // namespace gatebench::rules
