#include "micro/core/rules/engine.hpp"

#include <re2/filtered_re2.h>

#include <algorithm>
#include <bit>
#include <cstring>
#include <stdexcept>

#include "micro/core/rules/request_ascii.hpp"

namespace gatebench::rules {
namespace {

enum SlotIndex : std::uint8_t {
  kMethod,
  kScheme,
  kHost,
  kPath,
  kQuery,
  kBody,
  kCountry,
  kRawPath,
  kRawQuery,
  kRawBody,
  kFirstHeader
};

// Case-blind hash of a host name: length, first and last 8 bytes with bit 5 forced (which folds
// ASCII case; the other bytes it merges only cost a collision, equality is checked exactly).
std::uint64_t hash_lower(std::string_view text) {
  constexpr std::uint64_t kCaseBits = 0x2020202020202020ull;
  std::uint64_t head = 0, tail = 0;
  if (text.size() >= 8) {
    std::memcpy(&head, text.data(), 8);
    std::memcpy(&tail, text.data() + text.size() - 8, 8);
  } else {
    std::memcpy(&head, text.data(), text.size());
  }
  const std::uint64_t h = ((head | kCaseBits) * 0x9E3779B97F4A7C15ull) ^
                          ((tail | kCaseBits) * 0xC2B2AE3D27D4EB4Full) ^ text.size();
  return h ^ (h >> 29);
}

std::string lowered(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = lower_ascii(c);
  return out;
}

constexpr std::size_t kMaxAtoms = 12;  // truth table of 4,096 entries

// The prefilter of one regex. FilteredRE2 reduces a regex to a monotone AND/OR formula over
// literal atoms; evaluating that formula for every subset of atoms at build time gives a table
// the request path indexes with the bit set of atoms found, without FilteredRE2's per-call
// allocations. A regex without atoms, with too many, or that passes the filter with no atom
// present (unfiltered) gets no prefilter.
void regex_prefilter(const std::string& pattern, const RE2::Options& options,
                     std::vector<std::string>& atoms, std::vector<bool>& may_match) {
  atoms.clear();
  may_match.clear();
  re2::FilteredRE2 filter(3);
  int id = 0;
  if (filter.Add(pattern, options, &id) != RE2::NoError) return;
  std::vector<std::string> found;
  filter.Compile(&found);
  if (found.empty() || found.size() > kMaxAtoms) return;
  std::vector<int> present;
  std::vector<int> potentials;
  std::vector<bool> table(std::size_t{1} << found.size());
  for (std::size_t mask = 0; mask < table.size(); ++mask) {
    present.clear();
    for (std::size_t a = 0; a < found.size(); ++a) {
      if (mask & (std::size_t{1} << a)) present.push_back(static_cast<int>(a));
    }
    filter.AllPotentials(present, &potentials);
    table[mask] = !potentials.empty();
  }
  if (table[0]) return;  // passes with nothing present: unfiltered
  atoms = std::move(found);
  may_match = std::move(table);
}

// memcmp with a zero length still requires valid pointers; empty views may hold null.
bool same_bytes(const char* a, const char* b, std::size_t n) {
  return n == 0 || std::memcmp(a, b, n) == 0;
}

// Up to 8 bytes as one integer (zero padded); compared together with the length.
std::uint64_t pack8(std::string_view v) {
  std::uint64_t x = 0;
  if (!v.empty()) std::memcpy(&x, v.data(), v.size());
  return x;
}

}  // namespace

struct CompiledRuleSet::Condition {
  std::uint8_t slot = 0;
  RuleOperator op = RuleOperator::kEquals;
  bool negate = false;
  bool lower = false;  // compare the lower-cased value (case-insensitive literal operators)
  int cost = 0;
  std::string needle;               // lower-cased when `lower`
  std::vector<std::string> values;  // in_set, sorted, lower-cased when `lower`
  // in_set when every value is at most 8 bytes (methods, country codes): the values packed into
  // integers, compared without memcmp; a longer request value is in no such set.
  bool packed = false;
  // Bytes and lengths in separate arrays, so the membership loop compiles to vector compares.
  std::vector<std::uint64_t> packed_bytes;
  std::vector<std::uint64_t> packed_sizes;
  std::unique_ptr<RE2> regex;
  // Prefilter from RE2's FilteredRE2 analysis: lower-case literals (atoms) and, indexed by the
  // bit set of atoms present in the value (ASCII case ignored), whether the regex can match at
  // all. Empty atoms: no usable prefilter, the regex always runs.
  std::vector<std::string> atoms;
  std::vector<bool> may_match;

