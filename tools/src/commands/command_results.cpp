// `gatebench results REPORT.json -o FILE [--draft]`: docs/RESULTS.md from one `gatebench run`.
#include <filesystem>
#include <iostream>

#include "macro/common/command_line.hpp"
#include "macro/common/usage_error.hpp"
#include "tools/src/commands/commands.hpp"
#include "tools/src/report/results_page.hpp"
#include "tools/src/results/json_file.hpp"
#include "tools/src/results/report_file.hpp"

namespace gatebench::tools {

namespace {

constexpr const char* kResultsHelp = R"(usage: gatebench results DIR/report.json -o FILE [--draft]

Writes FILE (docs/RESULTS.md) from one `gatebench run --out DIR`: its report.md one heading
level down, under a header naming the run's command, commit and tree (clean or dirty), machine,
and load average and steal at the run's start and end (DIR/run.json).

A run from a tree with uncommitted changes, started at a load average of 1.5 or more, with steal
above 2% at its start or end, or without run.json is not a quiet clean run: without --draft the
command refuses it (exit 2, saying why); with --draft the page is written marked as a draft,
with the reasons.

options:
  -o, --out FILE   the page to write
  --draft          write a run that is not quiet and clean, marked as a draft
exit: 0 written, 1 failure writing, 2 bad input or a run that needs --draft
)";

}  // namespace

int command_results(const CommandArgs& argv) {
  CommandArgs normalised;
  for (const auto& a : argv) normalised.push_back(a == "-o" ? "--out" : a);
  const common::CommandLine args(normalised, {"out"}, {"help", "draft"});
  if (args.flag("help")) {
    std::cout << kResultsHelp;
    return 0;
  }
  const auto& pos = args.positionals();
  if (pos.size() != 1) throw common::UsageError("results needs one REPORT.json (see --help)");
  const auto out = args.value("out");
  if (!out) throw common::UsageError("results needs -o FILE");

  ResultsInputs in;
  const nlohmann::json report = load_json_file(pos[0]);
  if (!report.is_object() || report.value("schema", "") != kReportSchema)
    throw common::UsageError(pos[0] + ": /schema: expected " + kReportSchema +
                             " (gatebench run's report.json)");
  in.report = report_file_from_json(common::JsonField(report, pos[0]));
  const std::filesystem::path dir = std::filesystem::path(pos[0]).parent_path();
  const std::string md = (dir / "report.md").string();
  if (!std::filesystem::exists(md))
    throw common::UsageError(md + ": not found (gatebench report writes it beside report.json)");
  in.report_md = read_text_file(md);
  const std::filesystem::path run = dir / "run.json";
  if (std::filesystem::exists(run)) in.run = load_json_file(run.string());
  in.command =
      "gatebench results " + pos[0] + " -o " + *out + (args.flag("draft") ? " --draft" : "");

  const auto why = draft_reasons(in);
  if (!why.empty() && !args.flag("draft")) {
    std::string list;
    for (const auto& w : why) list += "\n  " + w;
    throw common::UsageError(pos[0] + ": not a quiet run from a clean tree:" + list +
                             "\n(--draft writes the page marked as a draft)");
  }
  write_text_file(*out, results_page(in));
  std::cout << *out << (why.empty() ? "\n" : " (draft)\n");
  return 0;
}

}  // namespace gatebench::tools
