// libFuzzer target: the tsv access-log parser on arbitrary bytes, with the batch contract's
// invariants (tests/fuzz/access_log_fuzz_invariants.hpp), and its fast path's two field kernels
// (the vector one parse_tsv takes where the build has it, and the portable one) agreeing.
#include "tests/fuzz/access_log_fuzz_invariants.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace gatebench::access_log;
  fuzz::run(Format::tsv, data, size);
  const std::string_view buf(reinterpret_cast<const char*>(data), size);
  std::vector<AccessLogRecord> wide(size + 1), portable(size + 1);
  std::vector<AccessLogError> wide_errors(size + 1), portable_errors(size + 1);
  const BatchResult a = parse_tsv(buf, wide, wide_errors);
  const BatchResult b = detail::parse_tsv_portable(buf, portable, portable_errors);
  fuzz::check(a.records == b.records && a.errors == b.errors && a.consumed == b.consumed);
  for (std::size_t i = 0; i < a.records; ++i) fuzz::check(wide[i] == portable[i]);
  for (std::size_t i = 0; i < a.errors; ++i) {
    fuzz::check(wide_errors[i].line_offset == portable_errors[i].line_offset &&
                wide_errors[i].offset == portable_errors[i].offset &&
                wide_errors[i].reason == portable_errors[i].reason);
  }
  return 0;
}
