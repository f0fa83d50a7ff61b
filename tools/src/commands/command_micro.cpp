#include <chrono>
#include <filesystem>
#include <iostream>

#include "macro/common/child_process.hpp"
#include "macro/common/command_line.hpp"
#include "macro/common/usage_error.hpp"
#include "tools/src/commands/commands.hpp"
#include "tools/src/commands/micro_binary.hpp"
#include "tools/src/commands/micro_inputs.hpp"
#include "tools/src/profile/instruction_counter.hpp"
#include "tools/src/results/gbench_merge.hpp"
#include "tools/src/results/json_file.hpp"

namespace gatebench::tools {

namespace {

constexpr const char* kMicroHelp =
    R"(usage: gatebench micro [options] [-- extra gatebench-micro args]

Time mode (default): runs gatebench-micro with --benchmark_enable_random_interleaving=true,
N repetitions in all (>= 9, what `gatebench compare` needs) spread over P processes run one
after another, and writes Google Benchmark's JSON to --out: every repetition of every process,
with the mean/median/stddev/cv rows recomputed over all of them (compare.py reads it). Several
processes turn a whole-process shift (code placement, the state a process starts in) into one
sample among several instead of a move of the whole run; see docs/gating.md.

A/B in time mode: give --bench and --out twice, in the same order,
  gatebench micro --bench BASE --bench HEAD --out base.json --out head.json
and the processes alternate BASE HEAD BASE HEAD ..., so drift of the machine over the run hits
both sides alike. Each --out gets its binary's processes merged, with the binary in
context.gatebench_bench and each process's start time (microseconds since the epoch, in run
order) in context.gatebench_process_start_us.

Instruction mode (--instructions): runs each selected benchmark alone under
valgrind --tool=callgrind and records instructions per iteration (schema
gatebench.instructions/1), and the items it counts per iteration (items_per_iteration: its
SetItemsProcessed over one short native run of the same binary, 1 when it counts none), so a
report divides a batched benchmark by its batch without --micro. Google Benchmark 1.7.1 has no
fixed-iteration flag, so the loop is isolated by callgrind dumps at
State::StartKeepRunning()/FinishKeepRunning() and its iteration search (1, 10, 100, 1000 with a
huge --benchmark_min_time) supplies known iteration counts; per iteration =
(L(1000) - L(100)) / 900. See docs/gating.md. valgrind 3.19 cannot run AVX-512 code: point
--bench at a build made with -DGATEBENCH_MARCH=x86-64-v3.

options:
  --filter RE         Google Benchmark filter regex (default: all)
  --repetitions N     time mode repetitions in all (default 9, minimum 9)
  --processes P       time mode: spread the repetitions over P processes (default: one per
                      repetition; 1 = one plain gatebench-micro run)
  --instructions      instruction mode
  --out FILE          output file (default micro.json, or instructions.json); time mode: one
                      per --bench, in the same order
  --bench PATH        gatebench-micro to run (default: $GATEBENCH_MICRO, the same build tree
                      as this gatebench, then build/release/micro/bench/gatebench-micro); time
                      mode: repeat it to alternate the processes of several binaries
  --work-dir DIR      instruction mode: where callgrind files are kept (default OUT.d)
  --input KIND=FILE   time mode: run the benchmarks of KIND on FILE too (access_log.tsv,
                      access_log.combined, access_log.jsonl, rules, traffic, cidr, tokens;
                      repeatable; docs/micro-input.md); a bad file is named with its line, exit 2
  --budget IR         instruction mode: skip a loop run predicted above IR instructions
                      (default 2e9, ~20 s under callgrind); at least 100 iterations are needed
exit: 0 ok, 1 a run failed, 2 bad input
)";

struct RemoveOnExit {
  std::string path;  // empty: nothing to remove
  ~RemoveOnExit() {
    std::error_code ignored;
    if (!path.empty()) std::filesystem::remove(path, ignored);
  }
};

struct TimeRun {
  std::string filter;
  long repetitions = 9, processes = 9;
  std::vector<std::string> extra;  // after --, passed to every gatebench-micro process
};

