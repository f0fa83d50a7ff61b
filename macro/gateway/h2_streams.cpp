// The loop's side of HTTP/2 (h2_flow.hpp): a connection's steps, its streams as clients of the
// request machine (started when their head is complete, driven when they progress, closed with
// their connection), and a client's request bytes from its socket or its stream.
#include <cstring>

#include "macro/gateway/worker_loop.hpp"

namespace gatebench::gateway {

void WorkerLoop::start_h2(Client& c) {
  h2_.start(c, *this);  // converted here: the H2Handler base is private
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
    http1_.refuse_head(sc, 431, "request header list too large\n");
  } else {
    std::memcpy(sc.buffers.in.get(), s.head.data(), s.head.size());
    cc.in_len = s.head.size();
    cc.state = CState::kReadHead;
    cc.deadline_ms = now_ms_ + cfg().client_header_timeout_ms;
  }
  drive(sc);
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
  h2_.retire(std::move(c.buffers.h2));
}

}  // namespace gatebench::gateway
