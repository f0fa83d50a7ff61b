// `gatebench results`: docs/RESULTS.md made from one `gatebench run` (its report.md, report.json
// and run.json), with what the figures stand on: the command, the commit and whether its tree was
// clean, the machine, its load average, steal and busy share at the start and the end, and the
// share of the CPU other processes took during the run. A run from a dirty
// tree or on a loaded machine makes a draft page, never a quiet-machine one.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tools/src/results/report_file.hpp"

namespace gatebench::tools {

// A run that started at this load average (1 min) or more shared the machine: its CPU figures
// carry other work (the studies' rule since 2026-12-01: quiet runs only). Read only from a
// run.json without the measured shares below.
inline constexpr double kQuietLoadAverage = 1.5;
// Other processes' share of the machine's CPU (all CPUs) in the second before the run, and over
// the run with its own process tree subtracted: above these the run shared the machine. A
// quiet 2-vCPU VM reads well under 1% for either (the kernel's and the session's own daemons).
inline constexpr double kQuietBusyPercent = 10.0;
inline constexpr double kQuietOthersPercent = 5.0;
// Steal above this share of CPU time: the hypervisor took the CPUs from the run.
inline constexpr double kQuietStealPercent = 2.0;

struct ResultsInputs {
  nlohmann::json run;     // run.json (gatebench.run/1); null when the run left none
  ReportFile report;      // report.json
  std::string report_md;  // report.md, the figures themselves
  std::string command;    // the `gatebench results ...` that writes the page
};

// Why the run does not stand for a quiet machine and a clean tree; empty when it does.
std::vector<std::string> draft_reasons(const ResultsInputs& in);

// The page: a header naming the run and, for a draft, why; then report.md one heading level down.
std::string results_page(const ResultsInputs& in);

}  // namespace gatebench::tools
