// `gatebench bisect GOOD BAD --filter RE`: the first commit whose benchmarks got slower, found by
// binary search over the first-parent history with compare's verdict as the predicate and a
// third answer, "not sure", that measures again instead of guessing (docs/history.md).
#include <re2/re2.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <map>
#include <memory>
#include <optional>

#include "macro/common/command_line.hpp"
#include "macro/common/private_dir.hpp"
#include "macro/common/stop_signal.hpp"
#include "macro/common/usage_error.hpp"
#include "tools/src/commands/commands.hpp"
#include "tools/src/commands/git_worktree.hpp"
#include "tools/src/compare/compare.hpp"
#include "tools/src/results/format.hpp"

namespace gatebench::tools {

namespace {

constexpr const char* kBisectHelp = R"(usage: gatebench bisect GOOD BAD --filter RE [options]
       gatebench bisect GOOD BAD --scenario NAME [options]

The first commit after GOOD, up to BAD (git revisions of --repo; first-parent history), where
the benchmarks matching RE got slower. Each measured commit is checked out in one detached git
worktree, built with --build and measured with --bench; its micro.json is compared with GOOD's
as `gatebench compare` does in time mode (Mann-Whitney U over the repetitions and a minimum
change of the median), and only the rows matching RE decide:
  a regression                                              -> bad
  every row an improvement or a change below half --min-change -> good
  anything else (significant but small, large but not significant, too few repetitions)
                                                            -> not sure: measured again, at
                                                               most --max-measurements times
BAD must be a regression against GOOD. GOOD, BAD and about log2(commits) more are built.

With --scenario, each commit's macro binaries run that scenario (and its baseline) for --rounds
rounds and its macro.json is compared as `gatebench compare` does on macro runs; the scenario's
status and its CPU per request (cpu_vs_load) decide: failed while GOOD was ok, or a regression
-> bad; an improvement or a change below half --min-change -> good; else not sure. Throughput
and p99 are shown, not used: at these round counts they catch far less and alarm more
(docs/gating.md).

options:
  --filter RE             benchmarks that decide (RE2, anywhere in the name); this or --scenario
  --scenario NAME         macro: the scenario that decides (docs/scenarios.md)
  --rounds N              macro: rounds per measurement (default 10: docs/gating.md)
  --repo DIR              the git repository (default .)
  --build CMD             shell command run in the worktree before measuring a commit
                          (default: configure build/bisect in Release without tests or macro,
                          build gatebench-micro; its output goes to the build log in --work)
  --bench CMD             shell command run in the worktree that writes Google Benchmark JSON to
                          $GATEBENCH_OUT ($GATEBENCH_FILTER holds RE, $GATEBENCH this executable;
                          default: "$GATEBENCH" micro --bench build/bisect/micro/bench/gatebench-micro
                          --filter "$GATEBENCH_FILTER" --out "$GATEBENCH_OUT"); with --scenario a
                          macro.json ($GATEBENCH_SCENARIO, $GATEBENCH_ROUNDS; default: the
                          worktree's build/bisect/macro/driver/gatebench-macro on its own
                          macro/scenarios, macro.json copied to $GATEBENCH_OUT)
  --work DIR              worktree DIR/tree and measurements DIR/<n>-<commit>.json (default: a
                          new directory under $TMPDIR; the worktree is removed at the end)
  --min-change PCT        minimum change of a regression (default 3%, docs/gating.md; with
                          --scenario the minimum rise of cpu_vs_load, default 5%)
  --alpha A               significance level (default 0.05)
  --min-repetitions N     repetitions needed per side (default 9; macro: ok rounds, default 5)
  --max-measurements N    measurements of one commit before giving up (default 3)
  --instructions          instruction mode: the default build is for x86-64-v3 and the default
                          bench counts instructions under callgrind (gatebench micro
                          --instructions); a count above --instructions-threshold is bad, any
                          other good (counts are deterministic: never "not sure")
  --instructions-threshold PCT  (default 1%)

exit: 0 the first bad commit found (printed with the comparison that shows it), 1 not found
(BAD is no regression, a build or a run failed, a commit stayed "not sure"), 2 bad input
)";

// Instruction mode builds for x86-64-v3: valgrind 3.19 cannot run AVX-512 (docs/gating.md).
std::string default_build(bool instructions) {
  return std::string(
             "cmake -S . -B build/bisect -DCMAKE_BUILD_TYPE=Release "
             "-DGATEBENCH_BUILD_TESTS=OFF -DGATEBENCH_BUILD_MACRO=OFF") +
         (instructions ? " -DGATEBENCH_MARCH=x86-64-v3" : "") +
         " && cmake --build build/bisect --target gatebench-micro -j2";
}
// Macro mode builds the four role executables, not the micro suite or the tests.
const char* kMacroBuild =
    "cmake -S . -B build/bisect -DCMAKE_BUILD_TYPE=Release -DGATEBENCH_BUILD_TESTS=OFF "
    "-DGATEBENCH_BUILD_BENCH=OFF && cmake --build build/bisect -j2 --target gatebench-macro "
    "gatebench-load gatebench-gateway gatebench-control";
// The commit's own driver on the commit's own scenario files, so a scenario that changed is
// measured as that commit defined it.
const char* kMacroBench =
    "build/bisect/macro/driver/gatebench-macro --scenario-dir macro/scenarios --scenarios "
    "\"$GATEBENCH_SCENARIO\" --rounds \"$GATEBENCH_ROUNDS\" --out \"$GATEBENCH_OUT.d\" && cp "
    "\"$GATEBENCH_OUT.d/macro.json\" \"$GATEBENCH_OUT\"";

std::string default_bench(bool instructions) {
  return std::string("\"$GATEBENCH\" micro") + (instructions ? " --instructions" : "") +
         " --bench build/bisect/micro/bench/gatebench-micro --filter \"$GATEBENCH_FILTER\" "
         "--out \"$GATEBENCH_OUT\"";
}

enum class Answer { good, bad, not_sure };

const char* answer_name(Answer a) {
  return a == Answer::good ? "good" : a == Answer::bad ? "bad" : "not sure";
}

struct Search {
  std::string repo, filter, build, bench, work;
  std::string scenario;  // macro mode when set
  std::string rounds = "10";
  std::size_t max_measurements = 3;
  CompareOptions compare;
  std::vector<std::string> commits;  // GOOD first, BAD last
  std::unique_ptr<Worktree> tree;
  std::string built;  // the commit the worktree holds, built
  std::size_t builds = 0, measurements = 0;

