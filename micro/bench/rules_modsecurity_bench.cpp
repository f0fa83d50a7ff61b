// rules/modsecurity/crs/<traffic>: libmodsecurity3 with the OWASP CRS at paranoia level 1 over the
// same seeded traffic as rules/gatecore (fixtures/traffic.hpp): one Transaction per request
// (connection, URI, headers, body, intervention after phases 1 and 2). The CRS is loaded once per
// process (about a second). Counters as rules_bench.cpp: items_per_second = requests/s,
// bytes_per_second = path + query + headers + body; malicious / caught / false_positives = one
// untimed pass over the traffic set (a clean request the CRS blocks is a false positive).
// Without libmodsecurity-dev or the CRS files the benchmarks report "skipped: <reason>".
// Traffic "input": the --input traffic file (docs/micro-input.md).
#include <benchmark/benchmark.h>

#include <exception>
#include <map>
#include <memory>
#include <string>

#include "fixtures/traffic.hpp"
#include "micro/bench/bench_traffic.hpp"
#include "micro/bench/input_benchmarks.hpp"
#include "micro/peers/rules_modsecurity.hpp"

namespace {

using namespace gatebench;
using bench::traffic;

struct Crs {
  std::unique_ptr<peers::ModSecurityCrs> engine;
  std::string error;  // why engine is null, as the benchmark reports it
};

Crs& crs() {
  static Crs c = [] {
    Crs loaded;
    if (const std::string reason = peers::ModSecurityCrs::missing_reason(); !reason.empty()) {
      loaded.error = "skipped: " + reason;
      return loaded;
    }
    try {
      loaded.engine = std::make_unique<peers::ModSecurityCrs>();
    } catch (const std::exception& e) {
      loaded.error = e.what();  // the rules are there but do not load: a failure, not a skip
    }
    return loaded;
  }();
  return c;
}

struct Audit {
  double malicious = 0, caught = 0, false_positives = 0;
};

const Audit& audit(const std::string& kind, peers::ModSecurityCrs& engine) {
  static std::map<std::string, Audit> cache;
  if (const auto it = cache.find(kind); it != cache.end()) return it->second;
  const fixtures::Traffic& t = traffic(kind);
  Audit a;
  for (std::size_t k = 0; k < t.size(); ++k) {
    const bool attack = t.request(k).label != rules::ExploitCategory::kNone;
    const bool blocked = engine.evaluate(t.view(k)).blocked;
    a.malicious += attack;
    a.caught += attack && blocked;
    a.false_positives += !attack && blocked;
  }
  return cache[kind] = a;
}

void BM_rules_modsecurity(benchmark::State& state, std::string kind) {
  Crs& c = crs();
  if (!c.engine) {
    state.SkipWithError(c.error.c_str());
    return;
  }
  const fixtures::Traffic& t = traffic(kind);
  const Audit& a = audit(kind, *c.engine);
  std::size_t bytes = 0;
  for (std::size_t k = 0; k < t.size(); ++k) bytes += t.inspected_bytes(k);
  std::size_t i = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(c.engine->evaluate(t.view(i)));
    if (++i == t.size()) i = 0;
  }
  const auto passes = static_cast<double>(state.iterations()) / static_cast<double>(t.size());
  state.SetItemsProcessed(state.iterations());
  state.SetBytesProcessed(static_cast<std::int64_t>(passes * static_cast<double>(bytes)));
  state.counters["malicious"] = a.malicious;
  state.counters["caught"] = a.caught;
  state.counters["false_positives"] = a.false_positives;
  state.SetLabel(c.engine->version() + ", CRS paranoia level 1");
}

void register_kind(const std::string& kind) {
  benchmark::RegisterBenchmark(("rules/modsecurity/crs/" + kind).c_str(), BM_rules_modsecurity,
                               kind);
}

const int kRegistered = [] {
  for (const char* kind : {"clean", "post10", "mix"}) register_kind(kind);
  return 0;
}();

}  // namespace

void gatebench::bench::register_modsecurity_input() {
  register_kind("input");
}
