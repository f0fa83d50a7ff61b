// Functions grouped by what their instructions are spent on (the micro hot path, parsing,
// copying, allocation, libc and system-call wrappers, logging, OpenSSL, the gateway's own code,
// other), and one scenario's instructions per request per function from the callgrind.out files
// of its N and 2N runs (gatebench-macro --instructions; docs/attribution.md). The report's
// attribution breakdown and the exact gate's "what moved" both read them.
#pragma once

#include <array>
#include <string>
#include <string_view>
#include <vector>

#include "tools/src/results/macro_instructions.hpp"

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

// "ns::f(args) const" -> "ns::f" ("(anonymous namespace)" stays part of the name).
std::string_view without_parameters(std::string_view function);

// One function's identity across runs and processes: its object and its name.
std::string key_of(const FunctionDelta& f);

}  // namespace gatebench::tools
