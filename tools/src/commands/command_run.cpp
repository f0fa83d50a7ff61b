// `gatebench macro` (hands over to gatebench-macro) and `gatebench run` (micro [+ macro] +
// report): the one-command paths users and ci/bench take.
#include <sys/resource.h>
#include <sys/utsname.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <optional>
#include <thread>

#include "macro/common/build_info.hpp"
#include "macro/common/child_process.hpp"
#include "macro/common/command_line.hpp"
#include "macro/common/duration.hpp"
#include "macro/common/machine_cpu.hpp"
#include "macro/common/usage_error.hpp"
#include "tools/src/commands/commands.hpp"
#include "tools/src/commands/micro_binary.hpp"
#include "tools/src/commands/micro_inputs.hpp"
#include "tools/src/compare/compare.hpp"
#include "tools/src/report/report_model.hpp"
#include "tools/src/results/json_file.hpp"
#include "tools/src/results/results.hpp"

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
                      caddy-baseline), haproxy-https-keepalive and HTTP/2 (gateway, haproxy
                      and h2o, 10 streams and one stream) in gatebench-macro --quick rounds;
                      --full: every scenario,
                      5 rounds of 5 s warm-up + 20 s measured
  DIR/counts/instructions.json
                      instructions and system calls per request of gateway-default and every
                      scenario of "what each feature costs" (gatebench-macro --instructions N
                      under valgrind, docs/attribution.md), so each feature row has a figure
  DIR/run.json        the command; the machine's load average, steal and busy share at start
                      and end; the share of its CPU other processes took during the run
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
  --counts N          requests of the shorter counting run (default 100; the longer runs 2N);
                      counts run by default unless --scenarios or --target is given
  --counts-build DIR  the CMake build tree whose gatebench-gateway, -control and -load the
                      counts run, built so valgrind can run them (default: this checkout's
                      build/callgrind when built, else the driver's own tree; ci/bench passes
                      build/release, whose macro programs are built for x86-64-v3)
  --no-micro          skip micro        --no-macro   skip macro (and the counts)
  --no-counts         skip the counts

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

// The seed method's scenarios (the gateway's configurations beside the three proxies it is
// compared with), haproxy over HTTPS keep-alive, then the gateway over HTTP/2, 10 streams and one
// stream per connection, beside the two proxies that set its bar there (haproxy, h2o): the
// report's HTTPS and HTTP/2 tables and CPU per request come from the same rounds.
// gatebench-macro adds each one's baseline: nginx-baseline is among them, the HTTPS scenarios
// bring nginx-https-keepalive and nginx-https-newconn, the h2 ones nginx-h2-baseline and
// nginx-h2-one-stream, so 20 scenarios run.
constexpr const char* kFirstRunScenarios =
    "nginx-baseline,gateway-default,gateway-protected,gateway-https-keepalive,"
    "gateway-https-newconn,gateway-queue,gateway-challenge-pass,haproxy-baseline,caddy-baseline,"
    "haproxy-https-keepalive,gateway-h2,haproxy-h2,h2o-h2,gateway-h2-one-stream,"
    "haproxy-h2-one-stream,h2o-h2-one-stream";

// Seconds per benchmark and process, for the estimates: 1.10 s with Google Benchmark's default
// minimum time (issue 40: 163 benchmarks x 9 processes in 27 min on 2 vCPUs); 0.375 s for the
// first run's 3 repetitions of 0.05 s (a ci/bench run of e354c9f on a quiet 2-vCPU machine,
// load average 0.1 at the start: 128 benchmarks x 3 processes in 144.0 s, 47.5 s per process
// and 1.5 s to list and merge them; 182 s at load average 1.9).
constexpr double kMicroSecondsPerRun = 1.10;
constexpr double kFirstRunMicroSecondsPerRun = 0.375;
// The macro step's estimate is gatebench-macro's own (macro_estimate).