  const cidr::Ipv4Table* table = nullptr;
};

namespace {

// Condition kinds specialised at build time by operator, case mode and operand shape, so the
// request path switches once per condition and runs only that case's code.
enum class OpKind : std::uint8_t {
  kAlways,  // a rule without conditions
  kInList,
  kEquals,
  kEqualsCi,
  kPrefix,
  kPrefixCi,
  kSuffix,
  kSuffixCi,
  kPresent,  // contains "": holds whenever the field is present
  kContains,
  kRegex,
  kRegexFiltered,
  kInSetPacked,
  kInSetPackedCi,
  kInSetSorted,
  kInSetSortedCi,
};

}  // namespace

struct CompiledRuleSet::Op {
  OpKind kind = OpKind::kAlways;
  std::uint8_t slot = 0;
  bool negate = false;
  std::uint8_t shift = 0;   // kContains, kRegexFiltered: first bit in the literal group
  std::uint32_t group = 0;  // kContains, kRegexFiltered
  std::uint32_t fail = 0;   // where the next rule starts: the jump when this op fails
  std::int32_t rule = -1;   // on a rule's last op: the rule's index (it matched)
  RuleAction action = RuleAction::kNone;
  std::string_view needle;               // literal operators (into the condition)
  const Condition* condition = nullptr;  // regex, in_set, in_list operands
};

CompiledRuleSet::~CompiledRuleSet() = default;

namespace {

constexpr std::uint32_t kNoGroup = ~std::uint32_t{0};

CompiledRuleSet::Op make_op(const CompiledRuleSet::Condition& c) {
  CompiledRuleSet::Op op;
  op.slot = c.slot;
  op.negate = c.negate;
  op.needle = c.needle;
  op.condition = &c;
  const bool ci = c.lower;
  switch (c.op) {
    case RuleOperator::kEquals:
      op.kind = ci ? OpKind::kEqualsCi : OpKind::kEquals;
      break;
    case RuleOperator::kPrefix:
      op.kind = ci ? OpKind::kPrefixCi : OpKind::kPrefix;
      break;
    case RuleOperator::kSuffix:
      op.kind = ci ? OpKind::kSuffixCi : OpKind::kSuffix;
      break;
    case RuleOperator::kContains:
      op.kind = c.needle.empty() ? OpKind::kPresent : OpKind::kContains;
      break;
    case RuleOperator::kRegex:
      op.kind = c.atoms.empty() ? OpKind::kRegex : OpKind::kRegexFiltered;
      break;
    case RuleOperator::kInSet:
      if (c.packed) {
        op.kind = ci ? OpKind::kInSetPackedCi : OpKind::kInSetPacked;
      } else {
        op.kind = ci ? OpKind::kInSetSortedCi : OpKind::kInSetSorted;
      }
      break;
    case RuleOperator::kInList:
      op.kind = OpKind::kInList;
      break;
  }
  return op;
}

}  // namespace

CompiledRuleSet::CompiledRuleSet(const RuleSet& set)
    : exploit_mode_(set.exploit_mode), exploit_headers_(set.exploit_headers) {
  if (set.rate_limit.enabled) {
    rate_limit_ = GcraConfig{set.rate_limit.rate_per_second, set.rate_limit.burst,
                             set.rate_limit.table_entries};
  }
  std::vector<std::string> table_names;
  auto table_for = [&](const std::string& name) -> const cidr::Ipv4Table* {
    for (std::size_t i = 0; i < table_names.size(); ++i) {
      if (table_names[i] == name) return ip_tables_[i].get();
    }
    auto it = set.ip_lists.find(name);
    if (it == set.ip_lists.end())
      throw std::invalid_argument("rules: unknown ip list \"" + name + "\"");
    std::vector<cidr::CidrEntry> entries;
    entries.reserve(it->second.size());
    for (const cidr::Ipv4Prefix& p : it->second) entries.push_back(cidr::CidrEntry{p, 1});
    ip_tables_.push_back(std::make_unique<cidr::Ipv4Table>(cidr::Ipv4Table::build(entries)));
    table_names.push_back(name);
    return ip_tables_.back().get();
  };
  auto header_slot = [&](const std::string& name) {
    auto it = std::find(header_names_.begin(), header_names_.end(), name);
    if (it == header_names_.end()) it = header_names_.insert(header_names_.end(), name);
    return static_cast<std::uint8_t>(kFirstHeader + (it - header_names_.begin()));
  };

  for (std::size_t r = 0; r < set.rules.size(); ++r) {
    const rules::Rule& src = set.rules[r];
    Rule rule;
    rule.index = static_cast<std::int32_t>(r);
    rule.action = src.action;
    for (const RuleCondition& sc : src.conditions) {
      Condition c;
      c.op = sc.op;
      c.negate = sc.negate;
      const bool literal = sc.op != RuleOperator::kRegex && sc.op != RuleOperator::kInList;
      c.lower = sc.case_insensitive && literal;
      switch (sc.field) {
        case RuleField::kMethod:
          c.slot = kMethod;
          c.cost = 1;
          break;
        case RuleField::kScheme:
          c.slot = kScheme;
          c.cost = 1;
          break;
        case RuleField::kCountry:
          c.slot = kCountry;
          c.cost = 1;
          break;
        case RuleField::kHost:
          c.slot = kHost;
          c.cost = 2;
          break;
        case RuleField::kPath:
          c.slot = sc.raw ? kRawPath : kPath;
          c.cost = 2;
          break;
        case RuleField::kQuery:
          c.slot = sc.raw ? kRawQuery : kQuery;
          c.cost = 2;
          break;
        case RuleField::kHeader:
          c.slot = header_slot(sc.header);
          c.cost = 3;
          break;
        case RuleField::kBody:
          c.slot = sc.raw ? kRawBody : kBody;
          c.cost = 5;
          break;
        case RuleField::kClientIp:
          c.cost = 2;
          break;
      }
      if (c.lower) c.cost += 1;
      switch (sc.op) {
        case RuleOperator::kEquals:
        case RuleOperator::kPrefix:
        case RuleOperator::kSuffix:
          c.needle = c.lower ? lowered(sc.value) : sc.value;
          break;
        case RuleOperator::kContains:
          c.needle = c.lower ? lowered(sc.value) : sc.value;
          c.cost += 2;
          break;
        case RuleOperator::kInSet:
          for (const std::string& v : sc.values) c.values.push_back(c.lower ? lowered(v) : v);
          std::sort(c.values.begin(), c.values.end());
          c.values.erase(std::unique(c.values.begin(), c.values.end()), c.values.end());
          c.packed = std::all_of(c.values.begin(), c.values.end(),
                                 [](const std::string& v) { return v.size() <= 8; });
          if (c.packed) {
            for (const std::string& v : c.values) {
              c.packed_bytes.push_back(pack8(v));
              c.packed_sizes.push_back(v.size());
            }
          }
          break;
        case RuleOperator::kRegex: {
          RE2::Options options;
          options.set_log_errors(false);
          options.set_case_sensitive(!sc.case_insensitive);
          c.regex = std::make_unique<RE2>(sc.value, options);
          if (!c.regex->ok()) {
            throw std::invalid_argument("rules[" + std::to_string(r) +
                                        "]: bad regex: " + c.regex->error());
          }
          c.cost += 20;
          regex_prefilter(sc.value, options, c.atoms, c.may_match);
          break;
        }
        case RuleOperator::kInList:
          c.table = table_for(sc.list);
          break;
      }
      rule.conditions.push_back(std::move(c));
    }
    // ANDed conditions have no side effects, so their order is free: cheapest first.
    std::stable_sort(rule.conditions.begin(), rule.conditions.end(),
                     [](const Condition& a, const Condition& b) { return a.cost < b.cost; });
    rules_.push_back(std::move(rule));
  }
  // Slots are bytes: kFirstHeader + index must fit, and kNoHeader must stay free.
  if (header_names_.size() > 0xFFu - kFirstHeader) {
    throw std::invalid_argument("rules: more than " + std::to_string(0xFFu - kFirstHeader) +
                                " distinct header names");
  }
  header_by_length_.fill(kNoHeader);
  header_next_.assign(header_names_.size(), kNoHeader);
  for (std::size_t k = header_names_.size(); k-- > 0;) {
    std::uint8_t& first = header_by_length_[std::min<std::size_t>(header_names_[k].size(), 63)];
    header_next_[k] = first;
    first = static_cast<std::uint8_t>(k);
  }

  // Rule lists: [0] holds the unscoped rules; every host named by some rule gets the merge of
  // its own rules and the unscoped ones, in rule order.
  rule_lists_.emplace_back();
  std::vector<std::string> hosts;
  for (std::size_t r = 0; r < set.rules.size(); ++r) {
    if (set.rules[r].hosts.empty()) rule_lists_[0].push_back(static_cast<std::uint32_t>(r));
    for (const std::string& h : set.rules[r].hosts) hosts.push_back(lowered(h));
  }
  std::sort(hosts.begin(), hosts.end());
  hosts.erase(std::unique(hosts.begin(), hosts.end()), hosts.end());
  host_table_.resize(std::bit_ceil(std::max<std::size_t>(2, hosts.size() * 2)));
  for (const std::string& h : hosts) {
    std::vector<std::uint32_t> list;
    for (std::size_t r = 0; r < set.rules.size(); ++r) {
      const auto& scope = set.rules[r].hosts;
      const bool in_scope =
          scope.empty() || std::any_of(scope.begin(), scope.end(),
                                       [&](const std::string& s) { return lowered(s) == h; });
      if (in_scope) list.push_back(static_cast<std::uint32_t>(r));
    }
    rule_lists_.push_back(std::move(list));
    std::size_t i = hash_lower(h) & (host_table_.size() - 1);
    while (!host_table_[i].host.empty()) i = (i + 1) & (host_table_.size() - 1);
    host_table_[i] = HostEntry{h, static_cast<std::uint32_t>(rule_lists_.size() - 1)};
  }

  // One program per rule list: the rules' conditions back to back, each op knowing where the
  // next rule starts (its jump on failure) and the last op of a rule naming the rule. The
  // literals the program's conditions search join one group per field (several past
  // LiteralSet::kMaxLiterals), so a host's scan covers its own rules' literals only.
  std::vector<std::vector<LiteralSet::Literal>> group_literals;
  for (const std::vector<std::uint32_t>& list : rule_lists_) {
    std::vector<Op> program;
    std::vector<std::uint32_t> open_group(kFirstHeader + header_names_.size(), kNoGroup);
    auto add_literals = [&](Op& op, const std::vector<LiteralSet::Literal>& literals) {
      std::uint32_t& g = open_group[op.slot];
      if (g != kNoGroup && literals.size() == 1) {
        // A needle another condition of this program already searches: share its bit.
        const auto& open = group_literals[g];
        for (std::size_t k = 0; k < open.size(); ++k) {
          if (open[k].text == literals[0].text &&
              open[k].case_insensitive == literals[0].case_insensitive) {
            op.group = g;
            op.shift = static_cast<std::uint8_t>(k);
            return;
          }
        }
      }
      if (g == kNoGroup || group_literals[g].size() + literals.size() > LiteralSet::kMaxLiterals) {
        g = static_cast<std::uint32_t>(group_literals.size());
        group_literals.emplace_back();
      }
      auto& open = group_literals[g];
      op.group = g;
      op.shift = static_cast<std::uint8_t>(open.size());
      open.insert(open.end(), literals.begin(), literals.end());
    };
    for (const std::uint32_t r : list) {
      const Rule& rule = rules_[r];
      const std::size_t first = program.size();
      if (rule.conditions.empty()) program.push_back(Op{});
      for (const Condition& c : rule.conditions) {
        Op op = make_op(c);
        if (op.kind == OpKind::kContains) add_literals(op, {{c.needle, c.lower}});
        if (op.kind == OpKind::kRegexFiltered) {
          std::vector<LiteralSet::Literal> atoms;
          for (const std::string& a : c.atoms) atoms.push_back({a, true});
          add_literals(op, atoms);
        }
        program.push_back(op);
      }
      for (std::size_t k = first; k < program.size(); ++k) {
        program[k].fail = static_cast<std::uint32_t>(program.size());
      }
      program.back().rule = rule.index;
      program.back().action = rule.action;
    }
    programs_.push_back(std::move(program));
  }
  for (const auto& literals : group_literals) literal_groups_.emplace_back(literals);
}

std::uint32_t CompiledRuleSet::rule_list_for(std::string_view host) const {
  // No scoped rules: every host runs list 0, without hashing the host.
  if (rule_lists_.size() == 1 || host.empty()) return 0;
  const std::size_t mask = host_table_.size() - 1;
  for (std::size_t i = hash_lower(host) & mask;; i = (i + 1) & mask) {
    const HostEntry& e = host_table_[i];
    if (e.host.empty()) return 0;
    if (equals_lower(host, e.host)) return e.list;
  }
}

RuleEvaluator::RuleEvaluator(const CompiledRuleSet& rules)
    : rules_(&rules),
      values_(kFirstHeader + rules.header_names_.size()),
      header_seen_(rules.header_names_.size()),
      lowered_(kFirstHeader + rules.header_names_.size()),
      groups_(rules.literal_groups_.size()),
      scanner_(rules.exploit_matcher_) {
  if (rules.rate_limit_) limiter_.emplace(*rules.rate_limit_);
}

void RuleEvaluator::resolve_headers() {
  headers_resolved_ = true;
  const CompiledRuleSet& set = *rules_;
  for (const HeaderView& h : request_->headers) {
    std::uint8_t k = set.header_by_length_[std::min<std::size_t>(h.name.size(), 63)];
    for (; k != CompiledRuleSet::kNoHeader; k = set.header_next_[k]) {
      if (equals_lower(h.name, set.header_names_[k])) {
        // The first occurrence of a repeated header is the one rules see.
        if (header_seen_[k] != generation_) {
          header_seen_[k] = generation_;
          values_[kFirstHeader + k] = h.value;
        }
        break;  // names are distinct: no other can match
      }
    }
  }
}

std::string_view RuleEvaluator::lowered_value(std::uint8_t slot) {
  Lowered& l = lowered_[slot];
  if (l.generation != generation_) {
    const std::string_view value = values_[slot];
    if (l.text.size() < value.size()) l.text.resize(value.size());
    l.view = lower_into(value, l.text.data());
    l.generation = generation_;
  }
  return l.view;
}

void RuleEvaluator::scan_literals(std::uint32_t group, std::string_view value) {
  GroupState& g = groups_[group];
  g.found = rules_->literal_groups_[group].find_all(value);
  g.generation = generation_;
}

inline std::uint64_t RuleEvaluator::literals_found(std::uint32_t group, std::string_view value) {
  if (groups_[group].generation != generation_) scan_literals(group, value);
  return groups_[group].found;
}

// Inlined into evaluate's loop: most conditions are a length check and a compare, cheaper than
// a call; the expensive steps (header lookup, literal scan, RE2) are calls of their own.
[[gnu::always_inline]] inline bool RuleEvaluator::holds(const CompiledRuleSet::Op& op) {
  if (op.slot >= kFirstHeader) {
    if (!headers_resolved_) resolve_headers();
    // An absent header satisfies no operator.
    if (header_seen_[op.slot - kFirstHeader] != generation_) return false;
  }
  const std::string_view v = values_[op.slot];
  const std::string_view n = op.needle;
  const CompiledRuleSet::Condition* c = op.condition;  // null for kAlways
  switch (op.kind) {
    case OpKind::kAlways:
    case OpKind::kPresent:
      return true;
    case OpKind::kInList:
      return c->table->lookup(request_->client_ip) != cidr::kNoMatch;
    case OpKind::kEquals:
      return v.size() == n.size() && same_bytes(v.data(), n.data(), n.size());
    case OpKind::kEqualsCi:
      return equals_lower(v, n);
    case OpKind::kPrefix:
      return v.size() >= n.size() && same_bytes(v.data(), n.data(), n.size());
    // Case-insensitive operators fold the request bytes as they compare (needles are lower
    // case): they touch too few bytes to pay for a lower-cased copy of the field.
    case OpKind::kPrefixCi:
      return v.size() >= n.size() && equals_lower(v.substr(0, n.size()), n);
    case OpKind::kSuffix:
      return v.size() >= n.size() && same_bytes(v.data() + v.size() - n.size(), n.data(), n.size());
    case OpKind::kSuffixCi:
      return v.size() >= n.size() && equals_lower(v.substr(v.size() - n.size()), n);
    case OpKind::kContains:
      return ((literals_found(op.group, v) >> op.shift) & 1) != 0;
    case OpKind::kRegexFiltered: {
      const std::uint64_t present =
          (literals_found(op.group, v) >> op.shift) & ((std::uint64_t{1} << c->atoms.size()) - 1);
      if (!c->may_match[present]) return false;
      return RE2::PartialMatch(v, *c->regex);
    }
    case OpKind::kRegex:
      return RE2::PartialMatch(v, *c->regex);
    case OpKind::kInSetPacked:
    case OpKind::kInSetPackedCi: {
      if (v.size() > 8) return false;
      std::uint64_t key = pack8(v);
      if (op.kind == OpKind::kInSetPackedCi) key = lower8(key);
      bool found = false;
      const std::size_t count = c->packed_bytes.size();
      const std::uint64_t* bytes = c->packed_bytes.data();
      const std::uint64_t* sizes = c->packed_sizes.data();
      for (std::size_t k = 0; k < count; ++k) found |= (bytes[k] == key) & (sizes[k] == v.size());
      return found;
    }
    case OpKind::kInSetSorted:
    case OpKind::kInSetSortedCi: {
      const std::string_view key = op.kind == OpKind::kInSetSortedCi ? lowered_value(op.slot) : v;
      return std::binary_search(c->values.begin(), c->values.end(), key,
                                [](std::string_view a, std::string_view b) { return a < b; });
    }
  }
  return false;
}

Verdict RuleEvaluator::evaluate(const RequestView& request, std::uint64_t now_ns) {
  Verdict v;
  if (limiter_ && !limiter_->allow(request.client_ip, now_ns)) {
    v.decision = Decision::kBlock;
    v.rate_limited = true;
    return v;
  }
  const auto& program = rules_->programs_[rules_->rule_list_for(request.host)];
  if (!program.empty()) {
    request_ = &request;
    ++generation_;
    headers_resolved_ = false;
    values_[kMethod] = request.method;
    values_[kScheme] = request.scheme;
    values_[kHost] = request.host;
    values_[kPath] = request.path;
    values_[kQuery] = request.query;
    values_[kBody] = request.body;
    values_[kCountry] = request.country;
    values_[kRawPath] = raw_or(request.raw_path, request.path);
    values_[kRawQuery] = raw_or(request.raw_query, request.query);
    values_[kRawBody] = raw_or(request.raw_body, request.body);
    for (std::size_t pc = 0; pc < program.size();) {
      const CompiledRuleSet::Op& op = program[pc];
      if (holds(op) == op.negate) {
        pc = op.fail;
      } else if (op.rule >= 0) {
        v.rule = op.rule;
        v.action = op.action;
        break;
      } else {
        ++pc;
      }
    }
    request_ = nullptr;
  }
  if (exploit_scan_follows(v.action) && rules_->exploit_mode_ != ExploitMode::kOff) {
    v.exploit = scanner_.scan(request);
    if (v.exploit == ExploitCategory::kNone && rules_->exploit_headers_) {
      v.exploit = scanner_.scan_headers(request);
    }
  }
  v.decision = decide(v.action, v.exploit, rules_->exploit_mode_);
  return v;
}

}  // namespace gatebench::rules
