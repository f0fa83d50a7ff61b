// gatebench.macro_instructions/1: the exact cost per request of each scenario's system under
// test, written by `gatebench-macro --instructions N` and read by `gatebench compare`,
// `attribution` and `report` (docs/attribution.md). One type and its one JSON conversion, so
// writer and readers cannot drift apart. Fields are only added within /1; a file written before
// a field existed reads with that field absent.
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace gatebench::common {

inline constexpr const char* kMacroInstructionsSchema = "gatebench.macro_instructions/1";

// One start-to-stop run of the system under test with exactly `requests` requests.
struct MacroCountRun {
  uint64_t requests = 0;
  double instructions = 0;  // callgrind's Ir summed over the files below
  // One file per process of the measured tree (callgrind.out.<pid>); a relative path is resolved
  // against the JSON file's directory when read.
  std::vector<std::string> callgrind_files;
  // System calls of the tree (valgrind --trace-syscalls=yes), by name without "sys_", and how
  // many of them wait (kWaitSyscalls); absent in files written before they were counted.
  std::optional<uint64_t> syscalls, wait_syscalls;
  std::map<std::string, uint64_t> syscalls_by_name;
};

struct MacroScenarioCount {
  std::string name;
  std::string status = "ok";  // ok | skipped | failed
  std::string reason;
  // "toggle": the reference gateway's event loop only (collection toggled on
  // WorkerLoop::drive); "process-tree": everything every process of the gateway-role services
  // executes. Empty in files written before the field existed (they are all "toggle").
  std::string method;
  std::vector<MacroCountRun> runs;  // N, then 2N
  // (X(2N) - X(N)) / N, only when status is ok; system calls without the waiting ones, which
  // follow wall time (wait_syscalls_per_request holds those).
  std::optional<double> instructions_per_request, syscalls_per_request, wait_syscalls_per_request;
};

struct MacroCountFile {
  nlohmann::json env = nlohmann::json::object();
  nlohmann::json method = nlohmann::json::object();
  bool interrupted = false;
  std::vector<MacroScenarioCount> scenarios;
  const MacroScenarioCount* find(const std::string& name) const;
};

// (later - earlier) / (requests(later) - requests(earlier)); none unless both are given and the
// later run has more requests.
std::optional<double> per_request_difference(std::optional<double> earlier,
                                             std::optional<double> later, uint64_t requests_earlier,
                                             uint64_t requests_later);

nlohmann::json to_json(const MacroCountFile& file);
// Throws UsageError naming `file` and the JSON pointer of the bad field.
MacroCountFile parse_macro_count(const nlohmann::json& doc, const std::string& file);

}  // namespace gatebench::common