// The counts (gatebench-macro --instructions N, docs/attribution.md): N and 2N requests per
// scenario, each run from a fresh start under valgrind. N = 100 keeps the time-driven system
// calls (an access-log datagram a second) to about ±0.01 per request; the reference gateway's
// instructions are toggled on its event loop and do not depend on N.
constexpr long kCountRequests = 100;
// Seconds per counted scenario beyond its paced requests (3N at 50/s): two start-ups and stops
// of the gateway under valgrind, the backend and the load. The 15 scenarios at N = 100 took
// 143.4 s, 9.6 s each, in the same quiet ci/bench run (181 s at load average 2.7-3.0).
constexpr double kCountOverheadSeconds = 3.6;
constexpr double kCountPacePerS = 50.0;
// The run's own part beyond its steps: the machine's load sampled for a second at the end and
// the report (1.0 s and 0.1 s in that run).
constexpr double kRunOverheadSeconds = 1.1;

// gateway-default and every scenario "what each feature costs" sets against it, from the
// report's own rules, so the counts and the table cannot drift apart.
std::vector<std::string> count_scenarios() {
  std::vector<std::string> out;
  auto add = [&](const std::string& name) {
    if (std::find(out.begin(), out.end(), name) == out.end()) out.push_back(name);
  };
  for (const auto& rule : default_attribution_rules()) {
    add(rule.baseline);
    add(rule.scenario);
  }
  return out;
}

// The callgrind preset's build of this checkout (ci/bench makes it), when there is one: the
// release preset's -march=native gateway is code valgrind 3.19 cannot run on CPUs with SHA-NI
// or AVX-512. Empty: gatebench-macro's own default, the build tree it belongs to.
std::string callgrind_build() {
  const std::filesystem::path dir =
      std::filesystem::path(std::string(build_source_dir())) / "build/callgrind";
  return std::filesystem::exists(dir / "macro/gateway/gatebench-gateway") ? dir.string() : "";
}

// gatebench-macro's --bin-dir holds the binaries side by side; a build tree has them in
// macro/gateway and macro/load, so DIR gets links to them. UsageError names a missing one.
std::string bin_dir_of_build(const std::string& build, const std::string& dir) {
  namespace fs = std::filesystem;
  fs::create_directories(dir);
  for (const char* rel : {"macro/gateway/gatebench-gateway", "macro/gateway/gatebench-control",
                          "macro/load/gatebench-load"}) {
    const fs::path target = fs::absolute(fs::path(build) / rel);
    if (!fs::exists(target))
      throw common::UsageError("--counts-build: " + target.string() +
                               " not found (build it: cmake --build --preset callgrind --target " +
                               target.filename().string() + ")");
    const fs::path link = fs::path(dir) / target.filename();
    fs::remove(link);
    fs::create_symlink(target, link);
  }
  return dir;
}

std::string comma_joined(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ",") + n;
  return out;
}

// gatebench-macro's arguments for the run's macro step (the same for its --dry-run estimate).
CommandArgs macro_args(const common::CommandLine& args, bool full, const std::string& out) {
  CommandArgs macro = {"--out", out + "/macro"};
  if (!full) macro.push_back("--quick");
  // With --target the targets' workloads are the run (each beside its nginx baseline).
  if (!full && !args.value("scenarios") && !args.value("target"))
    macro.insert(macro.end(), {"--scenarios", kFirstRunScenarios});
  for (const auto& target : args.values("target")) macro.insert(macro.end(), {"--target", target});
  if (auto v = args.value("workloads")) macro.insert(macro.end(), {"--workloads", *v});
  for (const char* opt :
       {"duration", "connections", "scenarios", "rounds", "seed", "scenario-dir", "detect"})
    if (auto v = args.value(opt)) {
      macro.push_back(std::string("--") + opt);
      macro.push_back(*v);
    }
  return macro;
}

