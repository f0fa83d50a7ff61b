// The gateway's calibration knob (docs/gateway.md, "Calibration"): a known amount of CPU work
// added to every parsed request, so a measured slowdown can be injected into macro runs and the
// macro gate's detection rate measured against it (docs/gating.md).
//
// The work is a dependent chain of integer mixes (multiply, xorshift): each step needs the
// previous result, there is no memory traffic and no data-dependent branch, so N mixes cost N
// times one mix's latency whatever the request, and nothing is allocated.
#pragma once

#include <cstdint>

namespace gatebench::gateway {

inline constexpr const char* kCalibrateMixesEnv = "GATEBENCH_GATEWAY_CALIBRATE_MIXES";
inline constexpr std::uint32_t kMaxCalibrateMixes = 100'000'000;

// The variable's value: null (unset) is 0. Anything but decimal digits for 0..kMaxCalibrateMixes
// throws ConfigError naming the variable.
std::uint32_t parse_calibrate_mixes(const char* value);

// n mixes chained from x (n = 0 returns x).
std::uint64_t calibrate_mix(std::uint64_t x, std::uint32_t n);

// CPU time of one mix on this machine: the median over `runs` timings of `mixes` mixes each.
struct MixTiming {
  double median_ns = 0;
  double min_ns = 0;
  double max_ns = 0;
};
MixTiming time_calibrate_mix(std::uint32_t mixes, int runs);

// Study-only injected costs (docs/gateway.md, "Calibration"; docs/gating.md, the exact gate's
// study): real kinds of per-request work the exact gate must catch, switched on by a variable read
// once at start. Off, they cost the request path nothing the calibration knob does not already:
// both hang on one flag tested once per request.
inline constexpr const char* kStudyInjectEnv = "GATEBENCH_GATEWAY_STUDY_INJECT";
struct StudyInjections {
  bool alloc = false;  // one more heap allocation (and free) per request
  bool write = false;  // one more write system call per request (1 byte to /dev/null)
  bool copy = false;   // one more copy of the request head
  bool any() const { return alloc || write || copy; }
};

// The variable's value: a comma-separated subset of alloc, write, copy; null or empty is none.
// Anything else throws ConfigError naming the variable.
StudyInjections parse_study_injections(const char* value);

}  // namespace gatebench::gateway
