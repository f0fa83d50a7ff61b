// `gatebench macro` (hands over to gatebench-macro) and `gatebench run` (micro [+ macro] +
// report): the one-command paths users and ci/bench take.
#include <filesystem>
#include <iostream>

#include "tools/src/args.hpp"
#include "tools/src/bad_input.hpp"
#include "tools/src/commands.hpp"
#include "tools/src/micro_binary.hpp"
#include "tools/src/process.hpp"

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
  --no-micro          skip micro        --no-macro   skip macro
exit: 0 ok, 1 a step failed, 2 bad input
)";

}  // namespace

int command_macro(const CommandArgs& args) {
  if (!args.empty() && (args[0] == "--help" || args[0] == "-h")) {
    std::cout << "usage: gatebench macro [gatebench-macro options]\n\nRuns gatebench-macro "
                 "(docs/scenarios.md) with the same arguments; its --help follows.\n\n";
  }
  std::vector<std::string> cmd = {locate_macro_binary(std::nullopt)};
  cmd.insert(cmd.end(), args.begin(), args.end());
  return run_process(cmd);
}

int command_run(const CommandArgs& argv) {
  const Args args(argv, {"out", "filter", "repetitions", "duration", "connections", "scenarios"},
                  {"help", "full", "no-micro", "no-macro"});
  if (args.flag("help")) {
    std::cout << kRunHelp;
    return 0;
  }
  if (!args.positionals().empty()) throw BadInput("run takes no positional arguments");
  if (args.flag("no-micro") && args.flag("no-macro"))
    throw BadInput("--no-micro and --no-macro leave nothing to run");
  const std::string out = args.value_or("out", "gatebench-results");
  std::filesystem::create_directories(out);

  std::string micro_json = "-", macro_json = "-";
  if (!args.flag("no-micro")) {
    micro_json = out + "/micro.json";
    CommandArgs micro = {"--out",         micro_json,
                         "--filter",      args.value_or("filter", "."),
                         "--repetitions", args.value_or("repetitions", "9")};
    std::cerr << "[gatebench run] micro ...\n";
    if (const int rc = command_micro(micro); rc != 0) return rc;
  }
  if (!args.flag("no-macro")) {
    CommandArgs macro = {"--out", out + "/macro"};
    if (!args.flag("full")) macro.push_back("--quick");
    for (const char* opt : {"duration", "connections", "scenarios"})
      if (auto v = args.value(opt)) {
        macro.push_back(std::string("--") + opt);
        macro.push_back(*v);
      }
    std::cerr << "[gatebench run] macro ...\n";
    if (const int rc = command_macro(macro); rc != 0) {
      std::cerr << "gatebench run: gatebench-macro exited with code " << rc << "\n";
      return rc == 2 ? 2 : 1;
    }
    macro_json = out + "/macro/macro.json";
  }
  std::cerr << "[gatebench run] report ...\n";
  return command_report({micro_json, macro_json, "-o", out});
}

}  // namespace gatebench::tools
