// gatebench-micro's entry point: Google Benchmark's own main plus the context a reader of
// micro.json needs to reproduce the inputs, and the benchmarks over the user's own files
// (--input KIND=FILE, docs/micro-input.md).
#include <benchmark/benchmark.h>
#include <sys/utsname.h>

#include <cstdio>
#include <fstream>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "fixtures/rng.hpp"
#include "macro/common/build_info.hpp"
#include "micro/bench/bench_traffic.hpp"
#include "micro/bench/input_access_log.hpp"
#include "micro/bench/input_benchmarks.hpp"
#include "micro/bench/input_cidr.hpp"
#include "micro/bench/input_options.hpp"
#include "micro/bench/input_rules.hpp"
#include "micro/bench/input_tokens.hpp"

namespace {

using namespace gatebench::bench;

std::string cpu_model() {
  std::ifstream cpuinfo("/proc/cpuinfo");
  for (std::string line; std::getline(cpuinfo, line);)
    if (line.starts_with("model name"))
      if (const auto colon = line.find(':'); colon != std::string::npos)
        if (const auto start = line.find_first_not_of(" \t", colon + 1); start != std::string::npos)
          return line.substr(start);
  return "";
}

std::string kernel() {
  utsname u{};
  return uname(&u) == 0 ? std::string(u.sysname) + " " + u.release : "";
}

// Every file is loaded and checked before the first benchmark is registered, so a bad line in
// the last file still stops the run before anything is measured.
void register_inputs(std::vector<InputFile> files) {
  std::vector<AccessLogInput> logs;
  std::vector<gatebench::cidr::CidrEntry> cidr;
  std::unique_ptr<gatebench::rules::RuleSet> rule_set;
  std::unique_ptr<gatebench::fixtures::Traffic> traffic;
  std::unique_ptr<TokenCorpus> tokens;
  for (InputFile& f : files) {
    add_input_context(f);  // before a loader takes the bytes
    if (f.kind.starts_with("access_log.")) {
      logs.push_back(load_access_log_input(std::move(f)));
    } else if (f.kind == "cidr") {
      cidr = load_cidr_input(f);
    } else if (f.kind == "rules") {
      rule_set = std::make_unique<gatebench::rules::RuleSet>(load_rules_input(f));
    } else if (f.kind == "traffic") {
      traffic = std::make_unique<gatebench::fixtures::Traffic>(load_traffic_input(f));
    } else if (f.kind == "tokens") {
      tokens = load_tokens_input(f);
    }
  }
  for (AccessLogInput& log : logs) register_access_log_input(std::move(log));
  if (!cidr.empty()) register_cidr_input(std::move(cidr));
  const bool has_traffic = traffic != nullptr;
  if (has_traffic) set_input_traffic(std::move(traffic));
  if (rule_set || has_traffic) register_rules_inputs(std::move(rule_set), has_traffic);
  if (has_traffic) {
    register_exploit_input();
    register_modsecurity_input();
  }
  if (tokens) register_token_input(std::move(tokens));
}

bool wants_help(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "--help" || arg == "-h") return true;
  }
  return false;
}

}  // namespace

int main(int argc, char** argv) {
  if (wants_help(argc, argv)) {
    std::printf(
        "gatebench-micro [--input KIND=FILE]... [Google Benchmark options]\n"
        "  --input KIND=FILE  also run that kind's benchmarks on FILE (cases named 'input');\n"
        "                     KIND is access_log.tsv, access_log.combined, access_log.jsonl,\n"
        "                     rules, traffic, cidr or tokens (docs/micro-input.md).\n"
        "                     Bad input: exit 2.\n\n");
  }
  try {
    register_inputs(take_input_options(argc, argv));
  } catch (const InputError& e) {
    std::fprintf(stderr, "gatebench-micro: %s\n", e.what());
    return 2;
  }
  benchmark::AddCustomContext("gatebench_fixtures_seed",
                              std::to_string(gatebench::fixtures::kDefaultSeed));
  // The code measured, not the checkout's HEAD when the run happened.
  benchmark::AddCustomContext("gatebench_commit", std::string(gatebench::build_commit()));
  benchmark::AddCustomContext("gatebench_dirty", gatebench::build_dirty() ? "true" : "false");
  // Google Benchmark's context names the host and caches but not these; `gatebench history`
  // keeps runs of different machines apart by them (docs/history.md).
  benchmark::AddCustomContext("gatebench_cpu_model", cpu_model());
  benchmark::AddCustomContext("gatebench_kernel", kernel());
  benchmark::AddCustomContext("gatebench_compiler", std::string(gatebench::build_compiler()));
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 2;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
