// The driver's reader of gatebench-load --json (macro::parse_load_json, schema gatebench.load/1,
// docs/load.md) on arbitrary text: a result or macro::LoadParseError whose message starts with the
// file's name (a scenario failure, not a crash of the driver), never another exception.
#include <cstddef>
#include <cstdint>

#include "macro/driver/results/load_json.hpp"
#include "tests/fuzz/input_file_fuzz.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace gatebench;
  const std::string text = fuzz::text_of(data, size);
  std::string reasons;
  fuzz::reads_or_names_file<macro::LoadParseError>("load.json", [&] {
    const macro::LoadResult r = macro::parse_load_json(text, "load.json", &reasons);
    fuzz::check(r.counts.contains("invalid") || reasons.empty());
  });
  return 0;
}
