#include "tools/src/profile/instruction_counter.hpp"

#include <chrono>
#include <cmath>
#include <filesystem>
#include <sstream>
#include <thread>

#include "macro/common/child_process.hpp"
#include "tools/src/profile/callgrind_file.hpp"
#include "tools/src/results/json_file.hpp"

namespace gatebench::tools {

namespace fs = std::filesystem;

std::vector<std::string> list_benchmarks(const std::string& bench, const std::string& filter) {
  const std::string out =
      common::output_of({bench, "--benchmark_list_tests=true", "--benchmark_filter=" + filter});
  std::vector<std::string> names;
  std::istringstream lines(out);
  std::string line;
  while (std::getline(lines, line))
    if (!line.empty()) names.push_back(line);
  return names;
}

std::string exact_filter(const std::string& name) {
  std::string re = "^";
  for (char c : name) {
    if (std::string_view(".^$|()[]{}*+?\\").find(c) != std::string_view::npos) re += '\\';
    re += c;
  }
  return re + "$";
}

std::map<std::string, double> items_per_iteration(const std::string& bench,
                                                  const std::string& filter) {
  // A hundredth of a second per benchmark: the count is exact whatever the iterations were.
  const std::string out = common::output_of(
      {bench, "--benchmark_filter=" + filter, "--benchmark_repetitions=1",
       "--benchmark_min_time=0.01", "--benchmark_enable_random_interleaving=false",
       "--benchmark_format=json"});
  const nlohmann::json doc = nlohmann::json::parse(out);
  const MicroRun run =
      parse_gbench_json(common::JsonField(doc, bench + " --benchmark_format=json"));
  std::map<std::string, double> items;
  for (const auto& b : run.benchmarks) {
    if (!b.error.empty() || b.cpu_ns.empty()) continue;
    if (b.items_per_second.empty()) {
      items[b.name] = 1;
      continue;
    }
    const double per = b.items_per_second.front() * b.cpu_ns.front() / 1e9;
    items[b.name] = std::round(per) >= 1 ? std::round(per) : per;
  }
  return items;
}

LoopDumps collect_loop_dumps(const std::string& name, const InstructionOptions& opt) {
  LoopDumps out;
  std::string safe = name;
  for (char& c : safe)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '-') c = '_';
  const fs::path dir = fs::path(opt.work_dir) / safe;
  fs::remove_all(dir);
  fs::create_directories(dir);
  out.dir = dir.string();
  const std::string prefix = (dir / "callgrind.out").string();
  const std::string valgrind_log = (dir / "valgrind.txt").string();

  std::vector<std::string> argv = {opt.valgrind,
                                   "--tool=callgrind",
                                   "--callgrind-out-file=" + prefix,
                                   "--dump-after=benchmark::State::StartKeepRunning()",
                                   "--dump-before=benchmark::State::FinishKeepRunning()",
                                   opt.bench,
                                   "--benchmark_filter=" + exact_filter(name),
                                   "--benchmark_repetitions=1",
                                   "--benchmark_enable_random_interleaving=false",
                                   "--benchmark_min_time=" + std::to_string(opt.min_time)};
  argv.insert(argv.end(), opt.bench_args.begin(), opt.bench_args.end());
  common::ChildProcess child = common::ChildProcess::spawn(
      common::command(argv, (dir / "stdout.txt").string(), valgrind_log));

  // Dump 2k holds loop run k; dump 2k+1 existing means dump 2k is complete.
  auto dump = [&](int n) { return prefix + "." + std::to_string(n); };
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::duration<double>(opt.timeout_seconds);
  for (int k = 1; k <= opt.points; ++k) {
    while (!fs::exists(dump(2 * k + 1)) && !out.exited_early && !out.timed_out) {
      if (!child.alive())
        out.exited_early = true;
      else if (std::chrono::steady_clock::now() > deadline)
        out.timed_out = true;
      else
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    if (!fs::exists(dump(2 * k))) break;
    if (!fs::exists(dump(2 * k + 1)) && !out.exited_early) break;  // possibly incomplete
    out.files.push_back(dump(2 * k));
    out.iterations.push_back(std::pow(10.0, k - 1));
    if (out.exited_early || out.timed_out) break;
    // The next run does 10x the iterations: stop before one that would exceed the budget.
    if (k < opt.points && 10 * callgrind_total_instructions(dump(2 * k)) > opt.budget) {
      out.over_budget = true;
      break;
    }
  }
  child.stop(std::chrono::milliseconds(0));
  if (out.exited_early && fs::exists(valgrind_log)) {
    const std::string log = read_text_file(valgrind_log);
    if (log.find("unhandled instruction bytes") != std::string::npos)
      out.unsupported =
          "valgrind cannot decode an instruction of this build (AVX-512 from -march=native?): "
          "build gatebench-micro with -DGATEBENCH_MARCH=x86-64-v3 for callgrind (see " +
          valgrind_log + ")";
  }
  return out;
}

InstructionCount count_instructions(const std::string& name, const InstructionOptions& opt) {
  InstructionCount result;
  result.name = name;
  const LoopDumps d = collect_loop_dumps(name, opt);
  std::vector<double> loop;
  for (const auto& f : d.files) loop.push_back(callgrind_total_instructions(f));
  const auto& iterations = d.iterations;
  result.detail = {
      {"iterations", iterations}, {"loop_instructions", loop}, {"callgrind_dir", d.dir}};
  if (!d.unsupported.empty()) {
    result.error = d.unsupported;
    return result;
  }
  if (static_cast<int>(loop.size()) < std::max(3, opt.min_points)) {
    result.error =
        d.over_budget
            ? "too heavy for the instruction budget: the run of " +
                  std::to_string(static_cast<long>(iterations.back() * 10)) +
                  " iterations would exceed " + std::to_string(opt.budget) + " Ir (--budget)"
        : d.exited_early
            ? "the benchmark finished after " + std::to_string(loop.size()) +
                  " timed runs (skipped, errored, or explicit Iterations()/MinTime()); see " +
                  d.dir + "/stdout.txt"
            : "timed out after " + std::to_string(opt.timeout_seconds) + " s";
    return result;
  }
  const std::size_t last = loop.size() - 1;
  const double slope = (loop[last] - loop[last - 1]) / (iterations[last] - iterations[last - 1]);
  const double check =
      (loop[last - 1] - loop[last - 2]) / (iterations[last - 1] - iterations[last - 2]);
  result.detail["slope_check"] = check;
  if (slope <= 0 || std::abs(check - slope) > opt.consistency * slope) {
    result.error =
        "inconsistent loop counts (slope " + std::to_string(slope) + " vs " +
        std::to_string(check) +
        "): the x10 iteration sequence broke; raise --min-time or check for Iterations()/MinTime()";
    return result;
  }
  result.per_iteration = slope;
  return result;
}

}  // namespace gatebench::tools
