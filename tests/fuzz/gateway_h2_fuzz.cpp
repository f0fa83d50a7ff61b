// The gateway's HTTP/2 input path (macro/gateway/h2_front.cpp) on arbitrary client frames. The
// fuzz input follows a valid client preface; the first byte picks the read size and how each
// stream is answered (Content-Length, chunked, or a body ended by end_response, in one write or
// byte by byte). Besides the sanitizers' checks: every head handed to the worker is one the
// HTTP/1 parser reads to its end or rejects (never "incomplete": a rebuilt head that smuggles
// a second one would be), and the front never asks for a stream that was recycled.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "macro/gateway/h2_front.hpp"
#include "micro/core/http1/request_head.hpp"

namespace {

using gatebench::gateway::H2Front;
using gatebench::gateway::H2Handler;
using gatebench::gateway::H2Settings;
using gatebench::gateway::H2Stream;

constexpr std::string_view kPreface = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";

class Handler : public H2Handler {
 public:
  explicit Handler(std::uint8_t mode) : mode_(mode) {}
  void on_ready(H2Front& front, H2Stream& s) override {
    if (s.closed) std::abort();  // closed streams are never handed out
    if (s.user == nullptr) {
      s.user = this;
      if (!s.too_large) check_head(s.head);
    }
    char buf[512];
    while (front.read_body(s, buf, sizeof buf) > 0) {
    }
    if (!s.req_end) return;
    answer(front, s);
  }
  void on_closed(H2Front&, H2Stream&) override {}

 private:
  static void check_head(const std::string& head) {
    auto req = std::make_unique<gatebench::http1::RequestHead>();
    const auto st = gatebench::http1::parse_request_head(head, 65536, *req);
    if (st == gatebench::http1::HeadStatus::kIncomplete) std::abort();
    if (st == gatebench::http1::HeadStatus::kComplete && req->head_len != head.size()) std::abort();
  }
  void answer(H2Front& front, H2Stream& s) {
    if (s.resp_end) return;
    std::string resp;
    switch (mode_ % 3) {
      case 0:
        resp = "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nConnection: close\r\nX-A: b\r\n\r\nhello";
        break;
      case 1:
        resp =
            "HTTP/1.1 404 Not Found\r\nTransfer-Encoding: chunked\r\n\r\n3;x=y\r\nabc\r\n0\r\nT: "
            "v\r\n\r\n";
        break;
      default:
        resp = "HTTP/1.1 200 OK\r\nKeep-Alive: 5\r\n\r\nuntil close";
        break;
    }
    // Byte by byte in odd modes: the head and the chunk framing split at every offset.
    const std::size_t step = (mode_ & 8) != 0 ? 1 : resp.size();
    for (std::size_t off = 0; off < resp.size();) {
      const std::size_t n = front.write_response(s, std::string_view(resp).substr(off, step));
      if (n == 0) break;  // window full: a real worker waits for on_ready
      off += n;
    }
    front.end_response(s);
  }
  std::uint8_t mode_;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1) return 0;
  const std::uint8_t mode = data[0];
  const std::size_t read_size = 1 + (mode >> 4) * 7;
  Handler handler(mode);
  H2Settings settings;
  settings.max_concurrent_streams = 4;
  settings.max_header_list = 1024;
  H2Front front(handler, settings);
  std::string input(kPreface);
  input.append(reinterpret_cast<const char*>(data + 1), size - 1);
  char out[4096];
  for (std::size_t off = 0; off < input.size() && front.alive(); off += read_size) {
    front.feed(std::string_view(input).substr(off, read_size));
    while (front.produce(out, sizeof out) > 0) {
    }
  }
  while (front.produce(out, sizeof out) > 0) {
  }
  return 0;
}
