// Several gatebench-micro runs of the same benchmarks -> one Google Benchmark JSON document.
//
// Why: on shared VMs a whole process can run a few percent fast or slow (code and data placement,
// the frequency and cache state it started in), and every repetition inside that process shares
// the shift. Spreading the repetitions over several processes turns such a shift into one sample
// among several instead of a move of the whole side, which is what the Mann-Whitney gate assumes
// (docs/gating.md has the measurements).
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace gatebench::tools {

// `runs` are parsed Google Benchmark JSON files (`names[i]` names runs[i] in errors). The result
// keeps runs[0]'s context (plus "gatebench_processes"), every iteration row of every run with
// repetition_index renumbered 0..N-1 and repetitions = N, and the mean/median/stddev/cv aggregate
// rows recomputed over all N repetitions the way Google Benchmark 1.7 writes them, so its
// compare.py and `gatebench compare` read the file unchanged. Per-run aggregate rows are dropped.
// Throws common::UsageError when a run has no benchmarks array or rows lack run_name/run_type.
nlohmann::json merge_gbench_runs(const std::vector<nlohmann::json>& runs,
                                 const std::vector<std::string>& names);

}  // namespace gatebench::tools
