// The driver's reader of h2load's output (macro::parse_h2load_output) on arbitrary text: a result
// or macro::LoadParseError (h2load failed or was cut off), never another exception, and no
// crash (its std::regex searches run over the whole text).
#include <cstddef>
#include <cstdint>

#include "macro/driver/results/h2load_output.hpp"
#include "tests/fuzz/input_file_fuzz.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace gatebench;
  const std::string text = fuzz::text_of(data, size);
  try {
    const macro::LoadResult r = macro::parse_h2load_output(text);
    fuzz::check(!(r.rps < 0));
  } catch (const macro::LoadParseError&) {
  }
  return 0;
}
