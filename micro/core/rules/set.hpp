// The rule set as configured: what docs/rules.md describes, before any compilation. Both the
// compiled evaluator (engine.hpp) and the naive peer consume this model, so they cannot
// disagree about what a rule says.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "micro/core/cidr/prefix.hpp"

namespace gatebench::rules {

enum class RuleAction : std::uint8_t { kNone, kBlock, kAllow, kChallenge, kLog };

enum class RuleField : std::uint8_t {
  kMethod,
  kScheme,
  kHost,
  kPath,
  kQuery,
  kHeader,  // RuleCondition::header names it ("user_agent" and "referer" are aliases)
  kClientIp,
  kCountry,
  kBody,
};

enum class RuleOperator : std::uint8_t {
  kEquals,
  kPrefix,
  kSuffix,
  kContains,
  kRegex,
  kInList,  // client_ip in a named CIDR list
  kInSet,   // value equals one of RuleCondition::values
};

enum class ExploitMode : std::uint8_t { kOff, kDetect, kBlock };

struct RuleCondition {
  RuleField field = RuleField::kPath;
  std::string header;  // lower-case header name when field == kHeader
  RuleOperator op = RuleOperator::kEquals;
  std::string value;                // equals/prefix/suffix/contains/regex
  std::vector<std::string> values;  // in_set
  std::string list;                 // in_list: key of RuleSet::ip_lists
  bool negate = false;
  bool case_insensitive = false;
  // path, query, body: match the bytes as received instead of the normalised value
  // (RequestView::raw_*); JSON "match": "raw" (default "normalized").
  bool raw = false;
};

struct Rule {
  std::string id;
  RuleAction action = RuleAction::kBlock;
  std::vector<std::string> hosts;         // lower case; empty: every host
  std::vector<RuleCondition> conditions;  // ANDed; none: matches every request in scope
};

struct RateLimitConfig {
  bool enabled = false;
  double rate_per_second = 0;           // sustained requests per second per client address
  std::uint32_t burst = 0;              // extra requests allowed at once above the sustained rate
  std::uint32_t table_entries = 65536;  // client addresses tracked (bounded memory)
};

struct RuleSet {
  std::vector<Rule> rules;  // evaluated in order; the first match decides
  std::map<std::string, std::vector<cidr::Ipv4Prefix>> ip_lists;
  ExploitMode exploit_mode = ExploitMode::kOff;
  // Exploit scanning covers the request headers too (ExploitScanner::scan_headers).
  bool exploit_headers = false;
  RateLimitConfig rate_limit;
};

const char* to_string(RuleAction action);
const char* to_string(RuleField field);
const char* to_string(RuleOperator op);
const char* to_string(ExploitMode mode);

}  // namespace gatebench::rules
