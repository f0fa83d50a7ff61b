// gatebench.macro/2 (docs/scenarios.md): what one gatebench-macro run measured, as one type. The
// driver fills it (macro/driver/output/macro_json.cpp) and writes it through to_json; readers
// (the driver's tests, every tool) parse it back with parse_macro_result. The conversion to and
// from JSON is here and nowhere else, and so is the upgrade of a gatebench.macro/1 file.
//
// The file is written with nlohmann::json, whose members are sorted by name, so the order of the
// members below is the reading order of docs/scenarios.md, not the file's. Where the file tells a
// member that is left out from one that is null, the type does too: std::optional<T> is "absent"
// for members written only sometimes, Figure (std::optional<double>) is a number or null, and
// std::optional<Figure> is absent, null or a number.
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "macro/common/json_field.hpp"

namespace gatebench::common {

inline constexpr std::string_view kMacroSchema = "gatebench.macro/2";
// The first version, which the reader upgrades (macro_result_from_json).
inline constexpr std::string_view kMacroSchemaV1 = "gatebench.macro/1";

// A figure of the file: a number, or null when there was nothing to measure it from.
using Figure = std::optional<double>;
// Figures by name (a process, a role), each a number or null.
using FigureMap = std::map<std::string, Figure>;

struct MacroLatency {  // latency_us, microseconds
  Figure p50, p90, p99, p999, mean;
};

struct MacroLatencyDelta {  // latency_delta_us: this scenario's latency minus its
                            // latency_baseline's
  Figure mean, p50, p90, p99;
};

struct MacroCpuPerRole {  // CPU microseconds per request (or per handshake) of each role
  Figure target, load, backend;
};

struct MacroSecond {  // one second of per_second
  double t = 0;
  double rps = 0;
  Figure p99_us;
  double errors = 0;
  Figure cpu_percent;  // the target's, null when no sample covered the second
};

struct MacroMachineCpu {  // machine_cpu of a round: every process of the machine in the window
  double busy_percent = 0, idle_percent = 0;
  Figure steal_percent;  // absent (nullopt) when the kernel does not count it
};

struct MacroRoundHandshakes {  // TLS handshakes of a round with a new connection per request
  std::uint64_t full = 0, resumed = 0;
  Figure per_s;
};

// What a round that ran its load generator measured: written together, or none of it.
struct MacroRoundLoad {
  double rps = 0;
  std::uint64_t requests = 0;
  double measured_s = 0;
  MacroLatency latency_us;
  std::uint64_t errors = 0;
  Figure error_rate;                    // null without requests
  std::vector<MacroSecond> per_second;  // absent when empty
  MacroCpuPerRole cpu_us_per_request;
  Figure rps_per_gateway_cpu;
  std::string window_source;  // window.source
  double window_s = 0;        // window.s
  std::optional<MacroMachineCpu> machine_cpu;
  std::optional<MacroRoundHandshakes> handshakes;
  std::optional<MacroCpuPerRole> cpu_us_per_handshake;  // with handshakes
  std::optional<std::string> harness_limit;             // written as null when none
  std::optional<Figure> hit_ratio;  // present only for a scenario with a cache check
};

struct MacroTargetUsage {  // the measured role's process trees
  double cpu_percent = 0;
  std::map<std::string, double> cpu_by_process;
  double peak_mb = 0, peak_rss_mb = 0;
};

struct MacroRound {  // one entry of a scenario's rounds[]
  int round = 1;
  int position = 1;
  std::string status = "ok";  // ok | skipped | failed
  std::string reason;
  std::optional<MacroRoundLoad> load;
  std::optional<MacroTargetUsage> target;
  std::map<std::string, double> cpu_by_role;  // absent when empty
  // The load generator's counters; absent when empty. A round's own, not its load's: a round that
  // failed before its req/s was taken may still have them (missed requests of an open loop).
  std::map<std::string, double> counts;
  Figure vs_nginx, cpu_vs_nginx, p99_vs_nginx;
  // Present only for a scenario with a latency_baseline; null when either side did not measure.
  std::optional<std::optional<MacroLatencyDelta>> latency_delta_us;
  nlohmann::json details = nlohmann::json::object();  // mode-specific; absent when empty
  std::vector<std::string> artifacts;
};

struct MacroMedianInterval {  // an entry of intervals
  double median = 0, lo = 0, hi = 0;
  int n = 0;
  double level = 0;
};

struct MacroScenarioHandshakes {
  Figure per_s;
  std::uint64_t full = 0, resumed = 0;  // summed over the ok rounds
  FigureMap cpu_us_per_handshake;       // written beside handshakes, not in it
};

// A scenario's medians over its ok rounds; a scenario without one writes most of them as null.
struct MacroMedians {
  Figure rps, rps_per_gateway_cpu;
  MacroLatency latency_us;
  Figure cpu_percent;
  FigureMap cpu_by_process, cpu_by_role;
  Figure peak_mb, peak_rss_mb;  // the highest of the rounds, not a median
  FigureMap cpu_us_per_request;
  FigureMap machine_cpu;  // absent when empty
  std::optional<MacroScenarioHandshakes> handshakes;
  std::string target_role;
  int target_cpus = 1;
  Figure vs_nginx, cpu_vs_nginx, p99_vs_nginx;
  std::map<std::string, std::optional<MacroMedianInterval>> intervals;
  std::optional<Figure> hit_ratio;                    // a scenario with a cache check
  std::optional<MacroLatencyDelta> latency_delta_us;  // a scenario with a latency_baseline
  // The round whose req/s is the median, as the scenario's example: its series and details.
  std::vector<MacroSecond> per_second;                // absent when empty
  nlohmann::json details = nlohmann::json::object();  // absent when empty
  std::optional<int> example_round;                   // absent when no ok round measured req/s
};

struct MacroScenario {
  std::string name;
  std::string group;             // absent when empty
  std::string workload, target;  // absent when empty (docs/targets.md)
  std::string status = "ok";     // ok | skipped | failed, over the rounds and the baseline
  std::string reason;
  std::string baseline;
  std::string latency_baseline;                      // absent when empty
  nlohmann::json images = nlohmann::json::object();  // absent when empty
  std::optional<std::pair<double, double>> expect_hit_ratio;
  int rounds_planned = 1;
  int rounds_ok = 0;
  std::optional<MacroMedians> medians;  // present when rounds_ok > 0
  // Over every round that measured, ok or not; null when none did.
  std::optional<std::uint64_t> errors, requests;
  Figure error_rate;
  std::map<std::string, double> counts;  // summed over the ok rounds; absent when empty
  std::vector<std::string> artifacts;
  std::vector<MacroRound> rounds;
};

struct MacroHost {  // env.hosts of a --hosts run; empty strings and 0 cpus are written as null
  std::string kind;
  std::string address;
  std::vector<std::string> roles;
  std::string cpu_model;
  int cpus = 0;
  std::string kernel;
};

struct MacroPinning {  // the CPU list of each role, null when it ran unpinned
  std::optional<std::string> load, backend, gateway;
};

struct MacroEnv {
  std::string commit;
  bool dirty = false;
  std::string cpu_model;
  int cpus = 0;
  std::string kernel;
  std::string compiler;
  std::string runtime;
  MacroPinning pinning;
  std::string load_generator;
  std::string date;
  std::map<std::string, MacroHost> hosts;  // absent when empty
  // Program versions the driver knows how to ask (nginx, haproxy, ...); absent when empty.
  std::map<std::string, std::string> versions;
};

// The method of every interval of the file.
inline constexpr std::string_view kMacroIntervalMethod =
    "order statistics of the median (binomial)";
inline constexpr double kMacroIntervalLevel = 0.95;

struct MacroRunSettings {  // run; smoke is written equal to quick
  double duration_s = 0, warmup_s = 0;
  int connections = 0;
  bool quick = false;
  int rounds = 0;
  std::uint64_t seed = 0;
  double max_error_rate = 0;
  bool interrupted = false;
};

struct MacroResult {
  MacroEnv env;
  MacroRunSettings run;
  std::vector<MacroScenario> scenarios;
};

// gatebench.macro/2, or gatebench.macro/1 which the reader upgrades.
bool is_macro_schema(std::string_view schema);

nlohmann::json to_json(const MacroResult& result);
nlohmann::json to_json(const MacroRound& round);
nlohmann::json to_json(const MacroEnv& env);  // the file's "env"
// Throws UsageError naming `source` and the JSON pointer of the first field that is wrong. A
// member left out (or null where a value may be) keeps the type's default. A gatebench.macro/1
// file (one run per scenario, the figures at the top level; an ok scenario must have its req/s)
// is read as one round per scenario, with the figures /2 added (each role's CPU per request, the
// CPU and p99 ratios to the baseline) derived from that round.
MacroResult macro_result_from_json(const nlohmann::json& doc, const std::string& source);
// The same for a document inside another (report.json's "macro"): errors name root's pointer.
MacroResult macro_result_from_json(const JsonField& root);
MacroResult parse_macro_result(const std::string& text, const std::string& source);

}  // namespace gatebench::common
