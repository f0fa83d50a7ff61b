// `gatebench macro` (hands over to gatebench-macro) and `gatebench run` (micro [+ macro] +
// report): the one-command paths users and ci/bench take.
#include <filesystem>
#include <iostream>

#include "macro/common/child_process.hpp"
#include "macro/common/command_line.hpp"
#include "macro/common/usage_error.hpp"
#include "tools/src/commands.hpp"
#include "tools/src/micro_binary.hpp"
#include "tools/src/results.hpp"

namespace gatebench::tools {

namespace {

constexpr const char* kRunHelp = R"(usage: gatebench run [options]

micro + macro + report in one go, into --out DIR:
  DIR/micro.json      gatebench micro (9 repetitions, random interleaving)
  DIR/macro/...       gatebench-macro --quick (default) or the full release run (--full:
                      every scenario, 5 s warm-up + 20 s measured each)
  DIR/report.{json,md,html}

options:
  --out DIR           results directory (default gatebench-results)
  --filter RE         micro benchmark filter (default: all)
  --repetitions N     micro repetitions (default 9)
  --full              full macro run instead of --quick
  --duration D        macro: measured run per scenario (passed to gatebench-macro)
  --connections N     macro: load-generator connections (passed to gatebench-macro)
  --scenarios LIST    macro: comma-separated scenarios (passed to gatebench-macro)
  --rounds N          macro: rounds per scenario (passed to gatebench-macro)
  --seed N            macro: seed of the round order (passed to gatebench-macro)
  --scenario-dir DIR  macro: scenario files (passed to gatebench-macro)
  --no-micro          skip micro        --no-macro   skip macro

The report is written whenever a step left a result to report, also when a macro scenario
failed: it shows every failed or skipped scenario with its reason.
exit: 0 ok, 1 a step or a macro scenario failed (after the report is written), 2 bad input
)";

// Whether macro.json holds a failed scenario; a file that cannot be read counts as a failure.
bool macro_failed(const std::string& file) {
  try {
    const ResultSet set = load_result_set(file);
    if (!set.macro) return true;
    for (const auto& s : set.macro->scenarios)
      if (s.status == "failed") return true;
    return false;
  } catch (const common::UsageError& e) {
    std::cerr << "gatebench run: " << e.what() << "\n";
    return true;
  }
}

}  // namespace

int command_macro(const CommandArgs& args) {
  if (!args.empty() && (args[0] == "--help" || args[0] == "-h")) {
    std::cout << "usage: gatebench macro [gatebench-macro options]\n\nRuns gatebench-macro "
                 "(docs/scenarios.md) with the same arguments; its --help follows.\n\n";
  }
  std::vector<std::string> cmd = {locate_macro_binary(std::nullopt)};
  cmd.insert(cmd.end(), args.begin(), args.end());
  return common::run_to_exit(common::command(cmd));
}

int command_run(const CommandArgs& argv) {
  const common::CommandLine args(argv,
                                 {"out", "filter", "repetitions", "duration", "connections",
                                  "scenarios", "rounds", "seed", "scenario-dir"},
                                 {"help", "full", "no-micro", "no-macro"});
  if (args.flag("help")) {
    std::cout << kRunHelp;
    return 0;
  }
  if (!args.positionals().empty()) throw common::UsageError("run takes no positional arguments");
  if (args.flag("no-micro") && args.flag("no-macro"))
    throw common::UsageError("--no-micro and --no-macro leave nothing to run");
  const std::string out = args.value_or("out", "gatebench-results");
  std::filesystem::create_directories(out);

  bool failed = false;
  std::string micro_json = "-", macro_json = "-";
  if (!args.flag("no-micro")) {
    const std::string file = out + "/micro.json";
    CommandArgs micro = {"--out",         file,
                         "--filter",      args.value_or("filter", "."),
                         "--repetitions", args.value_or("repetitions", "9")};
    std::cerr << "[gatebench run] micro ...\n";
    const int rc = command_micro(micro);
    if (rc == 2) return 2;
    if (rc != 0) {
      std::cerr << "gatebench run: gatebench micro exited with code " << rc << "\n";
      failed = true;
    }
    // A failed micro run may still have written its file; the report shows what it holds.
    if (rc == 0 || std::filesystem::exists(file)) micro_json = file;
  }
  if (!args.flag("no-macro")) {
    const std::string file = out + "/macro/macro.json";
    CommandArgs macro = {"--out", out + "/macro"};
    if (!args.flag("full")) macro.push_back("--quick");
    for (const char* opt :
         {"duration", "connections", "scenarios", "rounds", "seed", "scenario-dir"})
      if (auto v = args.value(opt)) {
        macro.push_back(std::string("--") + opt);
        macro.push_back(*v);
      }
    std::cerr << "[gatebench run] macro ...\n";
    std::filesystem::remove(file);  // never report a previous run's file
    const int rc = command_macro(macro);
    if (rc == 2) {
      std::cerr << "gatebench run: gatebench-macro rejected its input (exit 2)\n";
      return 2;
    }
    if (rc != 0) {
      std::cerr << "gatebench run: gatebench-macro exited with code " << rc << "\n";
      failed = true;
    }
    if (std::filesystem::exists(file)) {
      macro_json = file;
      failed = macro_failed(file) || failed;
    }
  }
  if (micro_json == "-" && macro_json == "-") {
    std::cerr << "gatebench run: no result to report\n";
    return 1;
  }
  std::cerr << "[gatebench run] report ...\n";
  const int rc = command_report({micro_json, macro_json, "-o", out});
  return rc != 0 ? rc : failed ? 1 : 0;
}

}  // namespace gatebench::tools
