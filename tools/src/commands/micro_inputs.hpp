// `--input KIND=FILE` of `gatebench micro` and `gatebench profile` (docs/micro-input.md): the
// options are forwarded to gatebench-micro, which checks the files itself; asking it for its list
// of benchmarks first turns a bad file into exit 2 before anything is measured or profiled.
#pragma once

#include <string>
#include <vector>

namespace gatebench::tools {

// "--input", FILE-SPEC, ... for each value given, in order.
std::vector<std::string> micro_input_args(const std::vector<std::string>& inputs);

// The benchmarks `bench --benchmark_list_tests=true --benchmark_filter=FILTER ARGS` lists: with
// --input among ARGS, the rows over those files too. Throws common::UsageError with
// gatebench-micro's message when it rejects an input (its exit 2), std::runtime_error when it
// fails otherwise.
std::vector<std::string> list_micro_benchmarks(const std::string& bench, const std::string& filter,
                                               const std::vector<std::string>& args);

}  // namespace gatebench::tools
