// HTTP/2 connections in the worker. The connection's Client (state kH2) moves bytes between its
// socket and its H2Front; each request stream gets a stream client of its own (a pooled Client
// like any other, with `parent` set) that runs the unchanged HTTP/1.1 request machine: the
// H2Front's rebuilt head goes into its `in` buffer, its body reads and response writes go
// through the H2Front (read_client, stream_write) instead of a socket. So routing, policy, cache,
// the upstream pool and the access log are the same code for both protocols.
#include <algorithm>
#include <cstring>

#include "macro/gateway/worker_loop.hpp"

namespace gatebench::gateway {

void WorkerLoop::start_h2(Client& c) {
  ClientConn& cc = c.conn;
  H2Settings settings;
  settings.max_concurrent_streams = cfg().h2_max_concurrent_streams;
  settings.max_header_list = static_cast<std::uint32_t>(cfg().max_header_bytes);
  H2Handler& handler = *this;  // converted here: the base is private
  c.buffers.h2 = std::make_unique<H2Front>(handler, settings);
  c.buffers.h2->owner = &c;
  cc.state = CState::kH2;
  cc.out_len = cc.out_sent = 0;
  cc.deadline_ms = now_ms_ + cfg().client_header_timeout_ms;
  // Bytes read before the protocol was known (h2c: the preface and what followed it). From here
  // on the connection holds no part of its own (step_h2).
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
bool WorkerLoop::step_h2(Client& c) {
  ClientConn& cc = c.conn;
  H2Front& f = *c.buffers.h2;
  char* scratch = tls_scratch_.get();
  if (cc.out_sent == cc.out_len) {
    parts_.give_response(c);
    cc.out_len = cc.out_sent = 0;
    const std::size_t n = f.produce(scratch, kOutCap);
    if (n > 0) {
      std::size_t sent = 0;
      if (cc.io.writable) {
        iovec iov{scratch, n};
        IoResult r = write_client(c, &iov, 1);
        if (r.status != IoStatus::kOk && r.status != IoStatus::kWouldBlock) {
          close_client(c);
          return false;
        }
        sent = r.bytes;
      }
      if (sent < n) {
        parts_.take_response(c);
        std::memcpy(c.buffers.out.get(), scratch + sent, n - sent);
        cc.out_len = n - sent;
      }
      if (sent > 0) return true;
    }
  } else if (cc.io.writable) {
    char* out = c.buffers.out.get();
    iovec iov{out + cc.out_sent, cc.out_len - cc.out_sent};
    IoResult r = write_client(c, &iov, 1);
    if (r.status == IoStatus::kOk && r.bytes > 0) {
      cc.out_sent += r.bytes;
      return true;
    }
    if (r.status != IoStatus::kOk && r.status != IoStatus::kWouldBlock) {
      close_client(c);
      return false;
    }
  }
  if (cc.io.readable) {
    IoResult r = client_read(cc.io, scratch, kOutCap + kRespCap);
    if (r.status == IoStatus::kOk) {
      f.feed(std::string_view(scratch, r.bytes));
      return true;
    }
    if (r.status != IoStatus::kWouldBlock) {
      close_client(c);  // EOF or reset: the streams on it end with it
      return false;
    }
  }
  if (cc.out_sent == cc.out_len && !f.alive()) {
    close_client(c);  // GOAWAY sent or received and no stream left, or a fatal error
    return false;
  }
  // Stream clients carry their own deadlines (header, body, upstream, send) and start_stream
  // clears the connection's; once none is served the connection's runs again: the idle timeout,
  // or the header timeout while a stream's header block is still incomplete.
  if (cc.deadline_ms == 0 && !f.serving()) {
    cc.deadline_ms = now_ms_ + (f.open_streams() > 0 ? cfg().client_header_timeout_ms
                                                     : cfg().keepalive_timeout_ms);
  }
  return false;
}

void WorkerLoop::on_ready(H2Front& front, H2Stream& s) {
  if (s.user == nullptr) {
    start_stream(*static_cast<Client*>(front.owner), s);
    return;
  }
  Client& sc = *static_cast<Client*>(s.user);
  sc.conn.io.readable = true;
  sc.conn.io.writable = true;
  drive(sc);
}

void WorkerLoop::on_closed(H2Front&, H2Stream& s) {
  if (s.user == nullptr) return;
  // Reset by the client (or cut by nghttp2) while its request was being served.
  Client& sc = *static_cast<Client*>(s.user);
  s.user = nullptr;
  sc.conn.stream = nullptr;
  close_client(sc);
}

void WorkerLoop::start_stream(Client& parent, H2Stream& s) {
  if (stopping_) {
    parent.buffers.h2->reset_stream(s, NGHTTP2_REFUSED_STREAM);
    return;
  }
  Client& sc = *new_client();
  ClientConn& cc = sc.conn;
  const ClientConn& pc = parent.conn;
  cc.stream = &s;
  cc.parent = &parent;
  s.user = &sc;
  cc.https = pc.https;
  cc.ip = pc.ip;
  std::memcpy(cc.ip_text, pc.ip_text, sizeof cc.ip_text);
  cc.ip_len = pc.ip_len;
  parent.conn.deadline_ms = 0;
  if (s.req_end && !s.too_large && s.head.size() <= kHeadOnlyCap) {
    parts_.take_head_only(sc);  // no body will come (END_STREAM): no body window
  } else {
    parts_.take_request(sc);
  }
  if (s.too_large || s.head.size() > sc.buffers.in_cap) {
    refuse_head(sc, 431, "request header list too large\n");
  } else {
    std::memcpy(sc.buffers.in.get(), s.head.data(), s.head.size());
    cc.in_len = s.head.size();
    cc.state = CState::kReadHead;
    cc.deadline_ms = now_ms_ + cfg().client_header_timeout_ms;
  }
  drive(sc);
}

// The request is logged and its response handed over: the H2Front sends the rest.
void WorkerLoop::end_stream(Client& c) {
  if (H2Stream* s = c.conn.stream) {
    c.conn.parent->buffers.h2->end_response(*s);
    s->user = nullptr;
    c.conn.stream = nullptr;
  }
  close_client(c);
}

// A closing connection takes its stream clients with it.
void WorkerLoop::detach_streams(Client& c) {
  for (const auto& s : c.buffers.h2->streams()) {
    if (s->user == nullptr) continue;
    Client& sc = *static_cast<Client*>(s->user);
    s->user = nullptr;
    sc.conn.stream = nullptr;
    close_client(sc);
  }
  dead_fronts_.push_back(std::move(c.buffers.h2));
}

IoResult WorkerLoop::stream_write(Client& c, const iovec* iov, int cnt) {
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

IoResult WorkerLoop::read_client(Client& c, char* buf, std::size_t len) {
  if (c.conn.parent == nullptr) return client_read(c.conn.io, buf, len);
  if (c.conn.stream == nullptr) return {IoStatus::kClosed, 0};
  const std::size_t n = c.conn.parent->buffers.h2->read_body(*c.conn.stream, buf, len);
  if (n > 0) return {IoStatus::kOk, n};
  c.conn.io.readable = false;  // more DATA (or its end) makes the stream ready again
  return {IoStatus::kWouldBlock, 0};
}

}  // namespace gatebench::gateway
