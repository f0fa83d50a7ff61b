// gatecore's response-head parser (http1::parse_response_head, what the gateway reads from its
// upstreams) on arbitrary upstream bytes, against the naive peer (micro/peers/http1_naive):
// the same status (complete, incomplete, bad, too large), and for a complete head the same
// status code, version, head length, framing, length, keep-alive and every field line. The
// framing-only parse (parse_response_status, the load generator's) must agree as well, and a
// rejected head must say why.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "micro/core/http1/response_head.hpp"
#include "micro/peers/http1_naive.hpp"

namespace {

using namespace gatebench::http1;

void check(bool ok) {
  if (!ok) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1) return 0;
  const bool request_was_head = (data[0] & 1) != 0;
  // Small limits as well as the gateway's default, so kTooLarge is reached.
  const std::size_t max_head = (data[0] & 2) != 0 ? 16 + (data[0] >> 2) * 8 : 16384;
  const std::string_view buf(reinterpret_cast<const char*>(data + 1), size - 1);

  ResponseHead h;
  const HeadStatus st = parse_response_head(buf, max_head, request_was_head, h);
  const gatebench::peers::NaiveHead n =
      gatebench::peers::naive_parse_response(buf, max_head, request_was_head);
  check(st == n.status);
  ResponseStatus framing;
  check(parse_response_status(buf, max_head, request_was_head, framing) == st);
  if (st == HeadStatus::kBad || st == HeadStatus::kTooLarge) check(h.error != nullptr);
  if (st != HeadStatus::kComplete) return 0;

  check(h.head_len <= buf.size() && h.head_len <= max_head);
  check(h.status == n.status_code && h.status >= 100);
  check(h.minor_version == n.minor_version);
  check(h.head_len == n.head_len);
  check(h.body == n.body);
  check(h.content_length == n.content_length);
  check(h.keep_alive == n.keep_alive);
  check(h.fields.count == n.fields.size());
  for (std::size_t f = 0; f < n.fields.size(); ++f) {
    const HeaderLine& line = h.fields.lines[f];
    check(line.value_off + line.value_len <= h.head_len);
    check(buf.substr(line.value_off, line.value_len) == n.fields[f].value);
    check(line.line_off == n.fields[f].line_off);
    check(line.named_in_connection == n.fields[f].hop_by_hop);
  }
  check(framing.status == h.status && framing.head_len == h.head_len && framing.body == h.body &&
        framing.content_length == h.content_length && framing.keep_alive == h.keep_alive);
  return 0;
}
