// gatebench-micro's entry point: Google Benchmark's own main plus the context a reader of
// micro.json needs to reproduce the inputs.
#include <benchmark/benchmark.h>

#include <string>

#include "build_info/build_info.hpp"
#include "fixtures/rng.hpp"

int main(int argc, char** argv) {
  benchmark::AddCustomContext("gatebench_fixtures_seed",
                              std::to_string(gatebench::fixtures::kDefaultSeed));
  // The code measured, not the checkout's HEAD when the run happened.
  benchmark::AddCustomContext("gatebench_commit", std::string(gatebench::build_commit()));
  benchmark::AddCustomContext("gatebench_dirty", gatebench::build_dirty() ? "true" : "false");
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 2;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
