// Where the remainder of a cost attribution goes: the macro difference in instructions per
// request split over function groups (the micro hot path, parsing, copying, allocation, libc and
// system-call wrappers, logging, OpenSSL, the gateway's own code, other), from the callgrind.out
// files of the N and 2N runs of both scenarios (gatebench-macro --instructions;
// docs/attribution.md): per function (I(2N) − I(N)) / N of the scenario minus the baseline's.
#pragma once

#include <array>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "tools/src/report_model.hpp"

namespace gatebench::tools {

inline constexpr std::array<std::string_view, 9> kCostGroups = {
    "hot path", "parsing", "copying", "allocation", "libc/syscalls",
    "logging",  "OpenSSL", "gateway", "other"};

// The group of one function, by its object file and demangled name; the first rule that
// matches: libssl/libcrypto -> OpenSSL, the access log -> logging, gatecore's cidr, rules,
// tokens, cache -> hot path, http1 and functions named parse -> parsing, malloc/free/new/delete
// -> allocation, libc's mem*/str* -> copying, the rest of libc and ld.so -> libc/syscalls,
// other gatebench code -> gateway, anything else -> other.
std::string_view cost_group(std::string_view object, std::string_view function);

struct FunctionDelta {
  std::string object, function;  // object: the file name without its directory
  std::string_view group;
  double per_request = 0;
};

// Per request of one scenario: per function (self cost in the 2N run − in the N run) / N, over
// every callgrind file of each run (a process tree has one per process).
// Throws std::runtime_error when the scenario lacks its two callgrind files.
std::vector<FunctionDelta> per_request_functions(const ScenarioInstructionCount& s);

struct AttributionBreakdown {
  const Attribution* row = nullptr;
  std::map<std::string_view, double> groups;  // scenario − baseline, per request
  std::vector<FunctionDelta> top;  // largest |Δ| outside the hot path, scenario − baseline
  std::string error;               // why there is no breakdown
  // The micro instructions account for the difference (agrees_within).
  std::optional<bool> agrees;
};

inline constexpr double kAgreement = 0.20;
// Instructions per request that a count moves by with the time of day inside the run (one
// access-log datagram header per 100 records is at most 7, docs/attribution.md): a feature
// whose difference is smaller than that has no share to agree within.
inline constexpr double kAgreementFloor = 10;

// |remainder| ≤ 20% of |difference|, or ≤ kAgreementFloor.
bool agrees_within(double difference, double remainder);

// One breakdown per attribution row with instructions on both sides. `top` functions per row.
std::vector<AttributionBreakdown> attribution_breakdowns(const ReportModel& m, std::size_t top);

std::string breakdown_markdown(const ReportModel& m, const std::vector<AttributionBreakdown>& rows);
nlohmann::json breakdown_json(const ReportModel& m, const std::vector<AttributionBreakdown>& rows);

}  // namespace gatebench::tools
