// Sampling profile of one micro benchmark with `perf record -e cpu-clock`: a software clock
// event, which works on VMs without hardware counters, on the native build, so the profile shows
// the code the timed benchmark runs (AVX-512, SHA-NI), which valgrind cannot decode.
#pragma once

#include <istream>
#include <string>
#include <vector>

#include "tools/src/profile/stack_profile.hpp"

namespace gatebench::tools {

struct PerfOptions {
  std::string perf;                     // the perf executable
  std::string bench;                    // gatebench-micro
  std::vector<std::string> bench_args;  // more gatebench-micro arguments (--input KIND=FILE)
  std::string benchmark;                // one benchmark's exact name
  double seconds = 2;                   // --benchmark_min_time of the profiled run
  int frequency = 999;                  // samples per second
  std::string data_file;                // perf.data written here
  std::string log_file;                 // perf's and the benchmark's stderr
};

struct PerfProfile {
  StackProfile stacks;   // the benchmark function's samples, its frame first
  double left_out = 0;   // weight of samples outside it (start-up, Google Benchmark's runner)
  std::size_t kept = 0;  // samples kept
};

// Reads `perf script -F event,period,ip,sym,dso --no-inline` output. Each stack is cut below the
// benchmark function: the frames up to and including the outermost run of Google Benchmark frames
// (libbenchmark, or benchmark:: symbols when it is linked statically) go, and samples without
// such frames (dynamic loading, static initialisation) are counted in left_out. Throws
// std::runtime_error naming `file` and the line on text that is not perf script output.
// `whole_stacks`: every sample is kept with all its frames (a macro scenario's processes, which
// have no benchmark function to cut at).
PerfProfile parse_perf_script(std::istream& in, const std::string& file, bool whole_stacks = false);

// Runs the benchmark alone under perf record (DWARF call graphs: the release build keeps no frame
// pointers) and reads the samples back. Throws std::runtime_error with perf's message on failure.
PerfProfile record_perf(const PerfOptions& opt);

// perf record's arguments up to and including "--" (cpu-clock at `frequency` Hz, DWARF call
// graphs, no build-id pass at exit), writing `data_file`.
std::vector<std::string> perf_record_args(const std::string& perf, int frequency,
                                          const std::string& data_file);

// Reads perf.data back through perf script (its stderr to `log_file`); `whole_stacks` as for
// parse_perf_script.
PerfProfile read_perf_data(const std::string& perf, const std::string& data_file,
                           const std::string& log_file, bool whole_stacks);

}  // namespace gatebench::tools
