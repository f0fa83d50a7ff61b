#include "tools/src/commands/micro_inputs.hpp"

#include <sstream>
#include <stdexcept>

#include "macro/common/child_process.hpp"
#include "macro/common/usage_error.hpp"

namespace gatebench::tools {

std::vector<std::string> micro_input_args(const std::vector<std::string>& inputs) {
  std::vector<std::string> args;
  for (const std::string& input : inputs) {
    args.push_back("--input");
    args.push_back(input);
  }
  return args;
}

std::vector<std::string> list_micro_benchmarks(const std::string& bench, const std::string& filter,
                                               const std::vector<std::string>& args) {
  common::SpawnSpec spec =
      common::command({bench, "--benchmark_list_tests=true", "--benchmark_filter=" + filter});
  spec.args.insert(spec.args.end(), args.begin(), args.end());
  const common::CaptureResult run = common::capture(spec);
  std::string message = run.errors;
  while (!message.empty() && message.back() == '\n') message.pop_back();
  const int code = run.status == -1 ? -1 : common::exit_code(run.status);
  if (code == 2) throw common::UsageError("option --input: " + message);
  if (code != 0)
    throw std::runtime_error(
        bench + " --benchmark_list_tests failed (" +
        (run.status == -1 ? std::string("timed out") : common::describe_wait_status(run.status)) +
        "): " + message);
  std::vector<std::string> names;
  std::istringstream lines(run.output);
  std::string line;
  while (std::getline(lines, line))
    if (!line.empty()) names.push_back(line);
  return names;
}

}  // namespace gatebench::tools
