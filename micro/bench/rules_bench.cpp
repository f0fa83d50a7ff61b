// rules/<impl>/<ruleset>/<traffic>: full rule evaluation per request (rate limit, rules, exploit
// scanning, decision) over seeded traffic (fixtures/traffic.hpp) and rule sets
// (fixtures/rule_sets.hpp). Impls: gatecore (CompiledRuleSet + RuleEvaluator), naive (every rule
// in order, each regex on its own, no host index, no prefilter: the differential oracle).
// Counters: items_per_second = requests/s; bytes_per_second = request bytes a rule engine may
// inspect (path, query, headers, body); malicious / caught / false_positives = one untimed pass
// over the traffic set (decision block on labelled / unlabelled requests).
// Ruleset "protected_inspected": the protected set as the gateway runs it on a host with rules:
// the target normalised first (rules/normalize.hpp), the body decoded into its fields
// (rules/body_fields.hpp), headers added to exploit scanning; beside rules/gatecore/protected it
// gives what inspection costs. A target that does not normalise counts as blocked (400).
// Ruleset or traffic "input": the --input rules or traffic file (docs/micro-input.md).
#include <benchmark/benchmark.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "fixtures/rule_sets.hpp"
#include "fixtures/traffic.hpp"
#include "micro/bench/bench_traffic.hpp"
#include "micro/bench/input_benchmarks.hpp"
#include "micro/core/rules/body_fields.hpp"
#include "micro/core/rules/engine.hpp"
#include "micro/core/rules/loader.hpp"
#include "micro/core/rules/normalize.hpp"
#include "micro/peers/rules_naive.hpp"

namespace {

using namespace gatebench;
using bench::traffic;

// Requests are 10 us apart: 100k r/s in all, far under the protected set's per-client limit.
constexpr std::uint64_t kTickNs = 10'000;

// Every rule set by name; "input" is the --input rule file, put here before any benchmark runs.
std::map<std::string, std::unique_ptr<rules::RuleSet>>& rule_sets() {
  static std::map<std::string, std::unique_ptr<rules::RuleSet>> cache;
  return cache;
}

const rules::RuleSet& rule_set(const std::string& name) {
  auto& slot = rule_sets()[name];
  if (!slot)
    slot =
        std::make_unique<rules::RuleSet>(rules::load_rule_set(fixtures::rule_set_json(name), name));
  return *slot;
}

std::size_t total_bytes(const fixtures::Traffic& t) {
  std::size_t n = 0;
  for (std::size_t i = 0; i < t.size(); ++i) n += t.inspected_bytes(i);
  return n;
}

template <typename Engine>
void run(benchmark::State& state, Engine& engine, const fixtures::Traffic& t, Engine& audit) {
  std::size_t i = 0;
  std::uint64_t now = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(engine.evaluate(t.view(i), now));
    now += kTickNs;
    if (++i == t.size()) i = 0;
  }
  const auto passes = static_cast<double>(state.iterations()) / static_cast<double>(t.size());
  state.SetItemsProcessed(state.iterations());
  state.SetBytesProcessed(static_cast<std::int64_t>(passes * static_cast<double>(total_bytes(t))));
  double malicious = 0, caught = 0, false_positives = 0;
  for (std::size_t k = 0; k < t.size(); ++k) {
    const bool attack = t.request(k).label != rules::ExploitCategory::kNone;
    const bool blocked = audit.evaluate(t.view(k), k * kTickNs).decision == rules::Decision::kBlock;
    malicious += attack;
    caught += attack && blocked;
    false_positives += !attack && blocked;
  }
  state.counters["malicious"] = malicious;
  state.counters["caught"] = caught;
  state.counters["false_positives"] = false_positives;
}

void BM_rules_gatecore(benchmark::State& state, std::string set_name, std::string kind) {
  const rules::CompiledRuleSet compiled(rule_set(set_name));
  rules::RuleEvaluator evaluator(compiled);
  rules::RuleEvaluator audit(compiled);
  run(state, evaluator, traffic(kind), audit);
}

