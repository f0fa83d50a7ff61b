// libFuzzer target: the combined access-log parser on arbitrary bytes, with the batch contract's
// invariants (tests/fuzz/access_log_fuzz_invariants.hpp), and each line of the buffer (fast
// path, escaped lines included) against the same line parsed alone (careful path: a line
// without '\n' at the buffer's end never takes the fast path).
#include <string_view>
#include <vector>

#include "tests/fuzz/access_log_fuzz_invariants.hpp"

using namespace gatebench::access_log;

namespace {

void check_lines_as_careful(std::string_view buf) {
  std::vector<AccessLogRecord> records(buf.size() + 1);
  std::vector<AccessLogError> errors(buf.size() + 1);
  const BatchResult all = parse_combined(buf, records, errors);
  std::size_t ir = 0, ie = 0;
  for (std::size_t start = 0; start < buf.size();) {
    const std::size_t nl = buf.find('\n', start);
    const std::size_t end = nl == std::string_view::npos ? buf.size() : nl;
    const std::string_view line = buf.substr(start, end - start);
    AccessLogRecord r[1];
    AccessLogError e[1];
    const BatchResult alone = parse_combined(line, r, e);
    if (ie < all.errors && errors[ie].line_offset == start) {
      // An empty line is the batch loop's error, not a parser's.
      if (!line.empty()) {
        fuzz::check(alone.errors == 1 && e[0].reason == errors[ie].reason &&
                    e[0].offset == errors[ie].offset - start);
      }
      ++ie;
    } else {
      fuzz::check(ir < all.records && alone.records == 1 && r[0] == records[ir]);
      ++ir;
    }
    start = end + 1;
  }
  fuzz::check(ir == all.records && ie == all.errors);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  fuzz::run(Format::combined, data, size);
  check_lines_as_careful({reinterpret_cast<const char*>(data), size});
  return 0;
}
