#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <sstream>
#include <thread>

#include "macro/common/build_info.hpp"
#include "macro/common/child_process.hpp"
#include "macro/common/command_line.hpp"
#include "macro/common/usage_error.hpp"
#include "tools/src/commands/commands.hpp"
#include "tools/src/commands/micro_binary.hpp"
#include "tools/src/commands/micro_inputs.hpp"
#include "tools/src/profile/callgrind_profile.hpp"
#include "tools/src/profile/flamegraph.hpp"
#include "tools/src/profile/instruction_counter.hpp"
#include "tools/src/profile/perf_profile.hpp"
#include "tools/src/results/format.hpp"
#include "tools/src/results/json_file.hpp"

namespace gatebench::tools {

namespace {

constexpr const char* kProfileHelp = R"(usage: gatebench profile FILTER [options]
       gatebench profile --scenario NAME [options]

Profiles one micro benchmark (FILTER must select exactly one) and writes to --out DIR:
  top_self.txt           functions by self cost
  top_inclusive.txt      functions by inclusive cost
  flamegraph.svg         flame graph drawn by gatebench
and the raw profile, and prints the top functions.

--mode perf (default): samples the native build (the one the timed benchmarks run, AVX-512 and
SHA-NI included) with perf record -e cpu-clock, a software clock event that works without
hardware counters, DWARF call graphs (the release build keeps no frame pointers). The benchmark
runs alone for --seconds; samples below its own function (start-up, Google Benchmark's runner)
are left out, and their share is printed. Raw profile: perf.data (perf report -i DIR/perf.data).
perf needs root or kernel.perf_event_paranoid <= 1.

--mode callgrind: exact instruction counts of the timed loop only (callgrind dumps at
State::StartKeepRunning()/FinishKeepRunning(); the dump of the 10^(runs-1)-iteration loop is
kept). valgrind 3.19 cannot decode AVX-512, so this mode runs build/callgrind (-march=x86-64-v3:
portable code paths, e.g. SHA-256 without SHA-NI), configured and built from the source tree
when missing (cmake --preset callgrind && cmake --build --preset callgrind --target
gatebench-micro). Raw profile: callgrind.out (kcachegrind / callgrind_annotate).

options:
  --mode M        perf (default) or callgrind
  --out DIR       output directory (default profile-<benchmark>)
  --bench PATH    gatebench-micro (perf: default as in gatebench micro --help; callgrind:
                  default build/callgrind/micro/bench/gatebench-micro of the source tree)
  --top N         functions printed (default 15)
  --seconds D     perf: how long the benchmark runs (--benchmark_min_time; default 2s;
                  500ms, 1m, bare number = s)
  --runs K        callgrind: loop runs, the profile covers 10^(K-1) iterations (default 4)
  --budget IR     callgrind: stop before a loop run predicted above IR instructions (default 2e9)
  --input KIND=FILE
                  gatebench-micro runs with --input KIND=FILE (repeatable; gatebench micro
                  --help, docs/micro-input.md), so FILTER may select a row over the file, such
                  as 'cidr/gatecore/input'; a bad file is named with its line, exit 2, before
                  anything is profiled

--scenario NAME: profiles a macro scenario's target instead (perf only): gatebench-macro runs
the scenario once (--warmup, then --seconds of load, no baseline) with every process of its
gateway-role services (the reference gateway, nginx, haproxy, h2o...) started under perf record
(cpu-clock, DWARF call graphs; forked workers and threads included). The profile covers the
target from its start to its stop, warm-up and load included; whole stacks are kept (no frame
is cut). Raw profile: perf.<scenario>.<service>.data, the run's results under DIR/macro (its
CPU figures include perf's own cost). Profile the release build: the debug build's sanitizers
are most of its profile.
  --warmup D      load before the measured run (default 1s)
  --macro PATH    gatebench-macro (default: as gatebench macro finds it)
  --port-offset N, --connections N, --bin-dir DIR, --scenario-dir DIR
                  passed to gatebench-macro
exit: 0 ok, 1 failure, 2 bad input
)";

// The functions printed by cost; frames holding (nearly) all of it say nothing and are counted.
void print_top(const std::vector<FunctionCost>& by_self, const std::vector<FunctionCost>& by_incl,
               double total, std::size_t top) {
  for (const bool inclusive : {false, true}) {
    std::cout << (inclusive ? "top by inclusive cost" : "top by self cost") << ":\n";
    std::size_t trunk = 0, shown = 0;
    for (const auto& f : inclusive ? by_incl : by_self) {
      if (inclusive && f.inclusive >= 0.9995 * total) {
        ++trunk;
        continue;
      }
      const double cost = inclusive ? f.inclusive : f.self;
      if (cost <= 0 || shown++ == top) break;
      std::cout << "  " << fmt_percent(cost / total, false) << "  " << f.name << "\n";
    }
    if (trunk > 0)
      std::cout << "  (" << trunk << " frames holding the whole profile, not listed)\n";
    std::cout << "\n";
  }
}

std::string top_text(const std::vector<FunctionCost>& list, bool inclusive, double total,
                     const std::string& unit) {
  std::string s = std::string("# functions by ") + (inclusive ? "inclusive" : "self") +
                  " cost; total " + fmt_sig(total, 6) + " " + unit + "\n";
  for (const auto& f : list) {
    const double v = inclusive ? f.inclusive : f.self;
    if (v <= 0) break;
    s += fmt_percent(v / total, false) + "\t" + fmt_sig(v, 6) + "\t" + f.name + "\n";
  }
  return s;
}

// build/callgrind of the source tree this gatebench was built from, configured and built when
// missing: the native build's AVX-512 code stops valgrind 3.19.
std::string callgrind_micro_binary() {
  const std::string src(build_source_dir());
  const std::string build = src + "/build/callgrind";
  const std::string bin = build + "/micro/bench/gatebench-micro";
  if (::access(bin.c_str(), X_OK) == 0) return bin;
  const std::string cmake = common::find_on_path("cmake");
  if (cmake.empty() || !std::filesystem::exists(src + "/CMakePresets.json"))
    throw common::UsageError(bin + " not found and no source tree with CMakePresets.json at " +
                             src + " to build it; give --bench");
  std::cerr << "gatebench profile: " << bin << " is missing; building the callgrind preset\n";
  if (!std::filesystem::exists(build + "/CMakeCache.txt") &&
      common::run_to_exit(common::command({cmake, "-S", src, "--preset", "callgrind"})) != 0)
    throw std::runtime_error("cmake --preset callgrind failed in " + src);
  const unsigned jobs = std::max(1u, std::thread::hardware_concurrency());
  if (common::run_to_exit(common::command({cmake, "--build", build, "--target", "gatebench-micro",
                                           "-j", std::to_string(jobs)})) != 0)
    throw std::runtime_error("cmake --build " + build + " --target gatebench-micro failed");
  return bin;
}

// The top tables, the flame graph and the printed summary of a sampled profile.
void write_stack_outputs(const StackProfile& s, const std::string& title,
                         const std::filesystem::path& out, std::size_t top) {
  const std::string unit = "ns of " + s.event;
  const auto by_self = top_functions(s, false, s.names.size());
  const auto by_incl = top_functions(s, true, s.names.size());
  write_text_file((out / "top_self.txt").string(), top_text(by_self, false, s.total, unit));
  write_text_file((out / "top_inclusive.txt").string(), top_text(by_incl, true, s.total, unit));
  FlameGraphOptions fg;
  fg.title = title;
  write_text_file((out / "flamegraph.svg").string(), flamegraph_svg(s, fg));
  print_top(by_self, by_incl, s.total, top);
}

void profile_perf(const std::string& name, const std::string& bench,
                  const std::vector<std::string>& bench_args, double seconds,
                  const std::filesystem::path& out, std::size_t top) {
  PerfOptions opt;
  opt.perf = common::find_on_path("perf");
  if (opt.perf.empty()) throw std::runtime_error("perf not found (apt-get install linux-perf)");
  opt.bench = bench;
  opt.bench_args = bench_args;
  opt.benchmark = name;
  opt.seconds = seconds;
  opt.data_file = (out / "perf.data").string();
  opt.log_file = (out / "perf.log").string();
  std::cerr << "gatebench profile: " << name << " under perf record -e cpu-clock for " << seconds
            << " s ...\n";
  const PerfProfile p = record_perf(opt);
  const double all = p.stacks.total + p.left_out;
  if (p.kept == 0)
    throw std::runtime_error(name + ": no sample inside the benchmark function (" +
                             fmt_sig(all, 4) + " " + p.stacks.event +
                             " outside it; skipped benchmark?); see " + opt.log_file);
  const StackProfile& s = p.stacks;
  std::cout << name << ": " << p.kept << " samples in the benchmark function ("
            << fmt_percent(s.total / all, false) << " of the process's " << s.event
            << "; the rest is start-up and Google Benchmark's runner)\n\n";
  write_stack_outputs(s,
                      name + " — " + std::to_string(p.kept) + " perf samples (" + s.event + ", " +
                          std::to_string(opt.frequency) + " Hz)",
                      out, top);
  for (const char* f : {"perf.data", "top_self.txt", "top_inclusive.txt", "flamegraph.svg"})
    std::cout << (out / f).string() << "\n";
}

void profile_callgrind(const std::string& name, InstructionOptions opt,
                       const std::filesystem::path& out, std::size_t top) {
  opt.valgrind = common::find_on_path("valgrind");
  if (opt.valgrind.empty())
    throw std::runtime_error("valgrind not found (apt-get install valgrind)");
  opt.work_dir = (out / "work").string();
  std::cerr << "gatebench profile: " << name << " under callgrind ...\n";
  const LoopDumps d = collect_loop_dumps(name, opt);
  if (!d.unsupported.empty()) throw std::runtime_error(d.unsupported);
  if (d.files.empty())
    throw std::runtime_error(name + ": no timed loop was recorded (skipped benchmark?); see " +
                             d.dir);
  if (static_cast<int>(d.files.size()) < opt.points)
    std::cerr << "gatebench profile: only " << d.files.size()
              << " loop runs happened; profiling the last one\n";
  const std::filesystem::path raw = out / "callgrind.out";
  std::filesystem::copy_file(d.files.back(), raw,
                             std::filesystem::copy_options::overwrite_existing);
  std::filesystem::remove_all(opt.work_dir);

  const std::string annotate = common::find_on_path("callgrind_annotate");
  if (annotate.empty()) throw std::runtime_error("callgrind_annotate not found (valgrind package)");
  // Frames already active when the dump started (main ... the benchmark function) carry their
  // cost in "calls=0" records, which callgrind_annotate 3.19 books as self cost of the caller;
  // a copy with calls=1 gives it the right self/inclusive split.
  const std::filesystem::path for_annotate = out / "callgrind.annotate.out";
  {
    std::string text = read_text_file(raw.string()), fixed;
    fixed.reserve(text.size());
    std::size_t start = 0;
    while (start < text.size()) {
      std::size_t end = text.find('\n', start);
      if (end == std::string::npos) end = text.size();
      std::string line = text.substr(start, end - start);
      if (line.rfind("calls=0 ", 0) == 0) line = "calls=1 " + line.substr(8);
      fixed += line + "\n";
      start = end + 1;
    }
    write_text_file(for_annotate.string(), fixed);
  }
  write_text_file((out / "top_self.txt").string(),
                  common::output_of({annotate, "--auto=no", for_annotate.string()}));
  write_text_file(
      (out / "top_inclusive.txt").string(),
      common::output_of({annotate, "--auto=no", "--inclusive=yes", for_annotate.string()}));
  std::filesystem::remove(for_annotate);

  const CallgrindProfile profile = parse_callgrind(raw.string());
  FlameGraphOptions fg;
  fg.title = name + " — " + fmt_sig(d.iterations.back(), 4) + " iterations under callgrind";
  write_text_file((out / "flamegraph.svg").string(), flamegraph_svg(profile, fg));

  const double per_iteration = profile.total / d.iterations.back();
  std::cout << name << ": " << fmt_sig(profile.total, 4) << " " << profile.event << " in "
            << fmt_sig(d.iterations.back(), 4) << " iterations (~" << fmt_sig(per_iteration, 4)
            << " per iteration)\n\n";
  print_top(top_functions(profile, false, profile.names.size()),
            top_functions(profile, true, profile.names.size()), profile.total, top);
  for (const char* f : {"callgrind.out", "top_self.txt", "top_inclusive.txt", "flamegraph.svg"})
    std::cout << (out / f).string() << "\n";
}

struct ScenarioRun {
  std::string macro;              // gatebench-macro
  std::vector<std::string> pass;  // its options given through
  double seconds = 5, warmup = 1;
};

// gatebench-macro runs the scenario with its gateway-role services under perf record; their
// samples, merged, are the profile.
void profile_scenario(const std::string& name, const ScenarioRun& run,
                      const std::filesystem::path& out, std::size_t top) {
  const std::string perf = common::find_on_path("perf");
  if (perf.empty()) throw std::runtime_error("perf not found (apt-get install linux-perf)");
  const std::string dir = std::filesystem::absolute(out).lexically_normal().string();
  // --gateway-wrapper splits its command on spaces.
  if (dir.find(' ') != std::string::npos)
    throw common::UsageError("option --out: the directory may not contain spaces (" + dir + ")");
  for (const auto& e : std::filesystem::directory_iterator(dir))
    if (e.path().filename().string().starts_with("perf." + name + "."))
      std::filesystem::remove(e.path());
  constexpr int kFrequency = 999;
  const auto record = perf_record_args(perf, kFrequency, dir + "/perf.{scenario}.{service}.data");
  std::string wrapper;
  for (const auto& w : record) wrapper += (wrapper.empty() ? "" : " ") + w;
  std::ostringstream seconds, warmup;
  seconds << run.seconds;
  warmup << run.warmup;
  std::vector<std::string> cmd = {run.macro,    "--scenarios", name,           "--rounds",
                                  "1",          "--duration",  seconds.str(),  "--warmup",
                                  warmup.str(), "--out",       dir + "/macro", "--gateway-wrapper",
                                  wrapper};
  cmd.insert(cmd.end(), run.pass.begin(), run.pass.end());
  std::cerr << "gatebench profile: " << name << "'s target under perf record -e cpu-clock ("
            << run.warmup << " s warm-up, " << run.seconds << " s measured) ...\n";
  const std::string log = dir + "/macro.log";
  const int rc = common::run_to_exit(common::command(cmd, log, log));
  std::string outcome;
  try {
    const auto doc = load_json_file(dir + "/macro/macro.json");
    for (const auto& s : doc.at("scenarios"))
      if (s.value("name", "") == name) {
        outcome = s.value("status", "?");
        if (s.contains("reason") && s["reason"].is_string() &&
            !s["reason"].get<std::string>().empty())
          outcome += ": " + s["reason"].get<std::string>();
        if (s.contains("requests") && s["requests"].is_number())
          outcome += ", " + fmt_sig(s["requests"].get<double>(), 6) + " requests measured";
      }
  } catch (const std::exception&) {
  }
  std::vector<std::filesystem::path> data;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    const std::string f = e.path().filename().string();
    if (f.starts_with("perf." + name + ".") && f.ends_with(".data")) data.push_back(e.path());
  }
  std::sort(data.begin(), data.end());
  if (rc != 0 || data.empty()) {
    std::string tail = read_text_file(log);
    if (tail.size() > 2000) tail = "..." + tail.substr(tail.size() - 2000);
    throw std::runtime_error(
        "gatebench-macro exited with code " + std::to_string(rc) +
        (outcome.empty() ? "" : " (" + name + " " + outcome + ")") +
        (data.empty() ? ", no perf data (no gateway-role service, or perf could not record)" : "") +
        "; see " + log + ":\n" + tail);
  }
  StackProfile merged;
  std::vector<std::string> services;
  for (const auto& file : data) {
    const PerfProfile p = read_perf_data(perf, file.string(), dir + "/perf.log", true);
    if (merged.event.empty()) merged.event = p.stacks.event;
    for (const auto& sample : p.stacks.samples) {
      StackProfile::Sample copy;
      copy.weight = sample.weight;
      for (const int f : sample.frames)
        copy.frames.push_back(merged.intern(p.stacks.names[static_cast<std::size_t>(f)]));
      merged.samples.push_back(std::move(copy));
    }
    merged.total += p.stacks.total;
    services.push_back(file.filename().string());
  }
  if (merged.samples.empty())
    throw std::runtime_error(name + ": perf recorded no sample of the target; see " + log);
  std::cout << name << " (" << outcome << "): " << merged.samples.size() << " samples, "
            << fmt_sig(merged.total / 1e9, 4) << " s of " << merged.event
            << " in the target's processes\n\n";
  write_stack_outputs(merged,
                      name + " — " + std::to_string(merged.samples.size()) + " perf samples (" +
                          merged.event + ", " + std::to_string(kFrequency) + " Hz)",
                      out, top);
  for (const auto& f : services) std::cout << (out / f).string() << "\n";
  for (const char* f : {"top_self.txt", "top_inclusive.txt", "flamegraph.svg"})
    std::cout << (out / f).string() << "\n";
}

}  // namespace