// The gateway's steps before evaluation (macro/gateway/policy.cpp), into scratch buffers that
// grow to the largest request and are then reused.
class InspectingEvaluator {
 public:
  explicit InspectingEvaluator(const rules::CompiledRuleSet& compiled) : evaluator_(compiled) {}

  rules::Verdict evaluate(const rules::RequestView& request, std::uint64_t now_ns) {
    rules::RequestView v = request;
    const std::size_t need = v.path.size() + v.query.size() + 2;
    if (target_.size() < need) target_.resize(need);
    rules::NormalizeStatus st = rules::normalize_path(request.path, target_.data(), v.path);
    if (st == rules::NormalizeStatus::kOk) {
      st = rules::normalize_query(request.query, target_.data() + request.path.size() + 1, v.query);
    }
    rules::Verdict rejected;
    rejected.decision = rules::Decision::kBlock;
    if (st != rules::NormalizeStatus::kOk) return rejected;
    v.raw_path = request.path;
    v.raw_query = request.query;
    if (!request.body.empty()) {
      std::string_view content_type;
      rules::find_header(request, "content-type", content_type);
      std::string_view boundary;
      const rules::BodyFormat format = rules::body_format(content_type, boundary);
      if (body_.size() < request.body.size() + 1) body_.resize(request.body.size() + 1);
      if (rules::decode_body_fields(format, boundary, request.body, true, body_.data(), v.body) !=
          rules::BodyStatus::kOk) {
        return rejected;
      }
      v.raw_body = request.body;
    }
    return evaluator_.evaluate(v, now_ns);
  }

 private:
  rules::RuleEvaluator evaluator_;
  std::vector<char> target_;
  std::vector<char> body_;
};

void BM_rules_gatecore_inspected(benchmark::State& state, std::string kind) {
  rules::RuleSet set = rule_set("protected");
  set.exploit_headers = true;
  const rules::CompiledRuleSet compiled(set);
  InspectingEvaluator evaluator(compiled);
  InspectingEvaluator audit(compiled);
  run(state, evaluator, traffic(kind), audit);
}

void BM_rules_naive(benchmark::State& state, std::string set_name, std::string kind) {
  peers::NaiveRuleEngine engine(rule_set(set_name));
  peers::NaiveRuleEngine audit(rule_set(set_name));
  run(state, engine, traffic(kind), audit);
}

void register_case(const std::string& set, const std::string& kind) {
  const std::string suffix = set + "/" + kind;
  benchmark::RegisterBenchmark(("rules/gatecore/" + suffix).c_str(), BM_rules_gatecore, set, kind);
  benchmark::RegisterBenchmark(("rules/naive/" + suffix).c_str(), BM_rules_naive, set, kind);
}

constexpr const char* kSets[] = {"none", "protected", "vpatch100"};
constexpr const char* kKinds[] = {"clean", "post10", "mix"};

const int kRegistered = [] {
  for (const char* set : kSets) {
    for (const char* kind : kKinds) register_case(set, kind);
  }
  for (const char* kind : kKinds) {
    benchmark::RegisterBenchmark(
        (std::string("rules/gatecore/protected_inspected/") + kind).c_str(),
        BM_rules_gatecore_inspected, std::string(kind));
  }
  return 0;
}();

}  // namespace

namespace gatebench::bench {

void register_rules_inputs(std::unique_ptr<rules::RuleSet> input_set, bool traffic_input) {
  if (input_set) {
    rule_sets()["input"] = std::move(input_set);
    for (const char* kind : kKinds) register_case("input", kind);
    if (traffic_input) register_case("input", "input");
  }
  if (traffic_input) {
    for (const char* set : kSets) register_case(set, "input");
  }
}

}  // namespace gatebench::bench
