#include "micro/core/rule_engine.hpp"

#include <algorithm>
#include <bit>
#include <cstring>
#include <stdexcept>

#include "micro/core/request_ascii.hpp"

namespace gatebench::core {
namespace {

enum SlotIndex : std::uint8_t {
  kMethod,
  kScheme,
  kHost,
  kPath,
  kQuery,
  kBody,
  kCountry,
  kFirstHeader
};

std::uint64_t hash_lower(std::string_view text) {
  std::uint64_t h = 0xcbf29ce484222325ull;  // FNV-1a over the lower-cased bytes
  for (char c : text) h = (h ^ static_cast<unsigned char>(lower_ascii(c))) * 0x100000001b3ull;
  return h;
}

std::string lowered(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = lower_ascii(c);
  return out;
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
  std::unique_ptr<RE2> regex;
  const Ipv4Table* table = nullptr;
};

CompiledRuleSet::~CompiledRuleSet() = default;

CompiledRuleSet::CompiledRuleSet(const RuleSet& set) : exploit_mode_(set.exploit_mode) {
  if (set.rate_limit.enabled) {
    rate_limit_ = GcraConfig{set.rate_limit.rate_per_second, set.rate_limit.burst,
                             set.rate_limit.table_entries};
  }
  std::vector<std::string> table_names;
  auto table_for = [&](const std::string& name) -> const Ipv4Table* {
    for (std::size_t i = 0; i < table_names.size(); ++i) {
      if (table_names[i] == name) return ip_tables_[i].get();
    }
    auto it = set.ip_lists.find(name);
    if (it == set.ip_lists.end())
      throw std::invalid_argument("rules: unknown ip list \"" + name + "\"");
    std::vector<CidrEntry> entries;
    entries.reserve(it->second.size());
    for (const Ipv4Prefix& p : it->second) entries.push_back(CidrEntry{p, 1});
    ip_tables_.push_back(std::make_unique<Ipv4Table>(Ipv4Table::build(entries)));
    table_names.push_back(name);
    return ip_tables_.back().get();
  };
  auto header_slot = [&](const std::string& name) {
    auto it = std::find(header_names_.begin(), header_names_.end(), name);
    if (it == header_names_.end()) it = header_names_.insert(header_names_.end(), name);
    return static_cast<std::uint8_t>(kFirstHeader + (it - header_names_.begin()));
  };

  for (std::size_t r = 0; r < set.rules.size(); ++r) {
    const core::Rule& src = set.rules[r];
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
          c.slot = kPath;
          c.cost = 2;
          break;
        case RuleField::kQuery:
          c.slot = kQuery;
          c.cost = 2;
          break;
        case RuleField::kHeader:
          c.slot = header_slot(sc.header);
          c.cost = 3;
          break;
        case RuleField::kBody:
          c.slot = kBody;
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
}

std::uint32_t CompiledRuleSet::rule_list_for(std::string_view host) const {
  if (host_table_.empty() || host.empty()) return 0;
  const std::size_t mask = host_table_.size() - 1;
  for (std::size_t i = hash_lower(host) & mask;; i = (i + 1) & mask) {
    const HostEntry& e = host_table_[i];
    if (e.host.empty()) return 0;
    if (equals_lower(host, e.host)) return e.list;
  }
}

RuleEvaluator::RuleEvaluator(const CompiledRuleSet& rules)
    : rules_(&rules),
      slots_(kFirstHeader + rules.header_names_.size()),
      scanner_(rules.exploit_matcher_) {
  if (rules.rate_limit_) limiter_.emplace(*rules.rate_limit_);
}

void RuleEvaluator::resolve_headers() {
  headers_resolved_ = true;
  const auto& names = rules_->header_names_;
  for (std::size_t k = 0; k < names.size(); ++k) slots_[kFirstHeader + k].present = false;
  for (const HeaderView& h : request_->headers) {
    for (std::size_t k = 0; k < names.size(); ++k) {
      Slot& s = slots_[kFirstHeader + k];
      // The first occurrence of a repeated header is the one rules see.
      if (!s.present && equals_lower(h.name, names[k])) {
        s.value = h.value;
        s.present = true;
      }
    }
  }
}

bool RuleEvaluator::test(const CompiledRuleSet::Condition& c) {
  bool result;
  if (c.op == RuleOperator::kInList) {
    result = c.table->lookup(request_->client_ip) != kNoMatch;
  } else {
    if (c.slot >= kFirstHeader && !headers_resolved_) resolve_headers();
    Slot& s = slots_[c.slot];
    if (!s.present) return c.negate;  // an absent header satisfies no operator
    std::string_view v = s.value;
    if (c.lower) {
      if (s.lowered_generation != generation_) {
        if (s.lowered.size() < v.size()) s.lowered.resize(v.size());
        s.lowered_view = lower_into(v, s.lowered.data());
        s.lowered_generation = generation_;
      }
      v = s.lowered_view;
    }
    const std::string_view n = c.needle;
    switch (c.op) {
      case RuleOperator::kEquals:
        result = v.size() == n.size() && std::memcmp(v.data(), n.data(), n.size()) == 0;
        break;
      case RuleOperator::kPrefix:
        result = v.size() >= n.size() && std::memcmp(v.data(), n.data(), n.size()) == 0;
        break;
      case RuleOperator::kSuffix:
        result = v.size() >= n.size() &&
                 std::memcmp(v.data() + v.size() - n.size(), n.data(), n.size()) == 0;
        break;
      case RuleOperator::kContains:
        result = n.empty() || (v.size() >= n.size() &&
                               memmem(v.data(), v.size(), n.data(), n.size()) != nullptr);
        break;
      case RuleOperator::kInSet:
        result = std::binary_search(c.values.begin(), c.values.end(), v,
                                    [](std::string_view a, std::string_view b) { return a < b; });
        break;
      case RuleOperator::kRegex:
        result = RE2::PartialMatch(v, *c.regex);
        break;
      default:
        result = false;
        break;
    }
  }
  return result != c.negate;
}

bool RuleEvaluator::matches(const CompiledRuleSet::Rule& rule) {
  for (const auto& c : rule.conditions) {
    if (!test(c)) return false;
  }
  return true;
}

Verdict RuleEvaluator::evaluate(const RequestView& request, std::uint64_t now_ns) {
  Verdict v;
  if (limiter_ && !limiter_->allow(request.client_ip, now_ns)) {
    v.decision = Decision::kBlock;
    v.rate_limited = true;
    return v;
  }
  const auto& list = rules_->rule_lists_[rules_->rule_list_for(request.host)];
  if (!list.empty()) {
    request_ = &request;
    ++generation_;
    headers_resolved_ = false;
    const std::string_view direct[kFirstHeader] = {request.method, request.scheme, request.host,
                                                   request.path,   request.query,  request.body,
                                                   request.country};
    for (int i = 0; i < kFirstHeader; ++i) {
      slots_[i].value = direct[i];
      slots_[i].present = true;
    }
    for (std::uint32_t r : list) {
      const auto& rule = rules_->rules_[r];
      if (matches(rule)) {
        v.rule = rule.index;
        v.action = rule.action;
        break;
      }
    }
    request_ = nullptr;
  }
  if (exploit_scan_follows(v.action) && rules_->exploit_mode_ != ExploitMode::kOff) {
    v.exploit = scanner_.scan(request);
  }
  v.decision = decide(v.action, v.exploit, rules_->exploit_mode_);
  return v;
}

}  // namespace gatebench::core
