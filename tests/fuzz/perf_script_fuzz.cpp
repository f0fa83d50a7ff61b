// The tools' reader of `perf script -F event,period,ip,sym,dso` output (tools::parse_perf_script,
// `gatebench profile` in perf mode) on arbitrary text. Promised: a profile or a
// std::runtime_error whose message starts with the file's name (then the line); the samples it
// keeps are never more than the sample headers in the text.
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <stdexcept>

#include "tests/fuzz/input_file_fuzz.hpp"
#include "tools/src/profile/perf_profile.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace gatebench;
  const std::string text = fuzz::text_of(data, size);
  fuzz::reads_or_names_file<std::runtime_error>("perf.txt", [&] {
    std::istringstream in(text);
    const tools::PerfProfile p = tools::parse_perf_script(in, "perf.txt");
    std::size_t headers = 0;
    for (std::size_t at = 0; (at = text.find(':', at)) != std::string::npos; ++at) ++headers;
    fuzz::check(p.kept <= headers);
  });
  return 0;
}
