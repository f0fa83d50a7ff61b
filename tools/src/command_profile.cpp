#include <filesystem>
#include <iostream>

#include "tools/src/args.hpp"
#include "tools/src/bad_input.hpp"
#include "tools/src/callgrind_profile.hpp"
#include "tools/src/commands.hpp"
#include "tools/src/flamegraph.hpp"
#include "tools/src/format.hpp"
#include "tools/src/instruction_counter.hpp"
#include "tools/src/json_file.hpp"
#include "tools/src/micro_binary.hpp"
#include "tools/src/process.hpp"

namespace gatebench::tools {

namespace {

constexpr const char* kHelp = R"(usage: gatebench profile FILTER [options]

Profiles one micro benchmark (FILTER must select exactly one) under callgrind: hardware
counters are not available on these VMs, so perf is not used. Only the timed loop is profiled:
callgrind dumps at State::StartKeepRunning()/FinishKeepRunning() (see gatebench micro --help) and
the dump of the 10^(runs-1)-iteration loop is kept. Writes to --out DIR:
  callgrind.out          the raw profile (open with kcachegrind / callgrind_annotate)
  top_self.txt           callgrind_annotate, functions by self cost
  top_inclusive.txt      callgrind_annotate --inclusive=yes
  flamegraph.svg         flame graph drawn by gatebench from the call graph
and prints the top functions.

Needs a gatebench-micro that valgrind can decode: valgrind 3.19 has no AVX-512, so build with
-DGATEBENCH_MARCH=x86-64-v3 (cmake --preset release -B build/callgrind -DGATEBENCH_MARCH=x86-64-v3).

options:
  --out DIR       output directory (default profile-<benchmark>)
  --bench PATH    gatebench-micro (default: see gatebench micro --help)
  --runs K        loop runs: the profile covers 10^(K-1) iterations (default 4, 1000 iterations)
  --top N         functions printed (default 15)
  --budget IR     stop before a loop run predicted above IR instructions (default 2e9)
exit: 0 ok, 1 failure, 2 bad input
)";

}  // namespace

int command_profile(const CommandArgs& argv) {
  const Args args(argv, {"out", "bench", "runs", "top", "budget"}, {"help"});
  if (args.flag("help")) {
    std::cout << kHelp;
    return 0;
  }
  if (args.positionals().size() != 1) throw BadInput("profile needs one FILTER (see --help)");
  const std::string filter = args.positionals()[0];
  InstructionOptions opt;
  opt.bench = locate_micro_binary(args.value("bench"));
  opt.points = static_cast<int>(args.integer_or("runs", 4));
  if (opt.points < 1 || opt.points > 7) throw BadInput("option --runs: expected 1..7");
  opt.budget = args.number_or("budget", opt.budget);
  opt.min_points = 1;
  const long top = args.integer_or("top", 15);
  opt.valgrind = find_on_path("valgrind");
  if (opt.valgrind.empty())
    throw std::runtime_error("valgrind not found (apt-get install valgrind)");

  const auto names = list_benchmarks(opt.bench, filter);
  if (names.empty()) throw BadInput("FILTER '" + filter + "' selects no benchmark");
  if (names.size() > 1) {
    std::string list;
    for (const auto& n : names) list += "\n  " + n;
    throw BadInput("FILTER '" + filter + "' selects " + std::to_string(names.size()) +
                   " benchmarks; profile needs exactly one:" + list);
  }
  const std::string& name = names[0];
  std::string safe = name;
  for (char& c : safe)
    if (c == '/') c = '_';
  const std::filesystem::path out = args.value_or("out", "profile-" + safe);
  std::filesystem::create_directories(out);
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

  const std::string annotate = find_on_path("callgrind_annotate");
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
                  capture_output({annotate, "--auto=no", for_annotate.string()}));
  write_text_file(
      (out / "top_inclusive.txt").string(),
      capture_output({annotate, "--auto=no", "--inclusive=yes", for_annotate.string()}));
  std::filesystem::remove(for_annotate);

  const CallgrindProfile profile = parse_callgrind(raw.string());
  FlameGraphOptions fg;
  fg.title = name + " — " + fmt_sig(d.iterations.back(), 4) + " iterations under callgrind";
  write_text_file((out / "flamegraph.svg").string(), flamegraph_svg(profile, fg));

  const double per_iteration = profile.total / d.iterations.back();
  std::cout << name << ": " << fmt_sig(profile.total, 4) << " " << profile.event << " in "
            << fmt_sig(d.iterations.back(), 4) << " iterations (~" << fmt_sig(per_iteration, 4)
            << " per iteration)\n\n";
  for (const bool inclusive : {false, true}) {
    std::cout << (inclusive ? "top by inclusive cost" : "top by self cost") << ":\n";
    // The frames that hold the whole loop (main ... the benchmark function) say nothing.
    std::size_t trunk = 0, shown = 0;
    for (const auto& f : top_functions(profile, inclusive, profile.names.size())) {
      if (inclusive && f.inclusive >= 0.9995 * profile.total) {
        ++trunk;
        continue;
      }
      if (shown++ == static_cast<std::size_t>(top)) break;
      std::cout << "  " << fmt_percent((inclusive ? f.inclusive : f.self) / profile.total, false)
                << "  " << f.name << "\n";
    }
    if (trunk > 0)
      std::cout << "  (" << trunk << " frames holding the whole loop, main ... the benchmark, "
                << "not listed)\n";
    std::cout << "\n";
  }
  std::cout << (out / "callgrind.out").string() << "\n"
            << (out / "top_self.txt").string() << "\n"
            << (out / "top_inclusive.txt").string() << "\n"
            << (out / "flamegraph.svg").string() << "\n";
  return 0;
}

}  // namespace gatebench::tools
