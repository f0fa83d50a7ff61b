// A tiny Google Benchmark executable for the callgrind tests (instruction mode, profile): built
// without sanitizers and without AVX-512 so valgrind can run it in every preset. Its loops do a
// fixed, data-independent amount of work, so the instruction counts have exact expectations.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <vector>

namespace {

__attribute__((noinline)) std::uint64_t mix(std::uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  return x ^ (x >> 29);
}

void sum(benchmark::State& state, int rounds) {
  std::vector<std::uint64_t> data(256);
  for (std::size_t i = 0; i < data.size(); ++i) data[i] = i * 7919;
  for (auto _ : state) {
    std::uint64_t s = 0;
    for (int r = 0; r < rounds; ++r)
      for (std::uint64_t v : data) s += mix(v + static_cast<std::uint64_t>(r));
    benchmark::DoNotOptimize(s);
  }
}

// 256 items per iteration, as the cidr and access-log benchmarks count a batch of addresses or
// lines per iteration.
void batch(benchmark::State& state) {
  sum(state, 1);
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()) * 256);
}

void skipped(benchmark::State& state) {
  state.SkipWithError("skipped: fixture");
}

}  // namespace

BENCHMARK_CAPTURE(sum, once, 1)->Name("fixture/gatecore/once");
BENCHMARK_CAPTURE(sum, twice, 2)->Name("fixture/gatecore/twice");
BENCHMARK(batch)->Name("fixture/gatecore/batch_256");
BENCHMARK(skipped)->Name("fixture/peer/skipped");
BENCHMARK_MAIN();