  std::map<std::string, std::string> environment() const {
    return {{"GATEBENCH", self_exe()},
            {"GATEBENCH_FILTER", filter},
            {"GATEBENCH_SCENARIO", scenario},
            {"GATEBENCH_ROUNDS", rounds}};
  }

  int shell(const std::string& cmd, const std::string& log) const {
    return run_shell(cmd, tree->dir(), log, environment());
  }

  ResultSet measure(std::size_t i) {
    const std::string& sha = commits[i];
    if (built != sha) {
      git(tree->dir(), {"checkout", "--quiet", "--detach", sha});
      const std::string log = work + "/build-" + sha.substr(0, 12) + ".log";
      ++builds;
      if (shell(build, log) != 0)
        throw std::runtime_error("the build failed at " + sha + " (log: " + log + ")");
      built = sha;
    }
    ++measurements;
    const std::string out =
        work + "/" + std::to_string(measurements) + "-" + sha.substr(0, 12) + ".json";
    const std::string log = out + ".log";
    auto env = environment();
    env["GATEBENCH_OUT"] = out;
    if (run_shell(bench, tree->dir(), log, env) != 0)
      throw std::runtime_error("the benchmark failed at " + sha + " (log: " + log + ")");
    return load_result_set(out);
  }

  // Macro mode: the scenario's rows; its status row and its CPU row decide.
  Answer judge_macro(const Comparison& c, Comparison& shown) const {
    shown = c;
    shown.rows.clear();
    for (const auto& r : c.rows)
      if (r.section == "macro" && r.name == scenario) shown.rows.push_back(r);
    if (shown.rows.empty())
      throw common::UsageError("--scenario '" + scenario + "' is in neither macro.json");
    std::optional<Answer> answer;
    for (const auto& r : shown.rows) {
      const bool deciding = r.measure == "scenario" || r.measure == "cpu_vs_load" ||
                            r.measure == "cpu_us_per_request";
      if (!deciding) continue;
      if (r.verdict == Verdict::regression) return Answer::bad;
      const bool small =
          r.verdict == Verdict::no_change && r.change && *r.change < compare.cpu_threshold / 2;
      if (r.measure != "scenario")
        answer = r.verdict == Verdict::improvement || small ? Answer::good : Answer::not_sure;
      else if (r.verdict != Verdict::no_change)
        answer = Answer::not_sure;  // skipped: a side failed, so nothing to compare yet
    }
    return answer.value_or(Answer::not_sure);
  }

