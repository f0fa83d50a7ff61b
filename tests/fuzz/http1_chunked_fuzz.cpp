// gatecore's chunked decoder (http1::ChunkedDecoder) on arbitrary body bytes. What it promises:
// - feed never claims more bytes than it was given, and stops short only when done or in error;
// - the outcome (bytes used, done, error, reason, data count) does not depend on how the body is
//   sliced: whole, one byte a feed (the byte states alone) and slices of a fuzzer-chosen size;
// - it agrees with the naive peer, whose size and trailer lines are the RFC 9112 / RFC 9110
//   grammar as RE2 expressions: a body one accepts the other reads to the same end.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string_view>

#include "micro/core/http1/chunked.hpp"
#include "micro/peers/http1_naive.hpp"

namespace {

using gatebench::http1::ChunkedDecoder;

void check(bool ok) {
  if (!ok) std::abort();
}

struct Outcome {
  std::size_t used = 0;
  bool done = false;
  bool error = false;
  const char* reason = "";
  std::uint64_t data = 0;
};

Outcome feed(std::string_view body, std::size_t slice) {
  ChunkedDecoder d;
  Outcome o;
  for (std::size_t pos = 0; pos < body.size() && !d.done() && !d.error(); pos += slice) {
    const std::string_view piece = body.substr(pos, slice);
    const std::size_t used = d.feed(piece);
    check(used <= piece.size());
    check(used == piece.size() || d.done() || d.error());
    o.used += used;
  }
  o.done = d.done();
  o.error = d.error();
  o.reason = d.reason();
  o.data = d.data_bytes();
  check(!(o.done && o.error));
  check(o.error == (std::strlen(o.reason) != 0));
  check(o.data <= o.used);
  return o;
}

bool same(const Outcome& a, const Outcome& b) {
  return a.used == b.used && a.done == b.done && a.error == b.error &&
         std::strcmp(a.reason, b.reason) == 0 && a.data == b.data;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1) return 0;
  const std::size_t slice = 1 + data[0];
  const std::string_view body(reinterpret_cast<const char*>(data + 1), size - 1);
  const Outcome whole = feed(body, body.size() + 1);
  check(same(whole, feed(body, 1)));
  check(same(whole, feed(body, slice)));
  const std::optional<std::size_t> naive = gatebench::peers::naive_chunked_length(body);
  if (naive) {
    check(whole.done && whole.used == *naive);
  } else {
    check(!whole.done);
  }
  return 0;
}