// gatebench-macro's own estimate of the step and what it counts, from its plans (--dry-run's
// "  estimated N s (…): K scenarios x R rounds" line): skipped scenarios, searches and every
// round counted as the run will take them, so the two estimates cannot drift apart. The dry run
// also checks the step's options (--duration, --scenarios, --rounds, ...) before any step runs:
// its usage error is this command's (exit 2), not a failure after the micro step.
using MacroEstimate = std::optional<std::pair<double, std::string>>;
MacroEstimate macro_estimate(const CommandArgs& macro) {
  std::vector<std::string> cmd = {locate_macro_binary(std::nullopt), "--dry-run"};
  cmd.insert(cmd.end(), macro.begin(), macro.end());
  common::CaptureResult r;
  try {
    r = common::capture(common::command(cmd));
  } catch (const std::exception&) {
    return std::nullopt;  // no gatebench-macro: the macro step itself says so
  }
  if (!r.timed_out && !r.interrupted && common::exit_code(r.status) == common::kUsageExit) {
    std::string message = r.errors.substr(0, r.errors.find('\n'));
    const std::string prefix = "gatebench-macro: ";
    if (message.starts_with(prefix)) message.erase(0, prefix.size());
    throw common::UsageError(message);
  }
  if (!r.succeeded()) return std::nullopt;
  const std::string key = "\n  estimated ";
  const auto at = r.output.find(key);
  if (at == std::string::npos) return std::nullopt;
  const std::string line =
      r.output.substr(at + key.size(), r.output.find('\n', at + 1) - at - key.size());
  const auto what = line.find("): ");
  try {
    return std::pair(std::stod(line), what == std::string::npos ? "" : line.substr(what + 3));
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

struct Estimate {
  std::string micro_text, macro_text, counts_text;
  double micro_s = 0, macro_s = 0, counts_s = 0;
  double steps() const { return micro_s + macro_s + counts_s; }
  double total() const { return steps() > 0 ? steps() + kRunOverheadSeconds : 0.0; }
};

double count_seconds(std::size_t scenarios, long requests) {
  return static_cast<double>(scenarios) *
         (kCountOverheadSeconds + 3.0 * static_cast<double>(requests) / kCountPacePerS);
}

// CPU seconds of this process and of every descendant it has waited for: the micro and macro
// drivers, and through them every role and benchmark process they waited for.
double own_cpu_s() {
  auto seconds = [](const rusage& r) {
    return static_cast<double>(r.ru_utime.tv_sec + r.ru_stime.tv_sec) +
           static_cast<double>(r.ru_utime.tv_usec + r.ru_stime.tv_usec) / 1e6;
  };
  rusage self{}, children{};
  ::getrusage(RUSAGE_SELF, &self);
  ::getrusage(RUSAGE_CHILDREN, &children);
  return seconds(self) + seconds(children);
}

// The share of the machine's CPU time (all CPUs) that processes outside the run took between
// two readings: the machine's busy time but steal, minus what this run's own tree used. Busy
// time includes interrupts and softirqs: with tick accounting (no IRQ_TIME_ACCOUNTING) the
// kernel charges a softirq tick to the task it interrupted, so the loopback traffic the run's
// processes handle is in their own CPU time too. The load average cannot tell any of this: it
// counts the run's own processes, and it lags a minute (a build that just ended still reads as
// load).
std::optional<double> others_percent(const common::MachineCpu& a, const common::MachineCpu& b,
                                     double own_s) {
  const double total = (b.busy_s + b.idle_s) - (a.busy_s + a.idle_s);
  if (total <= 0) return std::nullopt;
  const double busy = (b.busy_s - b.steal_s) - (a.busy_s - a.steal_s);
  return std::max(0.0, 100.0 * (busy - own_s) / total);
}

// What the record of a run says about the machine: /proc/loadavg's three averages, and over one
// second the share of CPU time the hypervisor took (steal) and the share processes took
// (busy_percent; the run waits through that second, so at the start it is other work).
nlohmann::json machine_load() {
  nlohmann::json out = nlohmann::json::object();
  std::ifstream loadavg("/proc/loadavg");
  double l1 = 0, l5 = 0, l15 = 0;
  if (loadavg >> l1 >> l5 >> l15) out["load_average"] = {l1, l5, l15};
  const auto a = common::read_machine_cpu();
  std::this_thread::sleep_for(std::chrono::seconds(1));
  const auto b = common::read_machine_cpu();
  if (a && b) {
    const double total = (b->busy_s + b->idle_s) - (a->busy_s + a->idle_s);
    if (total > 0) out["steal_percent"] = 100.0 * (b->steal_s - a->steal_s) / total;
    if (const auto busy = others_percent(*a, *b, 0.0)) out["busy_percent"] = *busy;
  }
  char when[32];
  const std::time_t now = std::time(nullptr);
  std::strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  out["time"] = when;
  return out;
}

nlohmann::json run_record(const CommandArgs& argv) {
  std::string command = "gatebench run";
  for (const auto& a : argv) command += " " + a;
  struct utsname u {};
  const std::string kernel =
      ::uname(&u) == 0 ? std::string(u.sysname) + " " + u.release : std::string("unknown");
  const std::string model = common::cpu_model();
  return {{"schema", "gatebench.run/1"},
          {"command", command},
          {"commit", std::string(build_commit())},
          {"dirty", build_dirty()},
          {"version", std::string(build_version())},
          {"compiler", std::string(build_compiler())},
          {"cpu_model", model.empty() ? "unknown" : model},
          {"cpus", std::thread::hardware_concurrency()},
          {"kernel", kernel}};
}

Estimate estimate_run(const common::CommandLine& args, bool full, const MacroEstimate& macro,
                      const std::string& filter, long repetitions, long processes,
                      const std::vector<std::string>& counted, long count_requests) {
  Estimate e;
  if (!counted.empty()) {
    e.counts_s = count_seconds(counted.size(), count_requests);
    e.counts_text = std::to_string(counted.size()) + " scenarios x " +
                    std::to_string(count_requests) + " + " + std::to_string(2 * count_requests) +
                    " requests";
  }
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
  if (macro) {
    e.macro_s = macro->first;
    e.macro_text = macro->second;
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
       "scenario-dir", "target", "workloads", "counts", "counts-build", "detect"},
      {"help", "full", "no-micro", "no-macro", "no-counts"});
  if (args.flag("help")) {
    std::cout << kRunHelp;
    return 0;
  }
  if (!args.positionals().empty()) throw common::UsageError("run takes no positional arguments");
  if (args.flag("no-micro") && args.flag("no-macro"))
    throw common::UsageError("--no-micro and --no-macro leave nothing to run");
  const std::string out = args.value_or("out", "gatebench-results");
  const bool full = args.flag("full");
  // Every duration and every option of the macro step checked before anything is written or run.
  args.duration_s("duration");
  const MacroEstimate macro_plan =
      args.flag("no-macro") ? std::nullopt : macro_estimate(macro_args(args, full, out));
  std::filesystem::create_directories(out);
  const std::string filter = args.value_or("filter", full ? "." : kFirstRunMicroFilter);
  const long repetitions = args.integer("repetitions", 9, 100'000).value_or(9);
  const long processes = full ? repetitions : std::min(kFirstRunProcesses, repetitions);
  // --counts-build alone is no request to count: ci/bench always names its build.
  if (args.flag("no-counts") && args.given("counts"))
    throw common::UsageError("--no-counts: not with --counts N");
  // The counts resolve the default set's feature table; a run of chosen scenarios or targets
  // counts only when asked (--counts N).
  const bool counting =
      !args.flag("no-macro") && !args.flag("no-counts") &&
      (args.given("counts") || (!args.value("scenarios") && !args.value("target")));
  const long count_requests = args.integer("counts", 1, 100'000).value_or(kCountRequests);
  const std::vector<std::string> counted =
      counting ? count_scenarios() : std::vector<std::string>{};
  // Checked before anything runs: a missing binary is bad input, not a failure after the micro
  // and macro steps.
  std::string counts_bin;
  if (const auto build = args.value("counts-build").value_or(counting ? callgrind_build() : "");
      counting && !build.empty())
    counts_bin = bin_dir_of_build(build, out + "/counts/bin");
  const Estimate estimate =
      estimate_run(args, full, macro_plan, filter, repetitions, processes, counted, count_requests);
  nlohmann::json record = run_record(argv);
  record["start"] = machine_load();
  const auto machine_at_start = common::read_machine_cpu();
  const double own_at_start = own_cpu_s();
  const auto started = std::chrono::steady_clock::now();
  auto elapsed_s = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  };
  if (full || estimate.total() > 0)
    std::cerr << "[gatebench run] " << (full ? "release run" : "first run") << ": estimated "
              << common::duration_text(estimate.total()) << " (micro "
              << common::duration_text(estimate.micro_s) << ", macro "
              << common::duration_text(estimate.macro_s) << ", counts "
              << common::duration_text(estimate.counts_s) << ")\n";

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
                << common::duration_text(estimate.total()) << " left";
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
    const CommandArgs macro = macro_args(args, full, out);
    std::cerr << "[gatebench run] macro";
    if (!estimate.macro_text.empty())
      std::cerr << " (" << estimate.macro_text << "): about "
                << common::duration_text(estimate.total() - estimate.micro_s) << " left";
    std::cerr << " (" << common::duration_text(elapsed_s()) << " so far)\n";
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
  std::string counts_json;
  if (counting) {
    const std::string dir = out + "/counts";
    CommandArgs counts = {"--instructions", std::to_string(count_requests),
                          "--scenarios",    comma_joined(counted),
                          "--out",          dir};
    if (!counts_bin.empty()) counts.insert(counts.end(), {"--bin-dir", counts_bin});
    if (auto v = args.value("scenario-dir")) counts.insert(counts.end(), {"--scenario-dir", *v});
    std::cerr << "[gatebench run] counts (" << estimate.counts_text << ", under valgrind): about "
              << common::duration_text(estimate.total() - estimate.micro_s - estimate.macro_s)
              << " left (" << common::duration_text(elapsed_s()) << " so far)\n";
    std::filesystem::remove(dir + "/instructions.json");  // never report a previous run's file
    const int rc = command_macro(counts);
    if (rc == 2) {
      std::cerr << "gatebench run: gatebench-macro --instructions rejected its input (exit 2)\n";
      return 2;
    }
    if (rc != 0) {
      std::cerr << "gatebench run: gatebench-macro --instructions exited with code " << rc
                << " (the report shows each scenario's reason)\n";
      failed = true;
    }
    if (std::filesystem::exists(dir + "/instructions.json"))
      counts_json = dir + "/instructions.json";
  }
  if (const auto now = common::read_machine_cpu(); machine_at_start && now) {
    if (const auto others = others_percent(*machine_at_start, *now, own_cpu_s() - own_at_start))
      record["others_percent"] = *others;
  }
  record["end"] = machine_load();
  record["elapsed_s"] = elapsed_s();
  record["estimated_s"] = estimate.total();
  write_text_file(out + "/run.json", record.dump(1) + "\n");
  if (micro_json == "-" && macro_json == "-" && counts_json.empty()) {
    std::cerr << "gatebench run: no result to report\n";
    return 1;
  }
  std::cerr << "[gatebench run] report (" << common::duration_text(elapsed_s()) << " so far)\n";
  CommandArgs report = {micro_json, macro_json, "-o", out};
  if (!counts_json.empty()) report.insert(report.end(), {"--macro-instructions", counts_json});
  const int rc = command_report(report);
  std::cerr << "[gatebench run] done in " << common::duration_text(elapsed_s());
  // Every run checks the estimate it printed first (issue 40: within 10%).
  if (estimate.total() > 0)
    std::cerr << " (estimated " << common::duration_text(estimate.total()) << ", "
              << (elapsed_s() >= estimate.total() ? "+" : "")
              << static_cast<long>(std::lround(100 * (elapsed_s() / estimate.total() - 1))) << "%)";
  std::cerr << "\n";
  return rc != 0 ? rc : failed ? 1 : 0;
}

}  // namespace gatebench::tools
