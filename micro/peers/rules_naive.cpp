#include "micro/peers/rules_naive.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <stdexcept>
#include <string>

#include "micro/core/rules/request_ascii.hpp"

namespace gatebench::peers {
namespace {

std::string lower_copy(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = rules::lower_ascii(c);
  return out;
}

}  // namespace

NaiveGcra::NaiveGcra(double rate_per_second, std::uint32_t burst)
    : interval_ns_(std::max<std::uint64_t>(
          1, static_cast<std::uint64_t>(std::llround(1e9 / rate_per_second)))),
      tolerance_ns_(interval_ns_ * burst) {}

bool NaiveGcra::allow(std::uint32_t key, std::uint64_t now_ns) {
  auto [it, fresh] = tat_.try_emplace(key, now_ns);
  const std::uint64_t tat = std::max(it->second, now_ns);
  if (tat - now_ns > tolerance_ns_) return false;
  it->second = tat + interval_ns_;
  return true;
}

NaiveRuleEngine::NaiveRuleEngine(const rules::RuleSet& rules) : rules_(rules) {
  for (const rules::Rule& rule : rules_.rules) {
    auto& row = regexes_.emplace_back();
    for (const rules::RuleCondition& c : rule.conditions) {
      if (c.op != rules::RuleOperator::kRegex) {
        row.push_back(nullptr);
        continue;
      }
      RE2::Options options;
      options.set_log_errors(false);
      options.set_case_sensitive(!c.case_insensitive);
      row.push_back(std::make_unique<RE2>(c.value, options));
      if (!row.back()->ok()) throw std::invalid_argument("naive rules: bad regex " + c.value);
    }
  }
  RE2::Options agent_options;
  agent_options.set_encoding(RE2::Options::EncodingLatin1);
  agent_options.set_log_errors(false);
  scanner_agents_ = std::make_unique<RE2>(rules::scanner_agent_pattern(), agent_options);
  if (!scanner_agents_->ok()) throw std::invalid_argument("naive rules: scanner agent pattern");
  if (rules_.rate_limit.enabled) {
    limiter_ =
        std::make_unique<NaiveGcra>(rules_.rate_limit.rate_per_second, rules_.rate_limit.burst);
  }
}

NaiveRuleEngine::~NaiveRuleEngine() = default;

bool NaiveRuleEngine::test(const rules::RuleCondition& c, std::size_t rule_index,
                           const rules::RequestView& r) const {
  using rules::RuleField;
  using rules::RuleOperator;
  if (c.op == RuleOperator::kInList) {
    const auto& list = rules_.ip_lists.at(c.list);
    bool in = false;
    for (const cidr::Ipv4Prefix& p : list) in = in || p.contains(r.client_ip);
    return in != c.negate;
  }
  std::string_view value;
  switch (c.field) {
    case RuleField::kMethod:
      value = r.method;
      break;
    case RuleField::kScheme:
      value = r.scheme;
      break;
    case RuleField::kHost:
      value = r.host;
      break;
    case RuleField::kPath:
      value = c.raw ? rules::raw_or(r.raw_path, r.path) : r.path;
      break;
    case RuleField::kQuery:
      value = c.raw ? rules::raw_or(r.raw_query, r.query) : r.query;
      break;
    case RuleField::kCountry:
      value = r.country;
      break;
    case RuleField::kBody:
      value = c.raw ? rules::raw_or(r.raw_body, r.body) : r.body;
      break;
    case RuleField::kHeader:
      if (!rules::find_header(r, c.header, value)) return c.negate;
      break;
    case RuleField::kClientIp:
      return c.negate;  // only in_list applies, handled above
  }
  bool result = false;
  if (c.op == RuleOperator::kRegex) {
    const auto& regexes = regexes_[rule_index];
    const std::size_t slot =
        static_cast<std::size_t>(&c - rules_.rules[rule_index].conditions.data());
    result = RE2::PartialMatch(value, *regexes[slot]);
    return result != c.negate;
  }
  const std::string v = c.case_insensitive ? lower_copy(value) : std::string(value);
  const std::string needle = c.case_insensitive ? lower_copy(c.value) : c.value;
  switch (c.op) {
    case RuleOperator::kEquals:
      result = v == needle;
      break;
    case RuleOperator::kPrefix:
      result = v.starts_with(needle);
      break;
    case RuleOperator::kSuffix:
      result = v.ends_with(needle);
      break;
    case RuleOperator::kContains:
      result = v.find(needle) != std::string::npos;
      break;
    case RuleOperator::kInSet:
      for (const std::string& candidate : c.values) {
        result = result || (c.case_insensitive ? lower_copy(candidate) : candidate) == v;
      }
      break;
    default:
      break;
  }
  return result != c.negate;
}

rules::ExploitCategory NaiveRuleEngine::scan_value(std::string_view raw,
                                                   rules::PlusMode plus) const {
  std::string decoded(raw.size(), '\0');
  decoded.resize(rules::percent_decode_lower(raw, decoded.data(), plus).size());
  return exploit_.match_decoded(decoded);
}

rules::ExploitCategory NaiveRuleEngine::scan_cookie(std::string_view header) const {
  std::istringstream pairs{std::string(header)};
  for (std::string pair; std::getline(pairs, pair, ';');) {
    pair.erase(0, pair.find_first_not_of(' '));
    const std::size_t eq = pair.find('=');
    rules::ExploitCategory c = scan_value(pair.substr(0, eq), rules::PlusMode::kKeep);
    if (c == rules::ExploitCategory::kNone && eq != std::string::npos) {
      c = scan_value(pair.substr(eq + 1), rules::PlusMode::kKeep);
    }
    if (c != rules::ExploitCategory::kNone) return c;
  }
  return rules::ExploitCategory::kNone;
}

rules::ExploitCategory NaiveRuleEngine::scan_headers(const rules::RequestView& r) const {
  using rules::ExploitCategory;
  using rules::PlusMode;
  for (const rules::HeaderView& h : r.headers) {
    const std::string name = lower_copy(h.name);
    if (h.value.empty() || name == "host" || name == "content-length") continue;
    ExploitCategory c = ExploitCategory::kNone;
    if (name == "cookie") {
      c = scan_cookie(h.value);
    } else if (name == "referer") {
      std::string target(h.value);
      if (const std::size_t scheme = target.find("://"); scheme != std::string::npos) {
        const std::size_t path = target.find_first_of("/?", scheme + 3);
        target = path == std::string::npos ? std::string() : target.substr(path);
      }
      c = scan_value(target, PlusMode::kToSpace);
    } else if (name == "user-agent") {
      if (RE2::PartialMatch(lower_copy(h.value), *scanner_agents_)) {
        return ExploitCategory::kScannerAgent;
      }
      c = scan_value(h.value, PlusMode::kKeep);
    } else {
      c = scan_value(h.value, PlusMode::kKeep);
    }
    if (c != ExploitCategory::kNone) return c;
  }
  return ExploitCategory::kNone;
}

rules::Verdict NaiveRuleEngine::evaluate(const rules::RequestView& request, std::uint64_t now_ns) {
  rules::Verdict v;
  if (limiter_ && !limiter_->allow(request.client_ip, now_ns)) {
    v.decision = rules::Decision::kBlock;
    v.rate_limited = true;
    return v;
  }
  for (std::size_t i = 0; i < rules_.rules.size(); ++i) {
    const rules::Rule& rule = rules_.rules[i];
    bool in_scope = rule.hosts.empty();
    for (const std::string& h : rule.hosts) in_scope = in_scope || lower_copy(request.host) == h;
    if (!in_scope) continue;
    bool all = true;
    for (const rules::RuleCondition& c : rule.conditions) all = all && test(c, i, request);
    if (all) {
      v.rule = static_cast<std::int32_t>(i);
      v.action = rule.action;
      break;
    }
  }
  if (rules::exploit_scan_follows(v.action) && rules_.exploit_mode != rules::ExploitMode::kOff) {
    v.exploit = exploit_.scan(request);
    if (v.exploit == rules::ExploitCategory::kNone && rules_.exploit_headers) {
      v.exploit = scan_headers(request);
    }
  }
  v.decision = rules::decide(v.action, v.exploit, rules_.exploit_mode);
  return v;
}

}  // namespace gatebench::peers
