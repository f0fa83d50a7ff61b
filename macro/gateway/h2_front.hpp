// The HTTP/2 side of a client connection: libnghttp2's server session (framing, flow control,
// HPACK, RFC 9113 stream rules) turned into the HTTP/1.1 bytes the worker's request path already
// reads and writes. Bytes in, frames out, nothing else: no socket, no worker type, so the fuzz
// target (tests/fuzz/gateway_h2_fuzz.cpp) runs exactly this code.
//
// Request side: each stream's decoded header list is rebuilt as an HTTP/1.1 head (Host from
// :authority, cookie crumbs joined, `Transfer-Encoding: chunked` when a body comes without a
// Content-Length, TE and Expect dropped) and its DATA as the body bytes of that head; both are
// handed out through H2Handler::on_ready and read_body. Flow-control credit is returned only as
// the handler reads body bytes, so a stream's buffered body is bounded by its window.
//
// Response side: the handler writes the HTTP/1.1 response it would have sent on a socket
// (write_response); its head is parsed, the hop-by-hop fields dropped and the rest sent as a
// HEADERS frame; its body is de-framed (Content-Length, chunked, or until end_response) and sent
// as DATA through nghttp2's data provider. A stream buffers at most kRespWindow bytes; a write
// that finds no room takes nothing and the stream is reported ready again when room is made.
//
// Re-entrancy: nghttp2's callbacks only record what happened; the handler is called after
// nghttp2 returns (from feed and produce), so it may call every member of this class.
#pragma once

#include <nghttp2/nghttp2.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "micro/core/http1/response_head.hpp"

namespace gatebench::gateway {

struct H2Settings {
  std::uint32_t max_concurrent_streams = 100;
  // SETTINGS_MAX_HEADER_LIST_SIZE: names + values + 32 per field (RFC 9113 6.5.2). A request
  // over it is still handed out, flagged too_large, so the handler answers 431.
  std::uint32_t max_header_list = 8192;
};

struct H2Stream {
  std::int32_t id = 0;
  void* user = nullptr;  // the handler's object serving this stream; null before on_ready
  // Request: the rebuilt head once `head_done`, then body bytes as they arrive.
  std::string head;
  std::string body;
  std::size_t body_read = 0;     // bytes of `body` handed out
  std::size_t body_unacked = 0;  // DATA payload bytes not yet returned as window credit
  bool head_done = false;
  bool too_large = false;
  // Handed to the handler once: a stream whose handler let go (user null again) is never
  // started a second time, and the body bytes that still come are dropped.
  bool handed = false;
  bool req_end = false;      // END_STREAM received
  bool chunked_req = false;  // the body is framed as chunks (no content-length)
  bool has_length = false;
  bool is_head = false;  // a HEAD request: the response has no body
  std::uint32_t list_bytes = 0;
  std::string method, path, authority, lines, cookie;
  // Response: the HTTP/1.1 head until it parses, then de-framed body bytes waiting for DATA.
  std::string resp;
  std::size_t resp_off = 0;
  bool resp_head_done = false;
  bool resp_end = false;  // every body byte is in `resp`
  bool deferred = false;  // nghttp2 waits for nghttp2_session_resume_data
  bool blocked = false;   // a write found no room: report the stream ready when there is
  http1::BodyKind resp_kind = http1::BodyKind::kNone;
  std::uint64_t resp_left = 0;  // kLength: body bytes still to come
  // kChunked de-framing state.
  std::uint8_t chunk_state = 0;
  std::uint64_t chunk_left = 0;
  // Event bookkeeping.
  bool queued = false;
  bool closed = false;
};

class H2Front;

// Called only outside nghttp2's callbacks (see the file comment).
class H2Handler {
 public:
  // A stream has something new: its head (first call, s.user == nullptr), body bytes or their
  // end, or room for response bytes after a write was refused.
  virtual void on_ready(H2Front& front, H2Stream& s) = 0;
  // The stream ended (reset by either side, or its response sent); `s` is recycled after this.
  virtual void on_closed(H2Front& front, H2Stream& s) = 0;

 protected:
  ~H2Handler() = default;
};

class H2Front {
 public:
  static constexpr std::size_t kRespWindow = 65536;
  // Above the worker's largest client head (kOutCap), so any head it writes parses here.
  static constexpr std::size_t kRespHeadCap = 32768;

  H2Front(H2Handler& handler, const H2Settings& settings);
  ~H2Front();
  H2Front(const H2Front&) = delete;
  H2Front& operator=(const H2Front&) = delete;

  // Client bytes. False when the connection cannot go on (a fatal error): produce() may still
  // yield a GOAWAY to send before closing.
  bool feed(std::string_view in);
  // Copies frames to send into `out`; returns the bytes written (0: nothing to send now).
  std::size_t produce(char* out, std::size_t cap);
  // False once nghttp2 neither reads nor writes (after a GOAWAY with no stream left open) or
  // after a fatal error: the connection should close once produce() returns 0.
  bool alive() const;
  std::size_t open_streams() const { return open_; }
  // Whether a stream is being served by the handler (its `user` set).
  bool serving() const {
    for (const auto& s : store_) {
      if (s->user != nullptr) return true;
    }
    return false;
  }
  // Every stream object, open or spare (those with `user` set are being served).
  const std::vector<std::unique_ptr<H2Stream>>& streams() const { return store_; }

  // Up to `len` body bytes of the stream's request; returns the bytes copied.
  std::size_t read_body(H2Stream& s, char* buf, std::size_t len);
  // Response bytes as HTTP/1.1; returns the bytes taken (0 when the stream's window is full, or
  // the head does not parse: then the stream is reset).
  std::size_t write_response(H2Stream& s, std::string_view bytes);
  // The response is complete (a body delimited by the end of the exchange ends here).
  void end_response(H2Stream& s);
  void reset_stream(H2Stream& s, std::uint32_t error_code);
  // GOAWAY NO_ERROR naming the last stream seen: those in flight complete, no new one starts.
  void shutdown();

  void* owner = nullptr;  // the handler's connection object

 private:
  friend struct H2Callbacks;
  enum class HeadResult : std::uint8_t { kIncomplete, kSubmitted, kFailed };
  H2Stream* acquire(std::int32_t id);
  void recycle(H2Stream& s);
  void enqueue(H2Stream& s);
  void dispatch();
  static void build_head(H2Stream& s, bool end_stream);
  HeadResult submit_head(H2Stream& s);
  void decode_body(H2Stream& s, const char* in, std::size_t n);
  void resume(H2Stream& s);
  // Body bytes nobody will read: dropped, their flow-control credit given back.
  void drop_body(H2Stream& s);

  H2Handler& handler_;
  nghttp2_session* session_ = nullptr;
  bool failed_ = false;
  std::uint32_t max_header_list_;
  std::size_t open_ = 0;
  const std::uint8_t* pending_ = nullptr;  // frames from mem_send not yet copied out
  std::size_t pending_len_ = 0;
  std::vector<std::unique_ptr<H2Stream>> store_;
  std::vector<H2Stream*> free_;
  std::vector<std::int32_t> ready_;
  std::vector<std::int32_t> ready_work_;
  std::vector<H2Stream*> closing_;
  std::vector<H2Stream*> closing_work_;
  std::string tail_;  // body bytes that came with a response head, before de-framing
  std::unique_ptr<http1::ResponseHead> rh_ = std::make_unique<http1::ResponseHead>();
  std::vector<nghttp2_nv> nv_;
  std::string names_;  // lower-cased response header names for nv_
};

}  // namespace gatebench::gateway
