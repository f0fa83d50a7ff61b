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
  count_in_use(*u);
  return u;
}

void UpstreamConns::count_in_use(UpConn& u) {
  UpstreamUse& use = u.gen->use[static_cast<std::size_t>(u.host)];
  u.in_use = true;
  ++use.busy;
  use.peak = std::max(use.peak, use.busy);
}

void UpstreamConns::count_done(UpConn& u) {
  if (!u.in_use) return;
  u.in_use = false;
  --u.gen->use[static_cast<std::size_t>(u.host)].busy;
}

void UpstreamConns::close(UpConn& u) {
  if (u.dead) return;
  count_done(u);
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
  count_in_use(*u);
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

namespace {

// Idle connections a host's pool keeps: pool_size, or those in use at the window's peak beyond
// the ones in use now, so that the peak comes back without a connect.
std::size_t idle_room(const WorkerGen& g, int host) {
  const auto i = static_cast<std::size_t>(host);
  const UpstreamUse& use = g.use[i];
  return std::max<std::size_t>(g.pub->config->hosts[i].pool_size, use.window_peak() - use.busy);
}

}  // namespace

void UpstreamConns::release(UpConn& u, bool reusable, bool stopping) {
  u.owner = nullptr;
  count_done(u);
  if (reusable && !stopping && !u.gen->retired && drained(u)) {
    auto& pool = u.gen->idle[static_cast<std::size_t>(u.host)];
    if (pool.size() < idle_room(*u.gen, u.host)) {
      pool.push_back(&u);
      return;
    }
  }
  close(u);
}

void UpstreamConns::next_window(WorkerGen& g) {
  for (std::size_t h = 0; h < g.use.size(); ++h) {
    UpstreamUse& use = g.use[h];
    use.previous_peak = use.peak;
    use.peak = use.busy;
    auto& pool = g.idle[h];
    const std::size_t keep = idle_room(g, static_cast<int>(h));
    if (pool.size() <= keep) continue;
    // The bottom of the LIFO stack waited longest.
    const auto excess = static_cast<std::ptrdiff_t>(pool.size() - keep);
    for (auto it = pool.begin(); it != pool.begin() + excess; ++it) close(**it);
    pool.erase(pool.begin(), pool.begin() + excess);
  }
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