int command_profile(const CommandArgs& argv) {
  const common::CommandLine args(
      argv,
      {"mode", "out", "bench", "runs", "top", "budget", "seconds", "input", "scenario", "warmup",
       "macro", "port-offset", "connections", "bin-dir", "scenario-dir"},
      {"help"});
  if (args.flag("help")) {
    std::cout << kProfileHelp;
    return 0;
  }
  const std::vector<const char*> scenario_only = {"warmup",      "macro",   "port-offset",
                                                  "connections", "bin-dir", "scenario-dir"};
  if (auto scenario = args.value("scenario")) {
    if (scenario->empty()) throw common::UsageError("option --scenario: needs a scenario name");
    if (!args.positionals().empty())
      throw common::UsageError("--scenario profiles a scenario; no FILTER with it");
    for (const char* o : {"bench", "runs", "budget", "input"})
      if (args.value(o))
        throw common::UsageError(std::string("option --") + o + ": not with --scenario");
    if (args.value("mode") && *args.value("mode") != "perf")
      throw common::UsageError("option --scenario: perf mode only");
    ScenarioRun run;
    run.seconds = args.duration_s("seconds").value_or(5);
    if (!(run.seconds >= 0.1 && run.seconds <= 600))
      throw common::UsageError("option --seconds: between 100ms and 600s");
    run.warmup = args.duration_s("warmup").value_or(1);
    if (!(run.warmup >= 0 && run.warmup <= 600))
      throw common::UsageError("option --warmup: between 0 and 600s");
    run.macro = locate_macro_binary(args.value("macro"));
    for (const char* o : {"port-offset", "connections", "bin-dir", "scenario-dir"})
      if (auto v = args.value(o)) run.pass.insert(run.pass.end(), {std::string("--") + o, *v});
    const long top = args.integer("top", 1, 100'000).value_or(15);
    const std::filesystem::path out = args.value_or("out", "profile-" + *scenario);
    std::filesystem::create_directories(out);
    profile_scenario(*scenario, run, out, static_cast<std::size_t>(top));
    return 0;
  }
  for (const char* o : scenario_only)
    if (args.value(o))
      throw common::UsageError(std::string("option --") + o + ": only with --scenario");
  if (args.positionals().size() != 1)
    throw common::UsageError("profile needs one FILTER (see --help)");
  const std::string filter = args.positionals()[0];
  const std::string mode = args.choice("mode", {"perf", "callgrind"}).value_or("perf");
  for (const char* o : {"runs", "budget"})
    if (mode == "perf" && args.value(o))
      throw common::UsageError(std::string("option --") + o +
                               ": callgrind mode only (--mode callgrind)");
  if (mode == "callgrind" && args.value("seconds"))
    throw common::UsageError("option --seconds: perf mode only");
  const std::vector<std::string> inputs = micro_input_args(args.values("input"));
  const long top = args.integer("top", 1, 100'000).value_or(15);
  const double seconds = args.duration_s("seconds").value_or(2);
  if (!(seconds > 0 && seconds <= 600))
    throw common::UsageError("option --seconds: between 0 and 600");
  InstructionOptions opt;
  opt.points = static_cast<int>(args.integer("runs", 1, 7).value_or(4));
  opt.budget = args.number("budget").value_or(opt.budget);
  opt.min_points = 1;
  opt.bench_args = inputs;
  opt.bench = mode == "callgrind" && !args.value("bench")
                  ? callgrind_micro_binary()
                  : locate_micro_binary(args.value("bench"));

  // With --input the rows over the files exist only in a listing that has it; a bad file stops
  // here with exit 2.
  const auto names = list_micro_benchmarks(opt.bench, filter, inputs);
  if (names.empty()) throw common::UsageError("FILTER '" + filter + "' selects no benchmark");
  if (names.size() > 1) {
    std::string list;
    for (const auto& n : names) list += "\n  " + n;
    throw common::UsageError("FILTER '" + filter + "' selects " + std::to_string(names.size()) +
                             " benchmarks; profile needs exactly one:" + list);
  }
  const std::string& name = names[0];
  std::string safe = name;
  for (char& c : safe)
    if (c == '/') c = '_';
  const std::filesystem::path out = args.value_or("out", "profile-" + safe);
  std::filesystem::create_directories(out);
  if (mode == "perf")
    profile_perf(name, opt.bench, inputs, seconds, out, static_cast<std::size_t>(top));
  else
    profile_callgrind(name, opt, out, static_cast<std::size_t>(top));
  return 0;
}

}  // namespace gatebench::tools
