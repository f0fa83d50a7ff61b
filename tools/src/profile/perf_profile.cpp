#include "tools/src/profile/perf_profile.hpp"

#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "macro/common/child_process.hpp"
#include "tools/src/profile/instruction_counter.hpp"
#include "tools/src/results/json_file.hpp"

namespace gatebench::tools {

namespace {

struct PerfFrame {
  std::string symbol, dso;
};

// "\t  a4fca gatebench::tokens::sha256_compress_shani (/path/gatebench-micro)"; symbols may hold
// spaces and parentheses, the dso is the last parenthesised group.
PerfFrame parse_frame(const std::string& line) {
  const auto address = line.find_first_not_of(" \t");
  const auto space = line.find(' ', address);
  if (address == std::string::npos || space == std::string::npos)
    throw std::runtime_error("expected '<address> <symbol> (<dso>)'");
  PerfFrame f;
  std::string rest = line.substr(line.find_first_not_of(' ', space));
  const auto open = rest.rfind(" (");
  if (!rest.empty() && rest.back() == ')' && open != std::string::npos) {
    f.dso = rest.substr(open + 2, rest.size() - open - 3);
    rest.resize(open);
  }
  f.symbol = rest;
  return f;
}

std::string frame_name(const PerfFrame& f) {
  if (f.symbol != "[unknown]" || f.dso.empty()) return f.symbol;
  return "[" + f.dso.substr(f.dso.rfind('/') + 1) + "]";
}

bool is_benchmark_library(const PerfFrame& f) {
  return f.dso.find("libbenchmark") != std::string::npos || f.symbol.starts_with("benchmark::");
}

void add_sample(std::vector<PerfFrame>& leaf_first, double weight, bool whole_stacks,
                PerfProfile& out) {
  std::size_t i = leaf_first.size();  // walk from the outermost frame
  if (whole_stacks) {
    if (leaf_first.empty()) leaf_first.push_back(PerfFrame{"[no stack]", ""});
    i = leaf_first.size();
  } else {
    while (i > 0 && !is_benchmark_library(leaf_first[i - 1])) --i;
    while (i > 0 && is_benchmark_library(leaf_first[i - 1])) --i;
    const bool runner_seen = i < leaf_first.size() && is_benchmark_library(leaf_first[i]);
    if (!runner_seen || i == 0) {
      out.left_out += weight;
      return;
    }
  }
  StackProfile::Sample s;
  s.weight = weight;
  for (std::size_t k = i; k > 0; --k)
    s.frames.push_back(out.stacks.intern(frame_name(leaf_first[k - 1])));
  out.stacks.samples.push_back(std::move(s));
  out.stacks.total += weight;
  ++out.kept;
}

}  // namespace

PerfProfile parse_perf_script(std::istream& in, const std::string& file, bool whole_stacks) {
  PerfProfile out;
  std::vector<PerfFrame> frames;
  double weight = 0;
  bool in_sample = false;
  std::string line;
  std::size_t line_no = 0;
  try {
    auto finish = [&] {
      if (in_sample) add_sample(frames, weight, whole_stacks, out);
      frames.clear();
      in_sample = false;
    };
    while (std::getline(in, line)) {
      ++line_no;
      if (line.find_first_not_of(" \t") == std::string::npos) {
        finish();
      } else if (line[0] == '\t') {
        if (!in_sample) throw std::runtime_error("stack frame before a sample header");
        frames.push_back(parse_frame(line));
      } else {
        finish();
        // "   1000000 cpu-clock: ": the period, then the event name.
        std::istringstream fields(line);
        std::string event;
        if (!(fields >> weight >> event) || event.back() != ':')
          throw std::runtime_error("expected '<period> <event>:' (perf script -F event,period)");
        event.pop_back();
        if (out.stacks.event.empty()) out.stacks.event = event;
        in_sample = true;
      }
    }
    finish();
  } catch (const std::exception& e) {
    throw std::runtime_error(file + ":" + std::to_string(line_no) + ": " + e.what());
  }
  return out;
}

std::vector<std::string> perf_record_args(const std::string& perf, int frequency,
                                          const std::string& data_file) {
  // -B: no build-id pass over the data at exit, which can take longer than a stopping service's
  // grace; perf script resolves symbols from the binaries still in place.
  return {perf,
          "record",
          "-e",
          "cpu-clock",
          "-F",
          std::to_string(frequency),
          "--call-graph",
          "dwarf,16384",
          "-q",
          "-B",
          "-o",
          data_file,
          "--"};
}

PerfProfile read_perf_data(const std::string& perf, const std::string& data_file,
                           const std::string& log_file, bool whole_stacks) {
  const std::string script = data_file + ".script.txt";
  const int src = common::run_to_exit(common::command(
      {perf, "script", "-i", data_file, "-F", "event,period,ip,sym,dso", "--no-inline"}, script,
      log_file));
  if (src != 0)
    throw std::runtime_error("perf script -i " + data_file + " exited with code " +
                             std::to_string(src) + "; see " + log_file);
  std::ifstream in(script);
  PerfProfile p = parse_perf_script(in, script, whole_stacks);
  in.close();
  std::filesystem::remove(script);
  return p;
}

PerfProfile record_perf(const PerfOptions& opt) {
  std::ostringstream min_time;
  min_time << opt.seconds;
  std::vector<std::string> cmd = perf_record_args(opt.perf, opt.frequency, opt.data_file);
  cmd.insert(cmd.end(), {opt.bench, "--benchmark_filter=" + exact_filter(opt.benchmark),
                         "--benchmark_min_time=" + min_time.str(), "--benchmark_repetitions=1"});
  cmd.insert(cmd.end(), opt.bench_args.begin(), opt.bench_args.end());
  const int rc = common::run_to_exit(common::command(cmd, "/dev/null", opt.log_file));
  if (rc != 0) {
    std::string log = read_text_file(opt.log_file);
    if (log.size() > 2000) log = "..." + log.substr(log.size() - 2000);
    throw std::runtime_error("perf record exited with code " + std::to_string(rc) +
                             " (perf_event_paranoid above 1 needs root; see " + opt.log_file +
                             "):\n" + log);
  }
  return read_perf_data(opt.perf, opt.data_file, opt.log_file, false);
}

}  // namespace gatebench::tools
