// Proxying one request: an upstream connection from the pool or a new one, the rewritten head and
// the request body out, the response head in and rewritten, the response body streamed back, and
// what a failure on the way turns into (retry, 502/504, or a cut connection).
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "macro/gateway/clock.hpp"
#include "macro/gateway/http1_flow.hpp"
#include "macro/gateway/loop_guard.hpp"
#include "macro/gateway/response_writer.hpp"

namespace gatebench::gateway {
namespace {

// `sent` bytes of a writev of a head's unsent part, then the body's identified bytes, went out.
void advance(std::size_t sent, std::size_t& head_sent, std::size_t head_len, BodyCursor& body) {
  std::size_t head_part = head_len - head_sent;
  if (sent <= head_part) {
    head_sent += sent;
  } else {
    head_sent = head_len;
    body.off += sent - head_part;
  }
}

// RFC 9110 9.2.2.
bool idempotent(std::string_view method) {
  return method == "GET" || method == "HEAD" || method == "OPTIONS" || method == "PUT" ||
         method == "DELETE" || method == "TRACE";
}

}  // namespace

// "100 Continue" once per request, before the first body byte is read; false when the client
// connection failed (it is closed).
bool Http1Flow::send_continue(Client& c) {
  ProxyExchange& px = c.px;
  // A stream's Expect never reaches the head (h2_front.hpp): no interim answer to send.
  if (!c.req().expect_continue || px.sent_continue || c.conn.parent != nullptr) return true;
  px.sent_continue = true;
  static constexpr std::string_view kContinue = "HTTP/1.1 100 Continue\r\n\r\n";
  iovec civ{const_cast<char*>(kContinue.data()), kContinue.size()};
  IoResult w = write_client(c, &civ, 1);
  if (w.status != IoStatus::kOk || w.bytes != kContinue.size()) {
    loop_.close_client(c);
    return false;
  }
  return true;
}

void Http1Flow::write_up_head(Client& c) {
  const ClientConn& cc = c.conn;
  const HostConfig& host = host_of(c);
  parts_.take_up_head(c);
  char hop_buf[96];
  const std::string_view hops =
      c.log.decision.hops == 0
          ? std::string_view()
          : hop_lines(c.log.decision.hops, host.features->loop->via_name, hop_buf);
  c.px.up_head_len =
      write_upstream_head(c.buffers.up_head.get(), cfg().max_header_bytes + 1024,
                          std::string_view(c.buffers.in.get(), c.req().head_len), c.req(),
                          std::string_view(cc.ip_text, cc.ip_len), cc.https, hops);
}

void Http1Flow::start_proxy(Client& c) {
  ClientConn& cc = c.conn;
  ProxyExchange& px = c.px;
  const HostConfig& host = host_of(c);
  write_up_head(c);
  cc.out_len = cc.out_sent = 0;
  cc.state = CState::kProxy;
  cc.deadline_ms = now_ms_ + host.connect_timeout_ms;
  if (c.req().body != BodyKind::kNone && px.body_deadline_ms == 0) {
    px.body_deadline_ms = now_ms_ + cc.gen->pub->config->client_body_timeout_ms;
  }
  if (UpConn* u = UpstreamConns::take_idle(*cc.gen, cc.host)) {
    px.up = u;
    u->owner = &c;
    c.log.up_start_us = mono_us();
    return;
  }
  connect_upstream(c);
}

bool Http1Flow::connect_upstream(Client& c) {
  const HostConfig& host = host_of(c);
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) {
    upstream_failed(c, 502);
    return false;
  }
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  int r = ::connect(fd, reinterpret_cast<const sockaddr*>(&host.upstream_addr),
                    sizeof host.upstream_addr);
  if (r != 0 && errno != EINPROGRESS) {
    ::close(fd);
    c.px.up = nullptr;
    upstream_failed(c, 502);
    return false;
  }
  UpConn* u = ups_.open(fd, c.conn.gen, c.conn.host);
  u->owner = &c;
  u->connected = r == 0;
  u->writable = r == 0;
  epoll_event ev{};
  ev.events = EPOLLIN | EPOLLOUT | EPOLLRDHUP | EPOLLET;
  ev.data.ptr = u;
  epoll_ctl(epfd_, EPOLL_CTL_ADD, fd, &ev);
  c.px.up = u;
  c.log.up_start_us = mono_us();
  c.conn.deadline_ms = now_ms_ + host.connect_timeout_ms;
  return true;
}

