// The driver's scenario reader (macro::parse_scenario, docs/scenarios.md) on arbitrary file text:
// the scenario or a common::UsageError whose message starts with the file's name (then the JSON
// pointer), which the driver reports before starting anything, exit 2. A scenario read has its
// service names and ports as validated ([a-z0-9_-]+, 1024-65535): they become file names and
// command lines.
#include <cstddef>
#include <cstdint>

#include "macro/driver/plan/scenario.hpp"
#include "tests/fuzz/input_file_fuzz.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace gatebench;
  const std::string text = fuzz::text_of(data, size);
  fuzz::reads_or_names_file<common::UsageError>("fuzz.json", [&] {
    const macro::Scenario s = macro::parse_scenario(text, "fuzz.json");
    for (const macro::ServiceSpec& service : s.services) {
      fuzz::check(!service.name.empty());
      for (char c : service.name) {
        fuzz::check((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-');
      }
    }
    for (const auto& [name, port] : s.ports) fuzz::check(port >= 1024 && port <= 65535);
  });
  return 0;
}
