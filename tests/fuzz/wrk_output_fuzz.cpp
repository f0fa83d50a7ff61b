// The driver's reader of wrk's --latency output (macro::parse_wrk_output) on arbitrary text: a
// result or macro::LoadParseError (wrk failed or was cut off), never another exception. A
// latency wrk printed is read back in microseconds as its duration syntax says, never negative.
#include <cstddef>
#include <cstdint>

#include "macro/driver/results/wrk_output.hpp"
#include "tests/fuzz/input_file_fuzz.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace gatebench;
  const std::string text = fuzz::text_of(data, size);
  try {
    const macro::LoadResult r = macro::parse_wrk_output(text);
    for (const auto& p : {r.p50_us, r.p90_us, r.p99_us, r.p999_us, r.mean_us}) {
      fuzz::check(!p || !(*p < 0));
    }
  } catch (const macro::LoadParseError&) {
  }
  if (const auto us = macro::parse_wrk_duration_us(text)) fuzz::check(!(*us < 0));
  return 0;
}