void Http1Flow::release_upconn(Client& c, bool reusable) {
  UpConn* u = c.px.up;
  c.px.up = nullptr;
  ups_.release(*u, reusable, stopping_);
}

bool Http1Flow::step_proxy(Client& c) {
  const bool sent = pump_request(c);
  if (c.conn.dead || c.conn.state != CState::kProxy) return true;
  const bool received = pump_response(c);
  return sent || received;
}

bool Http1Flow::pump_request(Client& c) {
  ClientConn& cc = c.conn;
  ProxyExchange& px = c.px;
  if (px.req_sent || px.up == nullptr) return false;
  UpConn& u = *px.up;
  const HostConfig& host = host_of(c);
  if (!u.connected) {
    if (!u.writable) return false;
    int err = 0;
    socklen_t len = sizeof err;
    getsockopt(u.fd, SOL_SOCKET, SO_ERROR, &err, &len);
    if (err != 0) {
      upstream_failed(c, 502);
      return true;
    }
    u.connected = true;
    cc.deadline_ms = until_body_due(c, now_ms_ + host.read_timeout_ms);
  }
  char* in = c.buffers.in.get();
  px.req_body.identify(in, cc.in_len, false);
  if (px.req_body.framing_error()) {
    // The head is out already; the upstream cannot get a valid request any more.
    cc.close_after = true;
    release_upconn(c, false);
    respond(c, 400, "text/plain", "bad chunked body\n", {});
    return true;
  }
  iovec iov[2];
  int cnt = 0;
  if (px.up_head_sent < px.up_head_len) {
    iov[cnt++] = {c.buffers.up_head.get() + px.up_head_sent, px.up_head_len - px.up_head_sent};
  }
  BodyCursor& body = px.req_body;
  if (body.off < body.scan) iov[cnt++] = {in + body.off, body.scan - body.off};
  if (cnt == 0) {
    if (body.complete) {
      px.req_sent = true;
      return true;
    }
    // Every body byte received so far is forwarded: reuse the window and read more.
    cc.in_len = c.req().head_len;
    body.rewind(c.req().head_len);
    if (!send_continue(c)) return true;
    if (!cc.io.readable) return false;
    IoResult r = read_client(c, in + cc.in_len, c.buffers.in_cap - cc.in_len);
    if (r.status == IoStatus::kOk) {
      cc.in_len += r.bytes;
      cc.deadline_ms = until_body_due(c, now_ms_ + host.read_timeout_ms);
      return true;
    }
    if (r.status == IoStatus::kWouldBlock) return false;
    loop_.close_client(c);  // the client went away in the middle of its body
    return true;
  }
  if (!u.writable) return false;
  ssize_t n = ::writev(u.fd, iov, cnt);
  if (n < 0) {
    if (errno == EAGAIN || errno == EINTR) {
      u.writable = false;
      return false;
    }
    upstream_failed(c, 502);
    return true;
  }
  std::size_t sent = static_cast<std::size_t>(n);
  std::size_t total = iov[0].iov_len + (cnt > 1 ? iov[1].iov_len : 0);
  if (sent < total) u.writable = false;
  advance(sent, px.up_head_sent, px.up_head_len, body);
  // Sent: the buffer serves other requests while this one waits for its response (a retry
  // writes the head again).
  if (px.up_head_sent == px.up_head_len) parts_.give_up_head(c);
  cc.deadline_ms = until_body_due(c, now_ms_ + host.read_timeout_ms);
  return true;
}

std::uint64_t Http1Flow::until_body_due(const Client& c, std::uint64_t d) {
  const ProxyExchange& px = c.px;
  if (px.body_deadline_ms == 0 || px.req_body.complete) return d;
  return std::min(d, px.body_deadline_ms);
}

