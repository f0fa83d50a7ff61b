#include "macro/gateway/upstream_pool.hpp"

#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>

namespace gatebench::gateway {

UpstreamConns::~UpstreamConns() {
  for (auto& u : store_) {
    if (u->fd >= 0) ::close(u->fd);
  }
}

UpConn* UpstreamConns::open(int fd, WorkerGen* gen, int host) {
  UpConn* u;
  if (!free_.empty()) {
    u = free_.back();
    free_.pop_back();
  } else {
    store_.push_back(std::make_unique<UpConn>());
    u = store_.back().get();
  }
  *u = UpConn{};
  u->kind = Kind::kUpstream;
  u->fd = fd;
  u->gen = gen;
  u->host = host;
  return u;
}

void UpstreamConns::close(UpConn& u) {
  if (u.dead) return;
  ::close(u.fd);
  u.fd = -1;
  u.dead = true;
  u.owner = nullptr;
  dead_.push_back(&u);
}

void UpstreamConns::reap() {
  for (UpConn* u : dead_) free_.push_back(u);
  dead_.clear();
}

UpConn* UpstreamConns::take_idle(WorkerGen& g, int host) {
  auto& pool = g.idle[static_cast<std::size_t>(host)];
  if (pool.empty()) return nullptr;
  UpConn* u = pool.back();
  pool.pop_back();
  u->reused = true;
  return u;
}

namespace {

// Whether a connection whose response is complete has nothing more to read. `readable` still set
// means the last read filled the window (or readiness came after it): those bytes would be taken
// for the next request's response, and epoll (edge-triggered) reports nothing more for them, so
// only then is the socket asked (one recv; a fully read response costs no syscall).
bool drained(UpConn& u) {
  if (u.peer_closed) return false;
  if (!u.readable) return true;
  char byte;
  const ssize_t n = ::recv(u.fd, &byte, 1, MSG_PEEK | MSG_DONTWAIT);
  if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
    u.readable = false;
    return true;
  }
  return false;  // bytes, EOF or an error
}

}  // namespace

void UpstreamConns::release(UpConn& u, bool reusable, bool stopping) {
  u.owner = nullptr;
  if (reusable && !stopping && !u.gen->retired && drained(u)) {
    auto& pool = u.gen->idle[static_cast<std::size_t>(u.host)];
    const HostConfig& h = u.gen->pub->config->hosts[static_cast<std::size_t>(u.host)];
    if (pool.size() < h.pool_size) {
      pool.push_back(&u);
      return;
    }
  }
  close(u);
}

void UpstreamConns::drop_idle(UpConn& u) {
  auto& pool = u.gen->idle[static_cast<std::size_t>(u.host)];
  for (std::size_t i = 0; i < pool.size(); ++i) {
    if (pool[i] == &u) {
      pool[i] = pool.back();
      pool.pop_back();
      break;
    }
  }
  close(u);
}

void UpstreamConns::close_idle(WorkerGen& g) {
  for (auto& pool : g.idle) {
    for (UpConn* u : pool) close(*u);
    pool.clear();
  }
}

}  // namespace gatebench::gateway