  // compare's rows for the benchmarks matching the filter, and the answer they give.
  Answer judge(const ResultSet& good, const ResultSet& head, Comparison& shown) const {
    Comparison c = compare_result_sets(good, head, compare);
    if (!scenario.empty()) return judge_macro(c, shown);
    const RE2 re(filter, RE2::Quiet);
    shown = c;
    shown.rows.clear();
    for (const auto& r : c.rows)
      if ((r.section == "micro" || r.section == "instructions") && RE2::PartialMatch(r.name, re))
        shown.rows.push_back(r);
    if (shown.rows.empty())
      throw common::UsageError("--filter '" + filter + "' matches no benchmark of both " +
                               good.file + " and " + head.file);
    bool all_good = true;
    for (const auto& r : shown.rows) {
      if (r.verdict == Verdict::regression) return Answer::bad;
      if (r.section == "instructions" && r.verdict != Verdict::skipped) continue;
      const bool small =
          r.verdict == Verdict::no_change && r.change && *r.change < compare.min_change / 2;
      if (r.verdict != Verdict::improvement && !small) all_good = false;
    }
    return all_good ? Answer::good : Answer::not_sure;
  }

  Answer decide(std::size_t i, const ResultSet& good, Comparison& shown) {
    Answer a = Answer::not_sure;
    for (std::size_t k = 0; k < max_measurements && a == Answer::not_sure; ++k) {
      a = judge(good, measure(i), shown);
      std::cout << "commit " << i << "/" << commits.size() - 1 << " " << commits[i].substr(0, 12)
                << ": " << answer_name(a);
      for (const auto& r : shown.rows)
        std::cout << (&r == &shown.rows.front() ? " (" : ", ") << r.name << " "
                  << (scenario.empty() ? "" : r.measure + " ")
                  << (r.change ? fmt_percent(*r.change) : "–")
                  << " p=" << (r.p_value ? fmt_sig(*r.p_value, 2) : "–");
      std::cout << ")" << (a == Answer::not_sure ? ", measuring again" : "") << "\n";
    }
    return a;
  }
};

}  // namespace

