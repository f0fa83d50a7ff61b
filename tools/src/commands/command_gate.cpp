// `gatebench gate BASE HEAD`: the macro gate between two commits, locally and in
// ci/workflows/gate.yml alike. Each commit is checked out in a private worktree, built, and its
// own driver counts instructions and system calls per request (gatebench-macro --instructions);
// the two count files are compared by the exact gate of `gatebench compare` (docs/gating.md).
#include <algorithm>
#include <chrono>
#include <filesystem>
#include <iostream>
#include <map>
#include <optional>
#include <stdexcept>

#include "macro/common/command_line.hpp"
#include "macro/common/private_dir.hpp"
#include "macro/common/stop_signal.hpp"
#include "macro/common/usage_error.hpp"
#include "tools/src/commands/commands.hpp"
#include "tools/src/commands/git_worktree.hpp"
#include "tools/src/compare/compare.hpp"
#include "tools/src/results/format.hpp"
#include "tools/src/results/json_file.hpp"

namespace gatebench::tools {

namespace {

// One scenario per protocol and feature family, and the nginx baselines of the same protocols
// (docs/gating.md, "The macro gate in the workflow").
constexpr const char* kDefaultScenarios =
    "gateway-default,gateway-https-keepalive,gateway-https-newconn,gateway-h2,gateway-protected,"
    "gateway-queue,gateway-cache-memory-hit,waf-mix,nginx-baseline,nginx-https-keepalive,"
    "nginx-https-newconn,nginx-h2-baseline";

// Counts that do not repeat exactly (docs/gating.md, "Thresholds"; 10 quiet runs, 45 A/A pairs
// each): the gateway's TLS and h2 counts spread by at most 0.10% (instructions) and 0.40%
// (system calls), so their line sits at 0.9%, where a change that lands just over 1% is still
// caught (at 1%, 7 of 9 knob runs of +1.03% were); nginx's TLS and h2 counts spread by 0.5-0.95%
// and its time-driven calls by 1.2% at N = 200, so its lines sit at 2%.
constexpr const char* kDefaultThresholds[] = {
    "gateway-https-keepalive=0.9%", "gateway-https-newconn=0.9%", "gateway-h2=0.9%",
    "nginx-https-keepalive=2%",     "nginx-baseline=2%",          "nginx-https-newconn=2%",
    "nginx-h2-baseline=2%"};

constexpr const char* kGateHelp = R"(usage: gatebench gate BASE HEAD [options]

The macro gate between two commits (git revisions of --repo): each is checked out in a private
worktree (under --work, default $TMPDIR), built with --build, and its own gatebench-macro
counts instructions and system calls per request of each scenario under callgrind
(--instructions N: N and 2N requests, differenced; docs/attribution.md). The two
instructions.json files are compared as `gatebench compare` does in exact mode: a rise of
--exact-threshold (1%) or more in either count is a regression, a fall as large an
improvement; the functions that moved most are named. The Markdown goes to stdout (and --md).
Scenarios a commit does not have are counted on the other side only (added / removed).
The worktrees and counts are removed at the end unless --keep. ci/workflows/gate.yml runs this
command; docs/gating.md has the time it takes.

options:
  --scenarios LIST        comma-separated scenarios (default: one per protocol and feature
                          family and their nginx baselines:
                          gateway-default, gateway-https-keepalive, gateway-https-newconn,
                          gateway-h2, gateway-protected, gateway-queue,
                          gateway-cache-memory-hit, waf-mix, nginx-baseline,
                          nginx-https-keepalive, nginx-https-newconn, nginx-h2-baseline)
  --requests N            requests of the shorter run per scenario (default 200; the longer
                          run sends 2N)
  --repo DIR              the git repository (default .)
  --work DIR              where the private work directory is made (default $TMPDIR)
  --keep                  keep the work directory (worktrees removed, builds, counts and logs
                          kept)
  --build CMD             shell command run in each worktree (default: configure build/gate
                          for x86-64-v3 in RelWithDebInfo without tests or micro, build the
                          four role executables; CMAKE_GENERATOR and
                          CMAKE_CXX_COMPILER_LAUNCHER from the environment apply)
  --count CMD             shell command run in each worktree after the build; writes
                          $GATEBENCH_OUT/instructions.json for $GATEBENCH_SCENARIOS (the side's
                          scenarios), $GATEBENCH_REQUESTS, $GATEBENCH_PORT_OFFSET (default: the
                          worktree's build/gate/macro/driver/gatebench-macro --instructions on
                          its own macro/scenarios)
  --port-offset N         added to every scenario port (default 0)
  --exact-threshold PCT   minimum change of a count per request (default 1%)
  --exact-threshold-for SCENARIO=PCT
                          that scenario's threshold instead (repeatable; defaults from the
                          measured spread, docs/gating.md: gateway-https-keepalive,
                          gateway-https-newconn and gateway-h2 0.9%; nginx-baseline,
                          nginx-https-keepalive, nginx-https-newconn and nginx-h2-baseline 2%)
  --top N                 functions named per scenario that moved (default 8)
  --md FILE               also write the Markdown to FILE
  --json FILE             the comparison as JSON (gatebench.compare/1)

exit: 0 no regression, 1 a regression (or a build or count failed), 2 bad input
)";