bool Http1Flow::body_overdue(const Client& c) const {
  const ProxyExchange& px = c.px;
  return px.body_deadline_ms != 0 && !px.req_body.complete && now_ms_ >= px.body_deadline_ms;
}

// The client did not send its body in time: 408 and the connection closes; the upstream
// connection holds part of a request and is closed too.
void Http1Flow::body_timed_out(Client& c) {
  if (c.px.up != nullptr) release_upconn(c, false);
  c.conn.close_after = true;
  respond(c, 408, "text/plain", "request body timed out\n", {});
}

bool Http1Flow::answer_timeout(Client& c) {
  if (c.conn.state != CState::kProxy || c.px.resp_head_done || c.conn.out_len != 0) return false;
  if (body_overdue(c)) {
    body_timed_out(c);
  } else {
    upstream_failed(c, 504);
  }
  return true;
}

// The response head, once complete: rewritten into buffers.out, the body cursor started.
bool Http1Flow::parse_upstream_head(Client& c) {
  ClientConn& cc = c.conn;
  ProxyExchange& px = c.px;
  char* resp = c.buffers.resp.get();
  HeadStatus st =
      parse_response_head(std::string_view(resp, px.resp_len), kRespCap, c.req().is_head, c.rh());
  if (st == HeadStatus::kComplete && c.rh().status < 200) {
    // Interim response (100 Continue...): not forwarded, the final one follows.
    std::size_t rest = px.resp_len - c.rh().head_len;
    std::memmove(resp, resp + c.rh().head_len, rest);
    px.resp_len = rest;
    return true;
  }
  if (st == HeadStatus::kComplete) {
    px.resp_head_done = true;
    c.log.up_time_us = mono_us() - c.log.up_start_us;
    c.log.status = c.rh().status;
    bool client_keep = !cc.close_after && c.rh().keep_alive && c.rh().body != BodyKind::kUntilClose;
    if (!px.req_body.complete) client_keep = false;
    cc.close_after = !client_keep;
    cc.out_len =
        write_client_head(c.buffers.out.get(), kOutCap, std::string_view(resp, c.rh().head_len),
                          c.rh(), host_of(c).security_headers, cc.close_after,
                          c.req().minor_version == 0, cache_status_line(px.cache));
    if (cc.out_len == 0) {
      upstream_failed(c, 502);
      return true;
    }
    cc.out_sent = 0;
    px.resp_body.start(c.rh().body, c.rh().content_length, c.rh().head_len);
    cache_.begin_capture(c);
    return true;
  }
  if (st != HeadStatus::kIncomplete) {
    upstream_failed(c, 502);
    return true;
  }
  return false;
}

// After the head: the rewritten head and the identified body bytes out to the client. Returns
// true when it did something, false with `idle` set when the window needs more upstream bytes.
bool Http1Flow::send_response(Client& c) {
  ClientConn& cc = c.conn;
  ProxyExchange& px = c.px;
  BodyCursor& body = px.resp_body;
  char* resp = c.buffers.resp.get();
  body.identify(resp, px.resp_len, px.up_eof);
  if (body.framing_error()) {
    loop_.close_client(c);  // the head went out already: all we can do is cut the response
    return true;
  }
  cache_.capture_body(c);
  iovec iov[2];
  int cnt = 0;
  if (cc.out_sent < cc.out_len) {
    iov[cnt++] = {c.buffers.out.get() + cc.out_sent, cc.out_len - cc.out_sent};
  }
  if (body.off < body.scan) iov[cnt++] = {resp + body.off, body.scan - body.off};
  if (cnt > 0) {
    if (!cc.io.writable) return false;
    IoResult r = write_client(c, iov, cnt);
    if (r.status == IoStatus::kWouldBlock) return false;
    if (r.status != IoStatus::kOk) {
      loop_.close_client(c);
      return true;
    }
    std::size_t sent = r.bytes;
    c.log.bytes_sent += sent;
    advance(sent, cc.out_sent, cc.out_len, body);
    cc.deadline_ms = now_ms_ + cfg().send_timeout_ms;
    return true;
  }
  if (body.complete) {
    bool reusable = c.rh().keep_alive && px.req_body.complete && px.req_sent &&
                    body.scan == px.resp_len && !px.up_eof;
    if (px.up != nullptr) release_upconn(c, reusable);
    cache_.store_capture(c);
    finish_request(c);
    return true;
  }
  // Everything buffered went out: start the window over and read more from upstream.
  px.resp_len = 0;
  body.rewind(0);
  px.cap_scan = 0;
  return read_upstream(c);
}

