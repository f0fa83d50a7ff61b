// The driver's hosts file reader (macro::parse_hosts, --hosts FILE, docs/multi-host.md) on
// arbitrary text: the hosts or a common::UsageError whose message starts with the file's name (then
// the JSON pointer).
#include <cstddef>
#include <cstdint>

#include "macro/common/usage_error.hpp"
#include "macro/driver/plan/hosts.hpp"
#include "tests/fuzz/input_file_fuzz.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace gatebench;
  const std::string text = fuzz::text_of(data, size);
  fuzz::reads_or_names_file<common::UsageError>("hosts.json", [&] {
    const macro::HostsFile h = macro::parse_hosts(text, "hosts.json");
    for (const auto& [name, host] : h.hosts) fuzz::check(!name.empty());
  });
  return 0;
}