const char* kDefaultBuild =
    "cmake -S . -B build/gate -DCMAKE_BUILD_TYPE=RelWithDebInfo "
    "'-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O2 -g1 -DNDEBUG' -DGATEBENCH_MARCH=x86-64-v3 "
    "-DGATEBENCH_BUILD_TESTS=OFF -DGATEBENCH_BUILD_BENCH=OFF -DGATEBENCH_BUILD_MACRO=ON && "
    "cmake --build build/gate -j\"$(nproc)\" --target gatebench-macro gatebench-load "
    "gatebench-gateway gatebench-control";

// The commit's own driver on the commit's own scenario files: each side is counted as that
// commit defines its scenarios.
const char* kDefaultCount =
    "build/gate/macro/driver/gatebench-macro --instructions \"$GATEBENCH_REQUESTS\" "
    "--scenario-dir macro/scenarios --scenarios \"$GATEBENCH_SCENARIOS\" "
    "--port-offset \"$GATEBENCH_PORT_OFFSET\" --out \"$GATEBENCH_OUT\"";

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

struct Gate {
  std::string repo, build, count, port_offset, requests;
  std::vector<std::string> scenarios;
  std::filesystem::path work;
  Clock::time_point start = Clock::now();
  std::optional<double> side_seconds;  // the first side's build and count, for the estimate

  void progress(const std::string& what) const {
    std::cout << "gate [" << fmt_fixed(seconds_since(start), 0) << " s";
    if (side_seconds)
      std::cout << ", about "
                << fmt_fixed(std::max(0.0, 2 * *side_seconds - seconds_since(start)), 0)
                << " s left";
    std::cout << "]: " << what << std::endl;
  }

  // Builds and counts one commit; returns its counts. A failed build, or a count that wrote no
  // instructions.json, throws (exit 1): there is nothing to compare.
  ResultSet side(const std::string& label, const std::string& sha) {
    const Clock::time_point side_start = Clock::now();
    const std::filesystem::path dir = work / label;
    std::filesystem::create_directories(dir);
    const Worktree tree(repo, (dir / "src").string(), sha);
    std::string present;
    std::size_t n = 0;
    // A scenario is a file of the commit's macro/scenarios or a name of its names.json (a
    // (target, workload) pair, docs/scenarios.md).
    const std::string names_file = tree.dir() + "/macro/scenarios/names.json";
    const nlohmann::json names =
        std::filesystem::exists(names_file) ? load_json_file(names_file) : nlohmann::json::object();
    for (const auto& s : scenarios)
      if (std::filesystem::exists(tree.dir() + "/macro/scenarios/" + s + ".json") ||
          (names.is_object() && names.contains(s))) {
        present += (present.empty() ? "" : ",") + s;
        ++n;
      }
    if (present.empty())
      throw std::runtime_error(label + " " + sha.substr(0, 12) +
                               " has none of the selected scenarios in macro/scenarios");
    const std::map<std::string, std::string> env = {{"GATEBENCH", self_exe()},
                                                    {"GATEBENCH_SCENARIOS", present},
                                                    {"GATEBENCH_REQUESTS", requests},
                                                    {"GATEBENCH_PORT_OFFSET", port_offset},
                                                    {"GATEBENCH_OUT", (dir / "counts").string()}};
    progress("building " + label + " " + sha.substr(0, 12));
    const std::string build_log = (dir / "build.log").string();
    if (const int rc = run_shell(build, tree.dir(), build_log, env); rc != 0)
      throw std::runtime_error("the build of " + label + " " + sha.substr(0, 12) +
                               " failed (exit " + std::to_string(rc) + ", log " + build_log + ")");
    progress("counting " + label + " " + sha.substr(0, 12) + ": " + std::to_string(n) +
             " scenarios, " + requests + " and 2x" + requests + " requests each");
    const std::string count_log = (dir / "count.log").string();
    const int rc = run_shell(count, tree.dir(), count_log, env);
    const std::string counts = (dir / "counts" / "instructions.json").string();
    // The driver exits 1 when a scenario failed and still writes the file: a failure on HEAD
    // only is the gate's to judge (a regression), not a reason to stop.
    if (!std::filesystem::exists(counts))
      throw std::runtime_error("the count of " + label + " " + sha.substr(0, 12) +
                               " wrote no instructions.json (exit " + std::to_string(rc) +
                               ", log " + count_log + ")");
    if (rc != 0)
      std::cout << "gate: the count of " << label << " exited " << rc
                << " (a scenario failed; the comparison says which)\n";
    if (!side_seconds) side_seconds = seconds_since(side_start);
    return load_result_set(counts);
  }
};

}  // namespace

