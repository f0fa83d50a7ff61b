// Rule evaluator fuzz target. The input is cut into request fields (method, scheme, host, path,
// query, country, body and "name:value" headers, separated by '\n'; the first four bytes are the
// client address) and evaluated against the protected rule set (headers scanned and not) and a
// random rule set seeded by the input, twice: with the fields as given (nothing normalised), and
// as the gateway fills the view, the path and query normalised and the body decoded by its
// Content-Type with the raw bytes beside them (when they normalise). Checked on every input:
//   - no crash or sanitizer report;
//   - the exploit prefilter never changes a result: scanning a raw field equals running the
//     automaton on its decoded text, and a decoded text without trigger bytes matches nothing;
//   - the decision follows micro/core/rules/verdict.hpp from the rule action and exploit category;
//   - the verdict equals the naive engine's (micro/peers/rules_naive.cpp, compiled in), except
//     where either one rate-limits: the evaluator's fixed-size limiter table may evict a client
//     that the naive engine's unbounded map remembers, which is documented, not a bug.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "fixtures/rule_random.hpp"
#include "fixtures/rule_sets.hpp"
#include "micro/core/rules/body_fields.hpp"
#include "micro/core/rules/engine.hpp"
#include "micro/core/rules/exploit_scanner.hpp"
#include "micro/core/rules/loader.hpp"
#include "micro/core/rules/normalize.hpp"
#include "micro/peers/rules_naive.hpp"

namespace {

using namespace gatebench;

void check(bool ok) {
  if (!ok) __builtin_trap();
}

rules::RuleSet with_headers(rules::RuleSet set, bool headers) {
  set.exploit_headers = set.exploit_headers || headers;
  return set;
}

struct Engine {
  explicit Engine(const std::string& json, bool headers = false)
      : set(with_headers(rules::load_rule_set(json, "fuzz"), headers)),
        compiled(set),
        evaluator(compiled),
        naive(set) {}
  rules::RuleSet set;
  rules::CompiledRuleSet compiled;
  rules::RuleEvaluator evaluator;
  peers::NaiveRuleEngine naive;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static Engine protected_set(fixtures::rule_set_json("protected"));
  static Engine protected_headers(fixtures::rule_set_json("protected"), true);
  static const rules::ExploitMatcher matcher;
  static rules::ExploitScanner scanner(matcher);

  std::uint32_t ip = 0;
  for (std::size_t i = 0; i < 4 && i < size; ++i) ip = (ip << 8) | data[i];
  std::string_view rest(reinterpret_cast<const char*>(data), size);
  rest.remove_prefix(std::min<std::size_t>(4, size));
  std::vector<std::string_view> parts;
  while (!rest.empty() && parts.size() < 24) {
    const std::size_t nl = rest.find('\n');
    parts.push_back(rest.substr(0, nl));
    rest = nl == std::string_view::npos ? std::string_view() : rest.substr(nl + 1);
  }
  auto part = [&](std::size_t i) { return i < parts.size() ? parts[i] : std::string_view(); };
  std::vector<rules::HeaderView> headers;
  for (std::size_t i = 7; i < parts.size(); ++i) {
    const std::size_t colon = parts[i].find(':');
    headers.push_back({parts[i].substr(0, colon), colon == std::string_view::npos
                                                      ? std::string_view()
                                                      : parts[i].substr(colon + 1)});
  }
  rules::RequestView request;
  request.method = part(0);
  request.scheme = part(1);
  request.host = part(2);
  request.path = part(3);
  request.query = part(4);
  request.country = part(5);
  request.body = part(6);
  request.headers = headers;
  request.client_ip = ip;

  rules::RequestView normalised = request;
  std::vector<char> path(request.path.size() + 1), query(request.query.size() + 1),
      body(request.body.size() + 1);
  std::string_view text;
  if (rules::normalize_path(request.path, path.data(), text) == rules::NormalizeStatus::kOk) {
    normalised.raw_path = request.path;
    normalised.path = text;
  }
  if (rules::normalize_query(request.query, query.data(), text) == rules::NormalizeStatus::kOk) {
    normalised.raw_query = request.query;
    normalised.query = text;
  }
  std::string_view content_type, boundary;
  rules::find_header(request, "content-type", content_type);
  const rules::BodyFormat format = rules::body_format(content_type, boundary);
  if (format != rules::BodyFormat::kRaw &&
      rules::decode_body_fields(format, boundary, request.body, true, body.data(), text) ==
          rules::BodyStatus::kOk) {
    normalised.raw_body = request.body;
    normalised.body = text;
  }

  std::string decoded;
  for (const rules::RequestView* view : {&request, &normalised}) {
    for (const rules::ExploitField& f : rules::exploit_fields(*view)) {
      decoded.resize(f.raw.size());
      decoded.resize(rules::percent_decode_lower(f.raw, decoded.data(), f.plus).size());
      const rules::ExploitCategory want = matcher.match_decoded(decoded);
      check(scanner.scan_field(f.raw, f.plus) == want);
      if (!rules::exploit_may_match(decoded)) check(want == rules::ExploitCategory::kNone);
    }
  }

  // Compiling a rule set builds its exploit automata: too slow per input, so a fixed pool.
  static std::vector<std::unique_ptr<Engine>> random_sets = [] {
    std::vector<std::unique_ptr<Engine>> sets;
    fixtures::Rng rng = fixtures::Rng(fixtures::kDefaultSeed).fork("fuzz/rule_evaluator");
    for (int i = 0; i < 16; ++i)
      sets.push_back(std::make_unique<Engine>(fixtures::random_rule_set_json(rng)));
    return sets;
  }();
  Engine& random_set = *random_sets[size == 0 ? 0 : data[size - 1] % random_sets.size()];
  for (Engine* e : {&protected_set, &protected_headers, &random_set}) {
    for (const rules::RequestView* view : {&request, &normalised}) {
      const rules::Verdict v = e->evaluator.evaluate(*view, size * 1000);
      const rules::Verdict naive = e->naive.evaluate(*view, size * 1000);
      if (v.rate_limited || naive.rate_limited) continue;
      check(v == naive);
      check(v.decision == rules::decide(v.action, v.exploit, e->set.exploit_mode));
      check((v.rule >= 0) == (v.action != rules::RuleAction::kNone));
    }
  }
  return 0;
}
