// gatebench-micro's entry point: Google Benchmark's own main plus the context a reader of
// micro.json needs to reproduce the inputs.
#include <benchmark/benchmark.h>

#include <string>

#include "fixtures/rng.hpp"

int main(int argc, char** argv) {
  benchmark::AddCustomContext("gatebench_fixtures_seed", std::to_string(gatebench::fixtures::kDefaultSeed));
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 2;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
