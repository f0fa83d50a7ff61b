#include <iostream>

#include "macro/common/command_line.hpp"
#include "macro/common/usage_error.hpp"
#include "tools/src/commands/commands.hpp"
#include "tools/src/report/attribution_breakdown.hpp"
#include "tools/src/results/json_file.hpp"

namespace gatebench::tools {

namespace {

constexpr const char* kAttributionHelp =
    R"(usage: gatebench attribution INSTRUCTIONS.json [options]

The cost attribution in instructions per request, with its remainder split over function
groups (docs/attribution.md). INSTRUCTIONS.json is gatebench-macro --instructions N's
instructions.json (gatebench.macro_instructions/1); the callgrind.out files it names (a relative
path is taken from its directory) give per function (I(2N) - I(N)) / N, scenario minus baseline,
grouped into hot path, parsing, copying, allocation, libc/syscalls, logging, OpenSSL,
gateway, other. A row agrees when |difference - micro| is within 20% of the difference or
within 10 instructions (what a count moves by with time inside the run).

options:
  --instructions FILE   micro instruction counts (gatebench micro --instructions,
                        gatebench.instructions/1, with their items per iteration): the micro
                        column
  --micro FILE          Google Benchmark JSON of the same suite: items per iteration of counts
                        written without them, and the server_ns counter that the
                        new-connection row scales by; a hot path with neither is listed as not
                        attributable, and its row has no remainder
  --attribution FILE    rules as for gatebench report (default: the built-in rules)
  --top K               functions listed per row (default 6)
  -o, --out FILE        write the Markdown here instead of standard output
  --json FILE           also write the rows as JSON (gatebench.attribution/1)
exit: 0 ok (a row whose callgrind files cannot be read says "no breakdown" and why), 2 bad input
)";

}  // namespace

int command_attribution(const CommandArgs& argv) {
  CommandArgs normalised;
  for (const auto& a : argv) normalised.push_back(a == "-o" ? "--out" : a);
  const common::CommandLine args(
      normalised, {"out", "instructions", "micro", "attribution", "top", "json"}, {"help"});
  if (args.flag("help")) {
    std::cout << kAttributionHelp;
    return 0;
  }
  const auto& pos = args.positionals();
  if (pos.size() != 1) throw common::UsageError("attribution needs INSTRUCTIONS.json (see --help)");
  const MacroInstructionRun macro_instructions = load_macro_instructions(pos[0]);
  std::optional<ResultSet> micro_set, instr_set;
  if (auto f = args.value("micro")) {
    micro_set = load_result_set(*f);
    if (!micro_set->micro)
      throw common::UsageError(*f + ": expected Google Benchmark JSON (micro)");
  }
  if (auto f = args.value("instructions")) {
    instr_set = load_result_set(*f);
    if (!instr_set->instructions)
      throw common::UsageError(*f + ": expected instruction counts (gatebench.instructions/1)");
  }
  std::size_t top = 6;
  if (auto t = args.value("top")) {
    try {
      top = std::stoul(*t);
    } catch (const std::exception&) {
      throw common::UsageError("--top: expected a count, got '" + *t + "'");
    }
  }
  const auto rules = args.value("attribution") ? load_attribution_rules(*args.value("attribution"))
                                               : default_attribution_rules();
  const MicroCounters counters =
      micro_set ? MicroCounters::from_gbench_json(load_json_file(micro_set->file))
                : MicroCounters{};
  ReportModel m = build_report_model(micro_set ? &*micro_set->micro : nullptr, nullptr,
                                     instr_set ? &*instr_set->instructions : nullptr, rules,
                                     &counters, &macro_instructions);
  m.macro_instructions_file = pos[0];
  if (instr_set) m.instructions_file = instr_set->file;
  const auto rows = attribution_breakdowns(m, top);
  const std::string md = breakdown_markdown(m, rows);
  if (auto f = args.value("out"))
    write_text_file(*f, md);
  else
    std::cout << md;
  if (auto f = args.value("json")) write_text_file(*f, breakdown_json(m, rows).dump(1) + "\n");
  return 0;
}

}  // namespace gatebench::tools
