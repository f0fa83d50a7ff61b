// libFuzzer target: the tsv access-log parser on arbitrary bytes, with the batch contract's
// invariants (tests/fuzz/access_log_fuzz_invariants.hpp).
#include "tests/fuzz/access_log_fuzz_invariants.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return gatebench::access_log::fuzz::run(gatebench::access_log::Format::tsv, data, size);
}