int command_gate(const CommandArgs& argv) {
  const common::CommandLine args(
      argv,
      {"scenarios", "requests", "repo", "work", "build", "count", "port-offset", "exact-threshold",
       "exact-threshold-for", "top", "md", "json"},
      {"help", "keep"});
  if (args.flag("help")) {
    std::cout << kGateHelp;
    return 0;
  }
  if (args.positionals().size() != 2)
    throw common::UsageError("gate needs two commits, BASE and HEAD (see --help)");
  Gate g;
  g.scenarios = split_list(args.value_or("scenarios", kDefaultScenarios));
  if (g.scenarios.empty()) throw common::UsageError("--scenarios: no scenario named");
  for (const auto& s : g.scenarios)
    if (s.find_first_of("/ \t") != std::string::npos || s.front() == '.')
      throw common::UsageError("--scenarios: '" + s + "' is not a scenario name");
  g.requests = std::to_string(args.integer("requests", 10, 1'000'000).value_or(200));
  g.port_offset = std::to_string(args.integer("port-offset", -30000, 30000).value_or(0));
  g.build = args.value_or("build", kDefaultBuild);
  g.count = args.value_or("count", kDefaultCount);
  CompareOptions opt;
  opt.exact_threshold = percent_or(args, "exact-threshold", opt.exact_threshold);
  for (const char* t : kDefaultThresholds) {
    const std::string item = t;
    const std::size_t eq = item.find('=');
    opt.exact_threshold_by_scenario[item.substr(0, eq)] =
        percent_value(item.substr(eq + 1), "the default threshold of " + item.substr(0, eq));
  }
  exact_thresholds_from(args, opt);
  opt.top_functions = static_cast<std::size_t>(args.integer("top", 0, 1000).value_or(8));
  g.repo = std::filesystem::absolute(args.value_or("repo", ".")).string();
  std::string sha[2];
  for (int i = 0; i < 2; ++i) {
    const std::string& rev = args.positionals()[static_cast<std::size_t>(i)];
    sha[i] = resolve_commit(g.repo, rev);
    if (sha[i].empty()) throw common::UsageError("'" + rev + "' is not a commit of " + g.repo);
  }
  const std::filesystem::path parent = args.value("work")
                                           ? std::filesystem::path(*args.value("work"))
                                           : std::filesystem::temp_directory_path();
  if (!std::filesystem::is_directory(parent))
    throw common::UsageError("--work: " + parent.string() + " is not a directory");

  // Sources are built here, as root in CI: a fresh private directory, never one a local user
  // could have made first under a predictable name.
  common::PrivateDir work(std::filesystem::absolute(parent), "gatebench-gate-");
  common::install_stop_handlers();
  if (args.flag("keep")) work.keep();
  g.work = work.path();
  std::cout << "gate: BASE " << sha[0].substr(0, 12) << ", HEAD " << sha[1].substr(0, 12) << ", "
            << g.scenarios.size() << " scenarios, N = " << g.requests << "; work in "
            << g.work.string() << (args.flag("keep") ? " (kept)" : " (removed at the end)")
            << std::endl;
  ResultSet base, head;
  try {
    base = g.side("base", sha[0]);
    head = g.side("head", sha[1]);
  } catch (const common::StopRequested&) {
    throw;  // nothing to read: the worktrees and the work directory go (unless --keep)
  } catch (const std::exception&) {
    work.keep();  // the logs the message names
    throw;
  }
  g.progress("comparing");
  const Comparison c = compare_result_sets(base, head, opt);
  const std::string md = comparison_markdown(c);
  std::cout << "\n" << md;
  if (auto path = args.value("md")) write_text_file(*path, md);
  if (auto path = args.value("json")) write_text_file(*path, comparison_json(c).dump(2) + "\n");
  std::cout << "\ngate: " << (c.has_regression() ? "REGRESSION" : "no regression") << " ("
            << fmt_fixed(seconds_since(g.start), 0) << " s)\n";
  return c.has_regression() ? 1 : 0;
}

}  // namespace gatebench::tools
