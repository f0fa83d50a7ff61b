// gatebench: the one command users type. Dispatches to the subcommands in commands.hpp and maps
// errors to exit codes (2 bad input, 1 failure).
#include <exception>
#include <iostream>
#include <string>

#include "macro/common/stop_signal.hpp"
#include "macro/common/usage_error.hpp"
#include "tools/src/commands/commands.hpp"

namespace {

constexpr const char* kHelp =
    R"(usage: gatebench COMMAND [options]   (gatebench COMMAND --help for details)

commands:
  micro     run gatebench-micro (>= 9 repetitions, random interleaving) or, with
            --instructions, count instructions per iteration under callgrind
  macro     run gatebench-macro (the scenario driver; docs/scenarios.md)
  report    MICRO.json [MACRO.json] -o DIR: report.json, report.md, report.html
  attribution
            INSTRUCTIONS.json: the cost attribution in instructions per request, its
            remainder split over function groups from the callgrind files
  compare   BASE HEAD: the regression gate (exit 1 on a regression)
  profile   FILTER: callgrind profile of one micro benchmark, top functions, flame graph SVG
  run       micro + macro (--quick, or --full) + report into one directory
  history   add runs to the results history (SQLite), show its series with change points,
            check the newest points for a regression (docs/history.md)
  bisect    GOOD BAD --filter RE: the first commit where those benchmarks got slower
  target    check FILE|NAME: validate a target file, start it once, one request per
            feature (docs/targets.md)
  results   DIR/report.json -o docs/RESULTS.md: the results page of one gatebench run
  gate      BASE HEAD: build both commits, count instructions and system calls per
            request of each scenario, compare (exit 1 on a regression; docs/gating.md)

exit codes: 0 success, 1 failure or regression, 2 bad input, 128 + N stopped by signal N
)";

}  // namespace

int main(int argc, char** argv) {
  using namespace gatebench::tools;
  if (argc < 2) {
    std::cerr << kHelp;
    return 2;
  }
  const std::string command = argv[1];
  const CommandArgs args(argv + 2, argv + argc);
  try {
    if (command == "--help" || command == "-h" || command == "help") {
      std::cout << kHelp;
      return 0;
    }
    if (command == "compare") return command_compare(args);
    if (command == "micro") return command_micro(args);
    if (command == "report") return command_report(args);
    if (command == "attribution") return command_attribution(args);
    if (command == "profile") return command_profile(args);
    if (command == "macro") return command_macro(args);
    if (command == "run") return command_run(args);
    if (command == "history") return command_history(args);
    if (command == "bisect") return command_bisect(args);
    if (command == "target") return command_target(args);
    if (command == "results") return command_results(args);
    if (command == "gate") return command_gate(args);
    std::cerr << "gatebench: unknown command '" << command << "'\n" << kHelp;
    return 2;
  } catch (const gatebench::common::UsageError& e) {
    std::cerr << "gatebench " << command << ": " << e.what() << "\n";
    return 2;
  } catch (const gatebench::common::StopRequested& e) {
    std::cerr << "gatebench " << command << ": " << e.what() << "; stopped and cleaned up\n";
    return 128 + e.signo;
  } catch (const std::exception& e) {
    std::cerr << "gatebench " << command << ": failed: " << e.what() << "\n";
    return 1;
  }
}
