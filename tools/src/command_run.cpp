// `gatebench macro` (hands over to gatebench-macro) and `gatebench run` (micro [+ macro] +
// report): the one-command paths users and ci/bench take.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iostream>

#include "macro/common/child_process.hpp"
#include "macro/common/command_line.hpp"
#include "macro/common/detectable.hpp"
#include "macro/common/usage_error.hpp"
#include "tools/src/commands.hpp"
#include "tools/src/compare.hpp"
#include "tools/src/micro_binary.hpp"
#include "tools/src/micro_inputs.hpp"
#include "tools/src/results.hpp"

namespace gatebench::tools {

namespace {

constexpr const char* kRunHelp = R"(usage: gatebench run [options]

micro + macro + report in one go, into --out DIR. The default is the first run, sized to take
minutes on a 2-vCPU machine; --full is the release run (hours; its estimate is printed first):

  DIR/micro.json      default: each hot path's gatecore rows, its peers and its limit
                      (9 repetitions in 3 processes, 0.05 s minimum per repetition);
                      --full: every benchmark, 9 repetitions in 9 processes
  DIR/macro/...       default: the seed set (nginx-baseline, gateway-default, -protected,
                      -https-keepalive, -https-newconn, -queue, -challenge-pass, haproxy-baseline,
                      caddy-baseline) in gatebench-macro --quick rounds; --full: every scenario,
                      5 rounds of 5 s warm-up + 20 s measured
  DIR/report.{json,md,html}

Before each step it prints the estimated time that step and the run have left.

options:
  --out DIR           results directory (default gatebench-results)
  --filter RE         micro benchmark filter (default: see above)
  --repetitions N     micro repetitions (default 9)
  --full              the release run: every micro benchmark and every macro scenario
  --duration D        macro: measured run per scenario (passed to gatebench-macro)
  --connections N     macro: load-generator connections (passed to gatebench-macro)
  --scenarios LIST    macro: comma-separated scenarios (passed to gatebench-macro)
  --rounds N          macro: rounds per scenario (passed to gatebench-macro)
  --detect P          macro: the rounds that catch a P rise of CPU per request 95% of the time
                      (passed to gatebench-macro, which prints them; docs/gating.md)
  --seed N            macro: seed of the round order (passed to gatebench-macro)
  --scenario-dir DIR  macro: scenario files (passed to gatebench-macro)
  --target FILE|NAME  macro: every workload of this target beside its nginx baseline, instead of
                      the seed set (repeatable; passed to gatebench-macro, docs/targets.md)
  --workloads LIST    macro: only these workloads of --target (passed to gatebench-macro)
  --no-micro          skip micro        --no-macro   skip macro

The report is written whenever a step left a result to report, also when a macro scenario
failed: it shows every failed or skipped scenario with its reason.
exit: 0 ok, 1 a step or a macro scenario failed (after the report is written), 2 bad input
)";

// The first run's micro selection, from the suite's naming hotpath/impl/case (micro/bench): per
// hot path the gatecore rows, the limit rows and the peers that were fastest on some case in the
// release runs of docs/RESULTS.md (the report then names the best of them per case). Naive
// peers only where they are the only peer (cache, rate limit, rules); the TLS floor's two
// handshakes are what the report's handshake table and "what each feature costs" divide by.
constexpr const char* kFirstRunMicroFilter =
    "^(access_log/(gatecore|limit|re2|simdjson)/"
    "|cache/(gatecore|limit|naive)/"
    "|cidr/(gatecore|limit|nginx_trie|sorted_ranges)/"
    "|exploit/(gatecore|hyperscan|re2_set)/"
    "|hpack/(gatecore|limit|nghttp2)/"
    "|http1/(gatecore|limit|http_parser)/"
    "|jwt/(gatecore|limit|openssl|nlohmann)/"
    "|ratelimit/(gatecore|limit|naive)/"
    "|rules/(gatecore|naive)/"
    "|token/(gatecore|limit|evp_mac)/"
    "|tls/handshake_tls13_(full|resumed)$)";
// Short repetitions keep the first run's micro step within minutes; 0.05 s still runs thousands
// of iterations of every hot path (the slowest op is a TLS handshake, ~1 ms).
constexpr const char* kFirstRunMinTime = "--benchmark_min_time=0.05";
constexpr long kFirstRunProcesses = 3;

// The seed method's scenarios: the gateway's configurations beside the three proxies it is
// compared with. gatebench-macro adds each one's baseline: nginx-baseline is among them, the two
// HTTPS scenarios bring nginx-https-keepalive and nginx-https-newconn, so 11 scenarios run.
constexpr const char* kFirstRunScenarios =
    "nginx-baseline,gateway-default,gateway-protected,gateway-https-keepalive,"
    "gateway-https-newconn,gateway-queue,gateway-challenge-pass,haproxy-baseline,caddy-baseline";
constexpr std::size_t kFirstRunScenarioRuns = 11;

// Seconds per benchmark and process, for the estimates: 1.10 s with Google Benchmark's default
// minimum time (issue 40: 163 benchmarks x 9 processes in 27 min on 2 vCPUs); 0.47 s for the
// first run's 3 repetitions of 0.05 s (128 benchmarks x 3 processes in 182 s, 2 vCPUs, load
// average 1.9 at the start).
constexpr double kMicroSecondsPerRun = 1.10;
constexpr double kFirstRunMicroSecondsPerRun = 0.47;
// Per scenario and round beyond warm-up and measured time: starting and stopping the services
// (issue 40: 74 scenarios x 3 rounds of 3 s in 20 min = 5.4 s each).
constexpr double kMacroOverheadSeconds = 2.4;

std::string minutes(double seconds) {
  char text[32];
  if (seconds < 90)
    std::snprintf(text, sizeof text, "%.0f s", seconds);
  else if (seconds < 2 * 3600)
    std::snprintf(text, sizeof text, "%.0f min", seconds / 60);
  else
    std::snprintf(text, sizeof text, "%.1f h", seconds / 3600);
  return text;
}

// The names a command prints one per line, counted; nothing when it cannot be run (the step
// itself then says why).
std::optional<std::size_t> lines_of(const std::vector<std::string>& argv) {
  try {
    const std::string out = common::output_of(argv);
    return static_cast<std::size_t>(std::count(out.begin(), out.end(), '\n'));
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

struct Estimate {
  std::string micro_text, macro_text;
  double micro_s = 0, macro_s = 0;
};

Estimate estimate_run(const common::CommandLine& args, bool full, const std::string& filter,
                      long repetitions, long processes) {
  Estimate e;
  if (!args.flag("no-micro")) {
    std::optional<std::size_t> n;
    try {
      n = list_micro_benchmarks(locate_micro_binary(std::nullopt), filter, {}).size();
    } catch (const std::exception&) {
    }
    if (n) {
      const double per_run = full ? kMicroSecondsPerRun : kFirstRunMicroSecondsPerRun;
      // A process runs repetitions / processes of each benchmark; the per-run figure is for the
      // default split (1 each for --full, 3 each for the first run).
      const double reps_per_process =
          static_cast<double>(repetitions) / static_cast<double>(processes);
      const double default_reps = full ? 1.0 : 9.0 / kFirstRunProcesses;
      e.micro_s = static_cast<double>(*n) * static_cast<double>(processes) * per_run *
                  reps_per_process / default_reps;
      e.micro_text =
          std::to_string(*n) + " benchmarks x " + std::to_string(processes) + " processes";
    }
  }
  if (!args.flag("no-macro")) {
    std::optional<std::size_t> n;
    if (args.value("target")) {
      // Scenarios per target depend on the workloads it offers: no estimate.
    } else if (auto list = args.value("scenarios")) {
      n = static_cast<std::size_t>(std::count(list->begin(), list->end(), ',') + 1);
    } else if (!full) {
      n = kFirstRunScenarioRuns;
    } else {
      std::vector<std::string> cmd = {locate_macro_binary(std::nullopt), "--list"};
      if (auto dir = args.value("scenario-dir")) cmd.insert(cmd.end(), {"--scenario-dir", *dir});
      n = lines_of(cmd);
    }
    if (n) {
      // gatebench-macro's defaults: --quick 3 rounds of 1 s + 2 s, else 5 rounds of 5 s + 20 s.
      const double measured = args.duration_s("duration").value_or(full ? 20.0 : 2.0);
      double rounds = static_cast<double>(args.integer("rounds", 1, 1000).value_or(full ? 5 : 3));
      // --detect: the rounds gatebench-macro will choose (0 when out of reach: it refuses).
      if (args.value("detect"))
        rounds = static_cast<double>(
            common::rounds_for_cpu_change(percent_or(args, "detect", 0), measured).rounds);
      const double warmup = full ? 5.0 : 1.0;
      e.macro_s = static_cast<double>(*n) * rounds * (warmup + measured + kMacroOverheadSeconds);
      e.macro_text = std::to_string(*n) + " scenarios x " +
                     std::to_string(static_cast<long>(rounds)) + " rounds";
    }
  }
  return e;
}

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

int command_target(const CommandArgs& args) {
  std::vector<std::string> cmd = {locate_macro_binary(std::nullopt), "target"};
  cmd.insert(cmd.end(), args.begin(), args.end());
  return common::run_to_exit(common::command(cmd));
}

int command_run(const CommandArgs& argv) {
  const common::CommandLine args(
      argv,
      {"out", "filter", "repetitions", "duration", "connections", "scenarios", "rounds", "seed",
       "scenario-dir", "target", "workloads", "detect"},
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
  const bool full = args.flag("full");
  const std::string filter = args.value_or("filter", full ? "." : kFirstRunMicroFilter);
  const long repetitions = args.integer("repetitions", 9, 100'000).value_or(9);
  const long processes = full ? repetitions : std::min(kFirstRunProcesses, repetitions);
  const Estimate estimate = estimate_run(args, full, filter, repetitions, processes);
  const auto started = std::chrono::steady_clock::now();
  auto elapsed_s = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  };
  if (full || estimate.micro_s + estimate.macro_s > 0)
    std::cerr << "[gatebench run] " << (full ? "release run" : "first run") << ": estimated "
              << minutes(estimate.micro_s + estimate.macro_s) << " (micro "
              << minutes(estimate.micro_s) << ", macro " << minutes(estimate.macro_s) << ")\n";

  bool failed = false;
  std::string micro_json = "-", macro_json = "-";
  if (!args.flag("no-micro")) {
    const std::string file = out + "/micro.json";
    CommandArgs micro = {"--out",         file,
                         "--filter",      filter,
                         "--repetitions", std::to_string(repetitions),
                         "--processes",   std::to_string(processes)};
    if (!full) micro.insert(micro.end(), {"--", kFirstRunMinTime});
    std::cerr << "[gatebench run] micro";
    if (!estimate.micro_text.empty())
      std::cerr << " (" << estimate.micro_text << "): about "
                << minutes(estimate.micro_s + estimate.macro_s) << " left";
    std::cerr << "\n";
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
    if (!full) macro.push_back("--quick");
    // With --target the targets' workloads are the run (each beside its nginx baseline).
    if (!full && !args.value("scenarios") && !args.value("target"))
      macro.insert(macro.end(), {"--scenarios", kFirstRunScenarios});
    for (const auto& target : args.values("target"))
      macro.insert(macro.end(), {"--target", target});
    if (auto v = args.value("workloads")) macro.insert(macro.end(), {"--workloads", *v});
    for (const char* opt :
         {"duration", "connections", "scenarios", "rounds", "seed", "scenario-dir", "detect"})
      if (auto v = args.value(opt)) {
        macro.push_back(std::string("--") + opt);
        macro.push_back(*v);
      }
    std::cerr << "[gatebench run] macro";
    if (!estimate.macro_text.empty())
      std::cerr << " (" << estimate.macro_text << "): about " << minutes(estimate.macro_s)
                << " left";
    std::cerr << " (" << minutes(elapsed_s()) << " so far)\n";
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
  std::cerr << "[gatebench run] report (" << minutes(elapsed_s()) << " so far)\n";
  const int rc = command_report({micro_json, macro_json, "-o", out});
  std::cerr << "[gatebench run] done in " << minutes(elapsed_s()) << "\n";
  return rc != 0 ? rc : failed ? 1 : 0;
}

}  // namespace gatebench::tools