bool Http1Flow::pump_response(Client& c) {
  ProxyExchange& px = c.px;
  if (px.resp_head_done) return send_response(c);
  if (px.up == nullptr || !px.up->connected) return false;
  if (px.resp_len > 0 && parse_upstream_head(c)) return true;
  return read_upstream(c);
}

bool Http1Flow::read_upstream(Client& c) {
  ProxyExchange& px = c.px;
  if (px.up == nullptr) return false;
  UpConn& u = *px.up;
  if (!u.readable || px.resp_len == kRespCap) {
    if (px.resp_len == kRespCap && !px.resp_head_done) {
      upstream_failed(c, 502);  // the response head is larger than the window
      return true;
    }
    return false;
  }
  parts_.take_response(c);
  ssize_t n = ::read(u.fd, c.buffers.resp.get() + px.resp_len, kRespCap - px.resp_len);
  if (n > 0) {
    // A short read drained the socket, but an end epoll already reported sends no new edge.
    if (static_cast<std::size_t>(n) < kRespCap - px.resp_len && !u.peer_closed) {
      u.readable = false;
    }
    px.resp_len += static_cast<std::size_t>(n);
    c.conn.deadline_ms = now_ms_ + host_of(c).read_timeout_ms;
    return true;
  }
  if (n < 0 && (errno == EAGAIN || errno == EINTR)) {
    u.readable = false;
    // Nothing of the response yet: a request waiting for it holds no response part.
    if (px.resp_len == 0 && !px.resp_head_done) parts_.give_response(c);
    return false;
  }
  // EOF or reset.
  px.up_eof = true;
  u.readable = false;
  if (!px.resp_head_done) {
    upstream_failed(c, 502);
    return true;
  }
  if (c.rh().body == BodyKind::kUntilClose) {
    px.resp_body.complete = true;
    return true;
  }
  loop_.close_client(c);  // truncated response: the client must see the connection end
  return true;
}

void Http1Flow::upstream_failed(Client& c, std::uint16_t status) {
  ProxyExchange& px = c.px;
  bool fresh_response = px.resp_len == 0 && !px.resp_head_done;
  bool reused = px.up != nullptr && px.up->reused;
  if (px.up != nullptr) release_upconn(c, false);
  // A pooled connection the upstream closed while we picked it: retry once on a new one, as
  // long as no body byte has been consumed from the client and the method is idempotent (the
  // upstream may have acted on the first attempt before closing).
  if (reused && fresh_response && !px.retried && c.req().body == BodyKind::kNone && status == 502 &&
      idempotent(c.req().method)) {
    px.retried = true;
    write_up_head(c);  // the same bytes: the first copy may have gone back to the pool
    px.up_head_sent = 0;
    px.req_sent = false;
    px.up_eof = false;
    connect_upstream(c);
    return;
  }
  if (px.resp_head_done || c.conn.out_len > 0) {
    loop_.close_client(c);
    return;
  }
  // Body bytes may sit half-forwarded in the buffer: only a bodyless request lets the
  // connection carry on (its end is then exactly head_len).
  if (c.req().body != BodyKind::kNone) c.conn.close_after = true;
  if (serve_stale(c)) return;
  std::string_view body = status == 504 ? "upstream timed out\n" : "bad gateway\n";
  respond(c, status, "text/plain", body, {});
}

}  // namespace gatebench::gateway
