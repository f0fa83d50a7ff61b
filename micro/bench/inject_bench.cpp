// gate/calibrated/work: a benchmark whose work grows by a known percentage, for measuring the
// regression gate itself (docs/gating.md). GATEBENCH_INJECT_SLOWDOWN=P (percent, e.g. 5 or 1.5)
// adds P% of the base work plus one unit, the unit covering the constant per-iteration loop
// overhead so the whole iteration is at least P% slower (in instructions exactly so, in time
// up to noise). Unset or 0: the base work. The work is a dependent chain of integer mixes: no
// memory traffic, no data-dependent branches, identical instruction count on every iteration.
#include <benchmark/benchmark.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string>

namespace {

constexpr std::int64_t kBaseUnits = 2000;

std::int64_t units_for(double percent) {
  if (percent <= 0) return kBaseUnits;
  return kBaseUnits + static_cast<std::int64_t>(std::ceil(kBaseUnits * percent / 100.0)) + 1;
}

void BM_calibrated_work(benchmark::State& state) {
  double percent = 0;
  if (const char* env = std::getenv("GATEBENCH_INJECT_SLOWDOWN")) {
    char* end = nullptr;
    percent = std::strtod(env, &end);
    if (end == env || *end != '\0' || percent < 0 || percent > 1000) {
      state.SkipWithError("GATEBENCH_INJECT_SLOWDOWN: expected a percentage 0..1000");
      return;
    }
  }
  const std::int64_t units = units_for(percent);
  std::uint64_t x = 0x9e3779b97f4a7c15ULL;
  for (auto _ : state) {
    for (std::int64_t i = 0; i < units; ++i) {
      x ^= x >> 31;
      x *= 0xbf58476d1ce4e5b9ULL;
      benchmark::DoNotOptimize(x);
    }
  }
  state.counters["inject_percent"] = percent;
  state.SetItemsProcessed(state.iterations());
}

}  // namespace

BENCHMARK(BM_calibrated_work)->Name("gate/calibrated/work");
