// The naive rule engine: every rule in order, every condition of it, each regex on its own, no
// host index, no prefilter, case-insensitivity by copying and lower-casing per comparison,
// IP lists by a linear scan, request headers scanned for exploits by copying and splitting them.
// It follows micro/core/rules/verdict.hpp's order and is the differential oracle of
// RuleEvaluator (and the "naive" benchmark peer).
#pragma once

#include <re2/re2.h>

#include <cstdint>
#include <memory>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "micro/core/rules/request.hpp"
#include "micro/core/rules/set.hpp"
#include "micro/core/rules/verdict.hpp"
#include "micro/peers/exploit_naive.hpp"

namespace gatebench::peers {

// GCRA over an unbounded hash map: the rate limit without the fixed table's eviction. Agrees
// with rules::GcraLimiter as long as the table never replaces a live entry.
class NaiveGcra {
 public:
  NaiveGcra(double rate_per_second, std::uint32_t burst);
  bool allow(std::uint32_t key, std::uint64_t now_ns);

 private:
  std::unordered_map<std::uint32_t, std::uint64_t> tat_;
  std::uint64_t interval_ns_;
  std::uint64_t tolerance_ns_;
};

class NaiveRuleEngine {
 public:
  explicit NaiveRuleEngine(const rules::RuleSet& rules);
  ~NaiveRuleEngine();

  rules::Verdict evaluate(const rules::RequestView& request, std::uint64_t now_ns);

 private:
  bool test(const rules::RuleCondition& condition, std::size_t rule_index,
            const rules::RequestView& request) const;
  // docs/rules.md, "Exploit patterns": the header walk of ExploitScanner::scan_headers.
  rules::ExploitCategory scan_headers(const rules::RequestView& request) const;
  rules::ExploitCategory scan_cookie(std::string_view header) const;
  rules::ExploitCategory scan_value(std::string_view raw, rules::PlusMode plus) const;

  rules::RuleSet rules_;
  std::vector<std::vector<std::unique_ptr<RE2>>> regexes_;  // [rule][condition], null if not regex
  NaiveExploitMatcher exploit_;
  std::unique_ptr<RE2> scanner_agents_;
  std::unique_ptr<NaiveGcra> limiter_;
};

}  // namespace gatebench::peers
