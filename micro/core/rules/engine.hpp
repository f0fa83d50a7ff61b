// The compiled rule evaluator. Build time does the work that does not depend on the request:
//   - rules are indexed by host, so a host without rules of its own runs only the unscoped ones
//     (and nothing at all when there are none);
//   - each rule's conditions are ordered cheapest first (address and short-field comparisons,
//     then literal searches, regexes last); ANDed conditions stop at the first that fails;
//   - each host's rules become one flat program of operations specialised by operator and case
//     mode, each knowing where the next rule starts, so a failed condition is one jump;
//   - every literal a field's conditions search for (contains needles, regex prefilter atoms) is
//     found in one pass over the field (literal_set.hpp), on first use; other literal
//     operators compare against needles lower-cased once, folding the request bytes as they go;
//     IP lists become Ipv4Table lookups (cidr/table.hpp);
//   - only the headers some rule names are looked up, once per request, on first use.
// Exploit scanning and the rate limit follow verdict.hpp's order.
//
//   CompiledRuleSet rules(load_rule_set_file("rules.json"));  // immutable, shareable
//   RuleEvaluator evaluator(rules);                           // one per thread
//   Verdict v = evaluator.evaluate(request, now_ns);           // no allocation once warmed up
#pragma once

#include <re2/re2.h>

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "micro/core/cidr/table.hpp"
#include "micro/core/rules/exploit_scanner.hpp"
#include "micro/core/rules/literal_set.hpp"
#include "micro/core/rules/ratelimit.hpp"
#include "micro/core/rules/request.hpp"
#include "micro/core/rules/set.hpp"
#include "micro/core/rules/verdict.hpp"

namespace gatebench::rules {

class CompiledRuleSet {
 public:
  // Throws std::invalid_argument for a rule set the loader would have refused (unknown list,
  // bad regex), so a hand-built RuleSet gets the same checks.
  explicit CompiledRuleSet(const RuleSet& rules);
  ~CompiledRuleSet();
  CompiledRuleSet(const CompiledRuleSet&) = delete;
  CompiledRuleSet& operator=(const CompiledRuleSet&) = delete;

  struct Condition;  // defined in engine.cpp
  struct Op;         // one condition in a program; defined in engine.cpp
  struct Rule {
    std::int32_t index = 0;
    RuleAction action = RuleAction::kNone;
    std::vector<Condition> conditions;  // cheapest first
  };
  struct HostEntry {
    std::string host;  // lower case; empty: free slot
    std::uint32_t list = 0;
  };

 private:
  friend class RuleEvaluator;

  std::uint32_t rule_list_for(std::string_view host) const;

  std::vector<Rule> rules_;
  std::vector<std::vector<std::uint32_t>> rule_lists_;  // [0]: hosts without scoped rules
  std::vector<std::vector<Op>> programs_;               // one per rule list
  std::vector<HostEntry> host_table_;                   // open addressing, power-of-two size
  std::vector<std::string> header_names_;               // lower case; slot kFirstHeader + i
  // Names by length: header_names_[k] for k = header_by_length_[min(length, 63)], then
  // header_next_[k] ... until kNoHeader; most request headers are skipped on their length.
  static constexpr std::uint8_t kNoHeader = 0xFF;
  std::array<std::uint8_t, 64> header_by_length_{};
  std::vector<std::uint8_t> header_next_;
  std::vector<std::unique_ptr<cidr::Ipv4Table>> ip_tables_;
  // Per field, the literals its conditions search (contains needles, regex prefilter atoms),
  // found together in one pass the first time a condition asks for any of them; a field with
  // more than LiteralSet::kMaxLiterals literals has several groups.
  std::vector<LiteralSet> literal_groups_;
  ExploitMatcher exploit_matcher_;
  ExploitMode exploit_mode_ = ExploitMode::kOff;
  bool exploit_headers_ = false;
  std::optional<GcraConfig> rate_limit_;
};

class RuleEvaluator {
 public:
  explicit RuleEvaluator(const CompiledRuleSet& rules);

  // `now_ns` feeds the rate limit (any monotonic clock in nanoseconds).
  Verdict evaluate(const RequestView& request, std::uint64_t now_ns);

 private:
  // A field's lower-cased copy, for the one operator that needs it (in_set with long values).
  struct Lowered {
    std::uint64_t generation = 0;
    std::string text;  // grows to the largest value seen, then is reused
    std::string_view view;
  };

  // Literals found in a group's field this request (computed on first use).
  struct GroupState {
    std::uint64_t generation = 0;
    std::uint64_t found = 0;
  };

  bool holds(const CompiledRuleSet::Op& op);
  void resolve_headers();
  std::string_view lowered_value(std::uint8_t slot);
  std::uint64_t literals_found(std::uint32_t group, std::string_view value);
  void scan_literals(std::uint32_t group, std::string_view value);

  const CompiledRuleSet* rules_;
  const RequestView* request_ = nullptr;
  // Per slot (request fields, then the headers rules name): the value, and for headers the
  // request (generation) in which it was found; an older generation means absent.
  std::vector<std::string_view> values_;
  std::vector<std::uint64_t> header_seen_;
  std::vector<Lowered> lowered_;
  std::vector<GroupState> groups_;
  std::uint64_t generation_ = 0;  // 64 bits: never wraps back onto a stale entry
  bool headers_resolved_ = false;
  ExploitScanner scanner_;
  std::optional<GcraLimiter> limiter_;
};

}  // namespace gatebench::rules