struct TimeSide {
  std::string bench, out;
  std::vector<nlohmann::json> runs;
  std::vector<std::string> parts;
  nlohmann::json starts_us = nlohmann::json::array();
};

long long now_us() {
  return std::chrono::duration_cast<std::chrono::microseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// Process p of every side before process p + 1 of any: with --bench BASE --bench HEAD the
// processes go BASE HEAD BASE HEAD ..., so a runner that drifts slower or faster over the run
// moves both sides alike instead of shifting one against the other.
int run_time_mode(const TimeRun& run, std::vector<TimeSide>& sides) {
  const bool plain = sides.size() == 1 && run.processes == 1;
  long left = run.repetitions;
  for (long p = 0; p < run.processes; ++p) {
    const long these = (left + (run.processes - p) - 1) / (run.processes - p);  // spread evenly
    left -= these;
    for (std::size_t s = 0; s < sides.size(); ++s) {
      TimeSide& side = sides[s];
      const std::string part =
          plain ? side.out : side.out + ".part" + std::to_string(p + 1) + ".json";
      std::vector<std::string> cmd = {side.bench,
                                      "--benchmark_filter=" + run.filter,
                                      "--benchmark_repetitions=" + std::to_string(these),
                                      "--benchmark_enable_random_interleaving=true",
                                      "--benchmark_out=" + part,
                                      "--benchmark_out_format=json"};
      cmd.insert(cmd.end(), run.extra.begin(), run.extra.end());
      if (!plain)
        std::cerr << "gatebench micro: process " << p + 1 << "/" << run.processes
                  << (sides.size() > 1 ? " of " + side.bench : std::string()) << ", " << these
                  << " repetitions\n";
      // A part file is read back at once and removed whatever happens: only --out is output.
      const RemoveOnExit remove_part{plain ? "" : part};
      side.starts_us.push_back(now_us());
      const int rc = common::run_to_exit(common::command(cmd));
      if (rc != 0) {
        std::cerr << "gatebench micro: " << side.bench << " exited with code " << rc << "\n";
        return 1;
      }
      if (!plain) {
        side.runs.push_back(load_json_file(part));
        side.parts.push_back(part);
      }
    }
  }
  for (TimeSide& side : sides) {
    if (!plain) {
      nlohmann::json merged = merge_gbench_runs(side.runs, side.parts);
      merged["context"]["gatebench_bench"] = side.bench;
      merged["context"]["gatebench_process_start_us"] = side.starts_us;
      write_text_file(side.out, merged.dump(2) + "\n");
    }
    std::cerr << "gatebench micro: wrote " << side.out << "\n";
  }
  return 0;
}

}  // namespace

