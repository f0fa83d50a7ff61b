// gatebench-load's response parser on arbitrary server bytes. Besides the sanitizers' checks, the
// outcome must not depend on how the bytes arrive: the stream is parsed once presented whole and
// once in reads of a fuzzer-chosen size, and both must agree response by response (a parser that
// only works when a header or chunk line arrives in one read is the classic load-generator bug).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>
#include <vector>

#include "macro/load/response_parser.hpp"

namespace {

using gatebench::load::ParseStatus;
using gatebench::load::ResponseParser;

struct Response {
  ParseStatus status;
  int code;
  std::uint64_t body;
  bool keep_alive;
  std::size_t end;  // stream offset after this response
  bool operator==(const Response&) const = default;
};

// Parses up to 8 pipelined responses the way the load generator's connection does: unconsumed
// bytes are presented again together with the next read; EOF after the last byte.
std::vector<Response> parse_stream(std::string_view stream, std::size_t read_size, bool head) {
  std::vector<Response> out;
  std::size_t pos = 0;       // first byte not consumed
  std::size_t received = 0;  // bytes "read from the socket" so far
  ResponseParser parser;
  for (int n = 0; n < 8; ++n) {
    parser.reset(head && n == 0);
    for (;;) {
      if (received == pos && received < stream.size())
        received = std::min(stream.size(), received + read_size);
      const std::string_view view = stream.substr(pos, received - pos);
      const auto r = parser.feed(view);
      if (r.consumed > view.size()) std::abort();  // claims bytes it was not given
      pos += r.consumed;
      if (r.status == ParseStatus::kNeedMore && received < stream.size()) {
        received = std::min(stream.size(), received + read_size);
        continue;
      }
      ParseStatus status = r.status;
      if (status == ParseStatus::kNeedMore) {
        status = parser.finish_eof();
        pos = stream.size();
      }
      if (status == ParseStatus::kComplete &&
          (parser.status_code() < 100 || parser.status_code() > 599))
        std::abort();
      if (parser.body_bytes() > stream.size()) std::abort();
      if (status == ParseStatus::kComplete)
        out.push_back(
            {status, parser.status_code(), parser.body_bytes(), parser.keep_alive(), pos});
      else  // where an error is noticed depends on the reads; that it is an error must not
        out.push_back({status, 0, 0, false, 0});
      break;
    }
    const Response& last = out.back();
    if (last.status != ParseStatus::kComplete || !last.keep_alive || pos >= stream.size()) break;
  }
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1) return 0;
  const std::size_t read_size = 1 + (data[0] & 0x3f);
  const bool head = (data[0] & 0x40) != 0;
  const std::string_view stream(reinterpret_cast<const char*>(data + 1), size - 1);
  if (parse_stream(stream, stream.size() + 1, head) != parse_stream(stream, read_size, head))
    std::abort();
  return 0;
}
