#include "macro/gateway/calibrate.hpp"

#include <time.h>

#include <algorithm>
#include <string>
#include <vector>

#include "macro/gateway/config.hpp"

namespace gatebench::gateway {

std::uint32_t parse_calibrate_mixes(const char* value) {
  if (value == nullptr) return 0;
  std::string_view v(value);
  auto bad = [&] {
    return ConfigError(std::string(kCalibrateMixesEnv) + "=\"" + std::string(v) +
                       "\": expected a number of mixes 0.." + std::to_string(kMaxCalibrateMixes));
  };
  if (v.empty() || v.size() > 9) throw bad();
  std::uint32_t n = 0;
  for (char ch : v) {
    if (ch < '0' || ch > '9') throw bad();
    n = n * 10 + static_cast<std::uint32_t>(ch - '0');
  }
  if (n > kMaxCalibrateMixes) throw bad();
  return n;
}

StudyInjections parse_study_injections(const char* value) {
  StudyInjections out;
  if (value == nullptr) return out;
  std::string_view rest(value);
  if (rest.empty()) return out;
  for (;;) {
    const std::size_t comma = rest.find(',');
    const std::string_view item = rest.substr(0, comma);
    if (item == "alloc") {
      out.alloc = true;
    } else if (item == "write") {
      out.write = true;
    } else if (item == "copy") {
      out.copy = true;
    } else {
      throw ConfigError(std::string(kStudyInjectEnv) + "=\"" + std::string(value) +
                        "\": unknown item \"" + std::string(item) +
                        "\", expected a comma-separated subset of alloc, write, copy");
    }
    if (comma == std::string_view::npos) break;
    rest.remove_prefix(comma + 1);
  }
  return out;
}

std::uint64_t calibrate_mix(std::uint64_t x, std::uint32_t n) {
  for (std::uint32_t i = 0; i < n; ++i) {
    x *= 0xbf58476d1ce4e5b9ULL;
    x ^= x >> 31;
  }
  return x;
}

namespace {

std::int64_t thread_cpu_ns() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<std::int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

}  // namespace

MixTiming time_calibrate_mix(std::uint32_t mixes, int runs) {
  if (mixes == 0 || runs <= 0) return {};
  std::vector<double> ns;
  std::uint64_t x = 0x9e3779b97f4a7c15ULL;
  for (int r = 0; r < runs; ++r) {
    std::int64_t t0 = thread_cpu_ns();
    x = calibrate_mix(x, mixes);
    std::int64_t t1 = thread_cpu_ns();
    ns.push_back(static_cast<double>(t1 - t0) / mixes);
  }
  // The chain's result must stay observable or the timed calls could be dropped.
  asm volatile("" : : "r"(x));
  std::sort(ns.begin(), ns.end());
  return {ns[ns.size() / 2], ns.front(), ns.back()};
}

}  // namespace gatebench::gateway
