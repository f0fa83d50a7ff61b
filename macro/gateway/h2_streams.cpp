// The loop's side of HTTP/2 (h2_flow.hpp): a connection's steps, and its streams as clients of
// the loop (started when their head is complete, driven when they progress, closed with their
// connection). These stay the loop's: they take, drive and close client objects, which are its
// bookkeeping; what a stream's request does once its client exists (Http1Flow::begin_stream) is
// the request machine's.
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
  http1_.begin_stream(sc, s);
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