int command_bisect(const CommandArgs& argv) {
  const common::CommandLine args(
      argv,
      {"filter", "scenario", "rounds", "repo", "build", "bench", "work", "min-change", "alpha",
       "min-repetitions", "max-measurements", "instructions-threshold"},
      {"help", "instructions"});
  if (args.flag("help")) {
    std::cout << kBisectHelp;
    return 0;
  }
  if (args.positionals().size() != 2)
    throw common::UsageError("bisect needs two commits, GOOD and BAD (see --help)");
  Search s;
  s.filter = args.value_or("filter", "");
  s.scenario = args.value_or("scenario", "");
  const bool macro = !s.scenario.empty();
  const bool instructions = args.flag("instructions");
  if (macro == !s.filter.empty())
    throw common::UsageError("bisect needs either --filter RE or --scenario NAME (see --help)");
  if (macro && instructions)
    throw common::UsageError("--instructions: micro only (not with --scenario)");
  if (const RE2 re(s.filter, RE2::Quiet); !macro && !re.ok())
    throw common::UsageError("--filter: not a valid RE2 expression: " + re.error());
  if (!macro && args.value("rounds"))
    throw common::UsageError("--rounds: macro only (with --scenario)");
  if (macro) s.rounds = std::to_string(args.integer("rounds", 1, 1000).value_or(10));
  s.repo = std::filesystem::absolute(args.value_or("repo", ".")).string();
  s.build = args.value_or("build", macro ? std::string(kMacroBuild) : default_build(instructions));
  s.bench = args.value_or("bench", macro ? std::string(kMacroBench) : default_bench(instructions));
  s.compare.instructions_threshold = percent_or(args, "instructions-threshold", 0.01);
  s.compare.min_change = percent_or(args, "min-change", 0.03);
  s.compare.cpu_threshold = percent_or(args, "min-change", s.compare.cpu_threshold);
  if (macro)
    s.compare.min_rounds =
        static_cast<std::size_t>(args.integer("min-repetitions", 2, 1000).value_or(5));
  s.compare.alpha = args.number("alpha").value_or(0.05);
  if (!(s.compare.alpha > 0 && s.compare.alpha < 1))
    throw common::UsageError("--alpha: expected 0 < A < 1");
  s.compare.min_repetitions =
      static_cast<std::size_t>(args.integer("min-repetitions", 2, 1'000'000).value_or(9));
  s.max_measurements =
      static_cast<std::size_t>(args.integer("max-measurements", 1, 100).value_or(3));

  const std::string good =
      git(s.repo, {"rev-parse", "--verify", args.positionals()[0] + "^{commit}"});
  const std::string bad =
      git(s.repo, {"rev-parse", "--verify", args.positionals()[1] + "^{commit}"});
  s.commits.push_back(good);
  std::string list = git(s.repo, {"rev-list", "--first-parent", "--reverse", good + ".." + bad});
  for (std::size_t pos = 0; pos < list.size();) {
    const std::size_t end = std::min(list.find('\n', pos), list.size());
    if (end > pos) s.commits.push_back(list.substr(pos, end - pos));
    pos = end + 1;
  }
  if (s.commits.size() < 2 || s.commits.back() != bad)
    throw common::UsageError("BAD (" + args.positionals()[1] +
                             ") is not a first-parent descendant of GOOD (" +
                             args.positionals()[0] + ")");

  s.work = args.value_or("work", "");
  if (s.work.empty()) {
    // Sources are checked out and built here, as root in CI: a fresh private directory, never
    // one a local user could have made first under a predictable name. Kept for the user to read.
    common::PrivateDir work("gatebench-bisect-");
    work.keep();
    s.work = work.path().string();
  }
  std::filesystem::create_directories(s.work);
  s.work = std::filesystem::absolute(s.work).string();
  common::install_stop_handlers();  // Ctrl-C removes the worktree; the measurements stay
  s.tree = std::make_unique<Worktree>(s.repo, s.work + "/tree", good);
  std::cout << "bisect: " << s.commits.size() - 1 << " commits after GOOD " << good.substr(0, 12)
            << " up to BAD " << bad.substr(0, 12) << "; measurements in " << s.work << "\n";

  const ResultSet good_run = s.measure(0);
  Comparison shown;
  std::size_t lo = 0, hi = s.commits.size() - 1;
  if (s.decide(hi, good_run, shown) != Answer::bad) {
    std::cout << "bisect: BAD is not a regression against GOOD for '"
              << (macro ? s.scenario : s.filter) << "': nothing to search\n"
              << comparison_markdown(shown);
    return 1;
  }
  Comparison at_hi = shown;
  while (hi - lo > 1) {
    const std::size_t mid = lo + (hi - lo) / 2;
    const Answer a = s.decide(mid, good_run, shown);
    if (a == Answer::not_sure) {
      std::cout << "bisect: commit " << s.commits[mid] << " stayed not sure after "
                << s.max_measurements << " measurements; the first bad commit is after "
                << s.commits[lo] << ", at or before " << s.commits[hi] << "\n";
      return 1;
    }
    if (a == Answer::bad) {
      hi = mid;
      at_hi = shown;
    } else {
      lo = mid;
    }
  }
  std::cout << "\nfirst bad commit: " << s.commits[hi] << " "
            << git(s.repo, {"log", "-1", "--format=%s", s.commits[hi]}) << "\n"
            << "last good commit: " << s.commits[lo] << "\n"
            << "builds: " << s.builds << ", measurements: " << s.measurements << "\n\n"
            << "GOOD against the first bad commit:\n\n"
            << comparison_markdown(at_hi);
  return 0;
}

}  // namespace gatebench::tools
