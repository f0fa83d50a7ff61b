// HTTP/2 connections (h2_flow.hpp): a connection's session, its bytes both ways, and a stream
// client's reads and writes through the session.
#include "macro/gateway/h2_flow.hpp"

#include <cstring>
#include <string_view>

namespace gatebench::gateway {

void H2Flow::start(Client& c, H2Handler& handler) {
  ClientConn& cc = c.conn;
  const Config& cfg = this->cfg();
  H2Settings settings;
  settings.max_concurrent_streams = cfg.h2_max_concurrent_streams;
  settings.max_header_list = static_cast<std::uint32_t>(cfg.max_header_bytes);
  c.buffers.h2 = std::make_unique<H2Front>(handler, settings);
  c.buffers.h2->owner = &c;
  cc.state = CState::kH2;
  cc.out_len = cc.out_sent = 0;
  cc.deadline_ms = now_ms_ + cfg.client_header_timeout_ms;
  // Bytes read before the protocol was known (h2c: the preface and what followed it). From here
  // on the connection holds no part of its own (step).
  const std::size_t n = cc.in_len;
  cc.in_len = 0;
  if (n > 0) c.buffers.h2->feed(std::string_view(c.buffers.in.get(), n));
  parts_.give_request(c);
}

// The connection's bytes pass through the worker's scratch both ways: nghttp2 takes what it is
// fed at once, and frames go to the socket as soon as they are made. Only frames the socket did
// not take wait in a response part (`out`), held until they are sent. Nothing that runs inside
// feed() or produce() uses the scratch: stream clients write to the H2Front, and connections are
// driven only from the loop (drive queues a stream's connection). So 64 connections with 10
// streams each hold no part between their writes, where each held a request and a response part
// for its life, a few touched pages each.
H2Step H2Flow::step(Client& c) {
  ClientConn& cc = c.conn;
  H2Front& f = *c.buffers.h2;
  char* scratch = scratch_.data();
  if (cc.out_sent == cc.out_len) {
    parts_.give_response(c);
    cc.out_len = cc.out_sent = 0;
    const std::size_t n = f.produce(scratch, kOutCap);
    if (n > 0) {
      std::size_t sent = 0;
      if (cc.io.writable) {
        iovec iov{scratch, n};
        IoResult r = client_writev(cc.io, &iov, 1, scratch_);
        if (r.status != IoStatus::kOk && r.status != IoStatus::kWouldBlock) return H2Step::kClose;
        sent = r.bytes;
      }
      if (sent < n) {
        parts_.take_response(c);
        std::memcpy(c.buffers.out.get(), scratch + sent, n - sent);
        cc.out_len = n - sent;
      }
      if (sent > 0) return H2Step::kProgress;
    }
  } else if (cc.io.writable) {
    char* out = c.buffers.out.get();
    iovec iov{out + cc.out_sent, cc.out_len - cc.out_sent};
    IoResult r = client_writev(cc.io, &iov, 1, scratch_);
    if (r.status == IoStatus::kOk && r.bytes > 0) {
      cc.out_sent += r.bytes;
      return H2Step::kProgress;
    }
    if (r.status != IoStatus::kOk && r.status != IoStatus::kWouldBlock) return H2Step::kClose;
  }
  if (cc.io.readable) {
    IoResult r = client_read(cc.io, scratch, scratch_.size());
    if (r.status == IoStatus::kOk) {
      f.feed(std::string_view(scratch, r.bytes));
      return H2Step::kProgress;
    }
    // EOF or reset: the streams on it end with it.
    if (r.status != IoStatus::kWouldBlock) return H2Step::kClose;
  }
  // GOAWAY sent or received and no stream left, or a fatal error.
  if (cc.out_sent == cc.out_len && !f.alive()) return H2Step::kClose;
  // Stream clients carry their own deadlines (header, body, upstream, send) and start_stream
  // clears the connection's; once none is served the connection's runs again: the idle timeout,
  // or the header timeout while a stream's header block is still incomplete.
  if (cc.deadline_ms == 0 && !f.serving()) {
    cc.deadline_ms = now_ms_ + (f.open_streams() > 0 ? cfg().client_header_timeout_ms
                                                     : cfg().keepalive_timeout_ms);
  }
  return H2Step::kIdle;
}

IoResult H2Flow::stream_write(Client& c, const iovec* iov, int cnt) {
  if (c.conn.stream == nullptr) return {IoStatus::kError, 0};
  H2Front& f = *c.conn.parent->buffers.h2;
  std::size_t total = 0;
  for (int i = 0; i < cnt; ++i) {
    const std::size_t n = f.write_response(
        *c.conn.stream,
        std::string_view(static_cast<const char*>(iov[i].iov_base), iov[i].iov_len));
    total += n;
    if (n < iov[i].iov_len) {
      c.conn.io.writable = false;  // the stream's window is full: on_ready resumes it
      break;
    }
  }
  if (total == 0 && cnt > 0) return {IoStatus::kWouldBlock, 0};
  return {IoStatus::kOk, total};
}

IoResult H2Flow::stream_read(Client& c, char* buf, std::size_t len) {
  if (c.conn.stream == nullptr) return {IoStatus::kClosed, 0};
  const std::size_t n = c.conn.parent->buffers.h2->read_body(*c.conn.stream, buf, len);
  if (n > 0) return {IoStatus::kOk, n};
  c.conn.io.readable = false;  // more DATA (or its end) makes the stream ready again
  return {IoStatus::kWouldBlock, 0};
}

}  // namespace gatebench::gateway
