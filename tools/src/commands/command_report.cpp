#include <filesystem>
#include <iostream>

#include "macro/common/command_line.hpp"
#include "macro/common/usage_error.hpp"
#include "tools/src/commands/commands.hpp"
#include "tools/src/report/report_writers.hpp"
#include "tools/src/results/json_file.hpp"

namespace gatebench::tools {

namespace {

constexpr const char* kReportHelp =
    R"(usage: gatebench report MICRO.json [MACRO.json] -o DIR [options]

Writes DIR/report.json (schema gatebench.report/1, docs/report.md), DIR/report.md (for a CI job
summary) and DIR/report.html (self-contained: inline SVG, no network). MICRO.json is Google
Benchmark's JSON (gatebench micro); MACRO.json is gatebench-macro's (gatebench.macro/2, or /1).
Either may be "-" to leave it out, but one of them or --macro-instructions is needed. Failed and skipped scenarios are reported
with their reasons; the exit status does not depend on them (the gate is gatebench compare).

options:
  -o, --out DIR          output directory (created)
  --instructions FILE    also include instruction counts (gatebench micro --instructions)
  --macro-instructions FILE
                         instructions per request end to end (gatebench-macro --instructions N,
                         gatebench.macro_instructions/1): the attribution in instructions
  --attribution FILE     cost attribution rules (JSON array of {label, scenario, baseline,
                         micro: [regex...], counter?}); default: the built-in rules in
                         docs/report.md
exit: 0 ok, 1 failure writing, 2 bad input
)";

}  // namespace

int command_report(const CommandArgs& argv) {
  CommandArgs normalised;
  for (const auto& a : argv) normalised.push_back(a == "-o" ? "--out" : a);
  const common::CommandLine args(
      normalised, {"out", "instructions", "macro-instructions", "attribution"}, {"help"});
  if (args.flag("help")) {
    std::cout << kReportHelp;
    return 0;
  }
  const auto& pos = args.positionals();
  if (pos.empty() || pos.size() > 2)
    throw common::UsageError("report needs MICRO.json [MACRO.json] (see --help)");
  const auto out = args.value("out");
  if (!out) throw common::UsageError("report needs -o DIR");

  std::optional<ResultSet> micro_set, macro_set, instr_set;
  if (pos[0] != "-") {
    micro_set = load_result_set(pos[0]);
    if (!micro_set->micro)
      throw common::UsageError(pos[0] + ": expected Google Benchmark JSON (micro)");
  }
  if (pos.size() == 2 && pos[1] != "-") {
    macro_set = load_result_set(pos[1]);
    if (!macro_set->macro)
      throw common::UsageError(pos[1] + ": expected macro.json (gatebench.macro/2 or /1)");
  }
  if (!micro_set && !macro_set && !args.value("macro-instructions"))
    throw common::UsageError(
        "report needs at least one of MICRO.json, MACRO.json, --macro-instructions FILE");
  if (auto f = args.value("instructions")) {
    instr_set = load_result_set(*f);
    if (!instr_set->instructions)
      throw common::UsageError(*f + ": expected instruction counts (gatebench.instructions/1)");
  }
  std::optional<MacroInstructionRun> macro_instructions;
  if (auto f = args.value("macro-instructions")) macro_instructions = load_macro_instructions(*f);
  const auto rules = args.value("attribution") ? load_attribution_rules(*args.value("attribution"))
                                               : default_attribution_rules();

  // User counters (tls's server_ns) are read from the micro file itself: the model keeps none.
  const MicroCounters counters =
      micro_set ? MicroCounters::from_gbench_json(load_json_file(micro_set->file))
                : MicroCounters{};
  ReportModel m = build_report_model(
      micro_set ? &*micro_set->micro : nullptr, macro_set ? &*macro_set->macro : nullptr,
      instr_set ? &*instr_set->instructions : nullptr, rules, &counters,
      macro_instructions ? &*macro_instructions : nullptr);
  if (macro_instructions) m.macro_instructions_file = *args.value("macro-instructions");
  if (micro_set) m.micro_file = micro_set->file;
  if (macro_set) {
    m.macro_file = macro_set->file;
    m.mix_statuses =
        load_mix_statuses(*macro_set->macro, std::filesystem::path(macro_set->file).parent_path());
  }
  if (instr_set) m.instructions_file = instr_set->file;

  std::filesystem::create_directories(*out);
  const std::string dir = *out;
  write_text_file(dir + "/report.json", report_json(m).dump(1) + "\n");
  write_text_file(dir + "/report.md", report_markdown(m));
  write_text_file(dir + "/report.html", report_html(m));
  std::cout << dir << "/report.json\n" << dir << "/report.md\n" << dir << "/report.html\n";
  return 0;
}

}  // namespace gatebench::tools
