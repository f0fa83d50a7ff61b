#include "macro/driver/options.hpp"

#include <cstdlib>
#include <string>

namespace gatebench::macro {

std::string help_text() {
  return R"(usage: gatebench-macro [options]        (also: gatebench macro [options])

Runs end-to-end scenarios (macro/scenarios/*.json, format in docs/scenarios.md): backend, gateway
or baseline, warm-up, measured load with CPU/memory sampling, in rounds; writes OUT/macro.json
(schema gatebench.macro/2) and the raw artifacts next to it (OUT/round-R/<scenario>/).

  --scenarios a,b       run only these (a group name such as latency-at-rate selects its parts)
  --list                print the scenarios and exit
  --duration D          measured run per scenario (default 20s; 500ms, 1m, bare number = s)
  --warmup D            warm-up before it, not measured (default 5s; 0 = none)
  --connections N       load connections (default 64)
  --threads N           load threads (default: one per load CPU, 1 when not pinned)
  --rounds N            run every selected scenario N times, in a different seeded order each
                        round; each scenario's baseline is added and runs in every round, and
                        ratios are paired within a round (default 5; 3 with --quick)
  --seed N              seed of the rounds' orders (default 1)
  --max-error-rate R    a round with more errors than this share of its requests fails
                        (default 0.1%; 0.5% or 0.005; expected statuses are not errors)
  --quick               smoke runs for CI: 1s warm-up, 2s measured, 16 connections, 3 rounds;
                        macro.json says run.quick and its figures are marked as smoke figures
  --rate R              req/s for open-loop scenarios (default: the scenario's, 10000)
  --slo-p99 D           p99 objective of max-throughput (default: the scenario's)
  --dry-run             print the plan (commands, pinning, ports) and start nothing
  --out DIR             results directory (default macro-results)
  --runtime R           process (default) or podman (services in containers, docs/containers.md);
                        docker is accepted but skipped
  --load L              gatebench (gatebench-load, default) or wrk (cross-check)
  --scenario-dir DIR    scenario files (default: this checkout's macro/scenarios)
  --bin-dir DIR         where gatebench-load/-gateway/-control are (default: the build tree)
  --port-offset N       add N to every scenario port (parallel runs, tests)
  --load-cpus L, --backend-cpus L, --gateway-cpus L
                        pin a role to CPUs (taskset syntax, e.g. 2-3); also from the
                        environment GATEBENCH_LOAD_CPUS, GATEBENCH_BACKEND_CPUS,
                        GATEBENCH_GATEWAY_CPUS. Default layout: <4 CPUs not pinned;
                        4-7: load 0, backend 1, gateway 2..n-1; >=8: load 0-1, backend 2-3,
                        gateway 4..n-1.
  --sample-interval D   /proc sampling period during the measured run (default 250ms)
  -h, --help            this text

Exit status: 0 every scenario ok or skipped; 1 a scenario failed; 2 bad options or scenario
file (nothing started); 128+N interrupted by signal N (everything stopped, partial macro.json).
)";
}

double parse_seconds(std::string_view text, std::string_view what) {
  struct Unit {
    std::string_view suffix;
    double scale;
  };
  static constexpr Unit kUnits[] = {{"ms", 1e-3}, {"us", 1e-6}, {"s", 1}, {"m", 60}, {"h", 3600}};
  double scale = 1;
  std::string_view number = text;
  for (const auto& unit : kUnits) {
    if (text.ends_with(unit.suffix)) {
      number = text.substr(0, text.size() - unit.suffix.size());
      scale = unit.scale;
      break;
    }
  }
  std::string s(number);
  char* end = nullptr;
  double value = std::strtod(s.c_str(), &end);
  if (s.empty() || end != s.c_str() + s.size() || value < 0 || value > 1e6) {
    throw UsageError(std::string(what) + ": expected a duration like 20s, 500ms or 1m, got '" +
                     std::string(text) + "'");
  }
  return value * scale;
}

namespace {

long parse_integer(const std::string& text, const std::string& what, long min, long max) {
  char* end = nullptr;
  long value = std::strtol(text.c_str(), &end, 10);
  if (text.empty() || end != text.c_str() + text.size() || value < min || value > max) {
    throw UsageError(what + ": expected an integer from " + std::to_string(min) + " to " +
                     std::to_string(max) + ", got '" + text + "'");
  }
  return value;
}

CpuSet parse_cpus(const std::string& text, const std::string& what) {
  try {
    return parse_cpu_set(text);
  } catch (const std::invalid_argument& e) {
    throw UsageError(what + ": " + e.what());
  }
}

}  // namespace

std::optional<Options> parse_options(const std::vector<std::string>& args) {
  Options o;
  bool duration_given = false, warmup_given = false, connections_given = false,
       rounds_given = false;
  for (const char* name :
       {"GATEBENCH_LOAD_CPUS", "GATEBENCH_BACKEND_CPUS", "GATEBENCH_GATEWAY_CPUS"}) {
    const char* value = std::getenv(name);
    if (value == nullptr || *value == '\0') continue;
    CpuSet set = parse_cpus(value, name);
    std::string_view n(name);
    if (n == "GATEBENCH_LOAD_CPUS") o.cpus.load = set;
    if (n == "GATEBENCH_BACKEND_CPUS") o.cpus.backend = set;
    if (n == "GATEBENCH_GATEWAY_CPUS") o.cpus.gateway = set;
  }
  for (size_t i = 0; i < args.size(); ++i) {
    std::string arg = args[i];
    std::string inline_value;
    bool has_inline = false;
    if (arg.starts_with("--")) {
      if (size_t eq = arg.find('='); eq != std::string::npos) {
        inline_value = arg.substr(eq + 1);
        arg = arg.substr(0, eq);
        has_inline = true;
      }
    }
    auto value = [&]() -> std::string {
      if (has_inline) return inline_value;
      if (i + 1 >= args.size()) throw UsageError(arg + ": needs a value");
      return args[++i];
    };
    if (arg == "-h" || arg == "--help") {
      return std::nullopt;
    } else if (arg == "--scenarios") {
      std::string list = value();
      for (size_t start = 0; start <= list.size();) {
        size_t comma = list.find(',', start);
        if (comma == std::string::npos) comma = list.size();
        if (comma > start) o.scenarios.push_back(list.substr(start, comma - start));
        start = comma + 1;
      }
      if (o.scenarios.empty()) throw UsageError("--scenarios: expected names separated by commas");
    } else if (arg == "--list") {
      o.list = true;
    } else if (arg == "--duration") {
      o.duration_s = parse_seconds(value(), "--duration");
      if (o.duration_s < 0.1) throw UsageError("--duration: must be at least 100ms");
      duration_given = true;
    } else if (arg == "--warmup") {
      o.warmup_s = parse_seconds(value(), "--warmup");
      warmup_given = true;
    } else if (arg == "--connections") {
      o.connections = static_cast<int>(parse_integer(value(), "--connections", 1, 100000));
      connections_given = true;
    } else if (arg == "--threads") {
      o.threads = static_cast<int>(parse_integer(value(), "--threads", 1, 1024));
    } else if (arg == "--quick") {
      o.quick = true;
    } else if (arg == "--rounds") {
      o.rounds = static_cast<int>(parse_integer(value(), "--rounds", 1, 1000));
      rounds_given = true;
    } else if (arg == "--seed") {
      o.seed = static_cast<uint64_t>(parse_integer(value(), "--seed", 0, 2147483647));
    } else if (arg == "--max-error-rate") {
      const std::string v = value();
      const bool pct = v.ends_with("%");
      const std::string number = pct ? v.substr(0, v.size() - 1) : v;
      char* end = nullptr;
      double rate = std::strtod(number.c_str(), &end);
      if (number.empty() || end != number.c_str() + number.size() || rate < 0 ||
          rate > (pct ? 100 : 1)) {
        throw UsageError("--max-error-rate: expected a share like 0.1% or 0.001, got '" + v + "'");
      }
      o.max_error_rate = pct ? rate / 100 : rate;
    } else if (arg == "--rate") {
      std::string v = value();
      char* end = nullptr;
      o.rate = std::strtod(v.c_str(), &end);
      if (v.empty() || end != v.c_str() + v.size() || o.rate <= 0 || o.rate > 1e8) {
        throw UsageError("--rate: expected requests per second in (0, 1e8], got '" + v + "'");
      }
    } else if (arg == "--slo-p99") {
      o.slo_p99_us = parse_seconds(value(), "--slo-p99") * 1e6;
      if (o.slo_p99_us <= 0) throw UsageError("--slo-p99: must be positive");
    } else if (arg == "--dry-run") {
      o.dry_run = true;
    } else if (arg == "--out") {
      o.out_dir = value();
      if (o.out_dir.empty()) throw UsageError("--out: needs a directory");
    } else if (arg == "--runtime") {
      o.runtime = value();
      if (o.runtime != "process" && o.runtime != "podman" && o.runtime != "docker") {
        throw UsageError("--runtime: expected process, podman or docker, got '" + o.runtime + "'");
      }
    } else if (arg == "--load") {
      o.load = value();
      if (o.load != "gatebench" && o.load != "wrk") {
        throw UsageError("--load: expected gatebench or wrk, got '" + o.load + "'");
      }
    } else if (arg == "--scenario-dir") {
      o.scenario_dir = value();
    } else if (arg == "--bin-dir") {
      o.bin_dir = value();
    } else if (arg == "--port-offset") {
      o.port_offset = static_cast<int>(parse_integer(value(), "--port-offset", -60000, 60000));
    } else if (arg == "--load-cpus") {
      o.cpus.load = parse_cpus(value(), arg);
    } else if (arg == "--backend-cpus") {
      o.cpus.backend = parse_cpus(value(), arg);
    } else if (arg == "--gateway-cpus") {
      o.cpus.gateway = parse_cpus(value(), arg);
    } else if (arg == "--sample-interval") {
      o.sample_interval_s = parse_seconds(value(), "--sample-interval");
      if (o.sample_interval_s < 0.01) throw UsageError("--sample-interval: must be at least 10ms");
    } else {
      throw UsageError("unknown option '" + args[i] + "' (see --help)");
    }
  }
  if (o.quick) {
    // CI: seconds per scenario, but explicit values still win. The warm-up stays: the first
    // second of a fresh proxy is connection and upstream-pool set-up, not its steady state.
    if (!duration_given) o.duration_s = 2;
    if (!warmup_given) o.warmup_s = 1;
    if (!connections_given) o.connections = 16;
    if (!rounds_given) o.rounds = 3;
  }
  return o;
}

}  // namespace gatebench::macro