int command_micro(const CommandArgs& argv) {
  std::vector<std::string> own, extra;
  bool after_dashes = false;
  for (const auto& a : argv) {
    if (!after_dashes && a == "--") {
      after_dashes = true;
      continue;
    }
    (after_dashes ? extra : own).push_back(a);
  }
  const common::CommandLine args(
      own, {"filter", "repetitions", "processes", "out", "bench", "work-dir", "budget", "input"},
      {"help", "instructions"});
  if (args.flag("help")) {
    std::cout << kMicroHelp;
    return 0;
  }
  if (!args.positionals().empty())
    throw common::UsageError("micro takes no positional arguments (got '" + args.positionals()[0] +
                             "')");
  const std::string filter = args.value_or("filter", ".");

  if (!args.flag("instructions")) {
    // At least 9 are needed for the Mann-Whitney U gate.
    const long reps = args.integer("repetitions", 9, 100'000).value_or(9);
    // One process per repetition by default: the A/A study in docs/gating.md measured whole-process
    // shifts of up to 7%, which only more processes average out.
    const long processes = args.integer("processes", 1, reps).value_or(reps);
    std::vector<std::string> benches = args.values("bench"), outs = args.values("out");
    if (benches.size() > 1 && outs.size() != benches.size())
      throw common::UsageError("option --out: give one per --bench (" +
                               std::to_string(benches.size()) + " --bench, " +
                               std::to_string(outs.size()) + " --out), in the same order");
    if (benches.size() <= 1 && outs.size() > 1)
      throw common::UsageError("option --out: one file per --bench (one --bench given)");
    if (benches.empty()) benches.push_back(locate_micro_binary(std::nullopt));
    if (outs.empty()) outs.push_back("micro.json");
    for (std::size_t i = 0; i < outs.size(); ++i)
      for (std::size_t j = 0; j < i; ++j)
        if (outs[i] == outs[j])
          throw common::UsageError("option --out: '" + outs[i] + "' given twice");
    std::vector<TimeSide> sides;
    for (std::size_t i = 0; i < benches.size(); ++i) {
      TimeSide& side = sides.emplace_back();
      side.bench = locate_micro_binary(benches[i]);
      side.out = outs[i];
    }
    const std::vector<std::string> inputs = micro_input_args(args.values("input"));
    extra.insert(extra.end(), inputs.begin(), inputs.end());
    // A bad file: exit 2 now, not a failed run (1) in every process.
    if (!inputs.empty())
      for (const auto& side : sides) list_micro_benchmarks(side.bench, filter, extra);
    TimeRun run{filter, reps, processes, extra};
    return run_time_mode(run, sides);
  }

  if (args.values("bench").size() > 1)
    throw common::UsageError("option --bench: instruction mode takes one (counts do not drift)");
  if (!extra.empty() || !args.values("input").empty())
    throw common::UsageError(
        "instruction mode takes no extra gatebench-micro arguments (--input is time mode only)");
  const std::string bench = locate_micro_binary(args.value("bench"));
  InstructionOptions opt;
  opt.bench = bench;
  opt.budget = args.number("budget").value_or(opt.budget);
  if (opt.budget < 1e6) throw common::UsageError("option --budget: at least 1e6 instructions");
  opt.valgrind = common::find_on_path("valgrind");
  if (opt.valgrind.empty())
    throw std::runtime_error("valgrind not found (apt-get install valgrind)");
  const std::string out = args.value_or("out", "instructions.json");
  opt.work_dir = args.value_or("work-dir", out + ".d");
  std::filesystem::create_directories(opt.work_dir);

  const auto names = list_benchmarks(bench, filter);
  if (names.empty())
    throw common::UsageError("option --filter: no benchmark matches '" + filter + "'");
  InstructionRun run;
  run.env = {
      {"tool", "callgrind"},
      {"bench", bench},
      {"method", "loop dumps at StartKeepRunning/FinishKeepRunning, iterations 1,10,100,1000"},
      {"valgrind", common::output_of({opt.valgrind, "--version"})}};
  if (!run.env["valgrind"].get<std::string>().empty() &&
      run.env["valgrind"].get<std::string>().back() == '\n') {
    auto v = run.env["valgrind"].get<std::string>();
    v.pop_back();
    run.env["valgrind"] = v;
  }
  std::map<std::string, double> items;
  try {
    items = items_per_iteration(bench, filter);
  } catch (const std::exception& e) {
    // The counts stand without it; the report then needs --micro for batched benchmarks.
    std::cerr << "gatebench micro: no items per iteration (" << e.what() << ")\n";
  }
  int failed = 0;
  for (const auto& name : names) {
    InstructionCount c = count_instructions(name, opt);
    if (const auto it = items.find(name); it != items.end()) c.items_per_iteration = it->second;
    if (c.error.empty()) {
      std::cerr << name << ": " << c.per_iteration << " instructions/iteration\n";
    } else {
      std::cerr << name << ": " << c.error << "\n";
      ++failed;
    }
    run.benchmarks.push_back(std::move(c));
  }
  write_text_file(out, instructions_to_json(run).dump(1) + "\n");
  std::cerr << "gatebench micro: wrote " << out << " (" << names.size() - failed << " of "
            << names.size() << " counted)\n";
  return 0;
}

}  // namespace gatebench::tools
