// The event loop: epoll dispatch, accepting, connection and generation lifetimes, timeouts and
// the graceful stop. The request state machine is Http1Flow's (http1_flow.hpp).
#include "macro/gateway/worker.hpp"

#include <arpa/inet.h>
#include <malloc.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <new>
#include <stdexcept>
#include <string>

#include "macro/gateway/tls_context.hpp"
#include "macro/gateway/worker_loop.hpp"

namespace gatebench::gateway {
namespace {

// Hands freed pages back to the system. Under AddressSanitizer malloc is ASan's allocator, so
// glibc's malloc_trim would walk glibc arenas the process does not use; it crashed there (a SEGV
// in mtrim, OverloadE2E, now and then), and ASan quarantines freed memory anyway.
void trim_heap() {
#if defined(__SANITIZE_ADDRESS__)
#elif defined(__has_feature)
#if !__has_feature(address_sanitizer)
  malloc_trim(0);
#endif
#else
  malloc_trim(0);
#endif
}

constexpr std::uint32_t kTickMs = 100;
constexpr std::uint32_t kStopGraceMs = 5000;

std::uint64_t mono_ms() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
  return static_cast<std::uint64_t>(ts.tv_sec) * 1000 +
         static_cast<std::uint64_t>(ts.tv_nsec) / 1000000;
}

// The worker's access-log sink, or null when the log is off.
std::unique_ptr<AccessLogSink> open_access_log(int index, const Config& c) {
  if (!c.access_log_enabled) return nullptr;
  // The id carries the pid so a restarted gateway's sequence numbers start a new series.
  return std::make_unique<AccessLogSink>(
      static_cast<std::uint32_t>(getpid()) * 256u + static_cast<std::uint32_t>(index),
      c.access_log_addr, c.access_log_flush_ms);
}

}  // namespace

WorkerLoop::WorkerLoop(int index, SharedState& shared)
    : http1_(LoopCalls(*this), now_ms_, gen_, parts_, cache_, ups_, stopping_, epfd_,
             open_access_log(index, *shared.current()->config),
             StudyWork(shared.calibrate_mixes, shared.study_inject, shared.study_null_fd)),
      index_(index),
      shared_(shared),
      parts_(shared.current()->config->max_header_bytes),
      cache_(shared.cache_counters[static_cast<std::size_t>(index)]) {
  epfd_ = epoll_create1(EPOLL_CLOEXEC);
  wake_fd_ = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (epfd_ < 0 || wake_fd_ < 0)
    throw std::runtime_error("epoll/eventfd: " + std::string(strerror(errno)));
  epoll_event ev{};
  ev.events = EPOLLIN;
  ev.data.ptr = &wake_tag_;
  epoll_ctl(epfd_, EPOLL_CTL_ADD, wake_fd_, &ev);
  gen_owner_ = build_gen(shared_.current());
  finish_gen(*gen_owner_);
  gen_ = gen_owner_.get();
  seen_generation_ = gen_->pub->generation;
  open_listeners();
}

WorkerLoop::~WorkerLoop() {
  for (auto& c : client_store_) {
    if (c->conn.io.ssl != nullptr) SSL_free(c->conn.io.ssl);
    if (c->conn.io.fd >= 0) ::close(c->conn.io.fd);
  }
  for (auto& l : listeners_) {
    if (l->fd >= 0) ::close(l->fd);
  }
  if (wake_fd_ >= 0) ::close(wake_fd_);
  if (epfd_ >= 0) ::close(epfd_);
}

void WorkerLoop::open_listeners() {
  for (const ListenerConfig& lc : cfg().listeners) {
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    int one = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &one, sizeof one);
    // The kernel hands us the connection only once the first bytes are there, so the first
    // read after accept finds data (saves an EAGAIN read and an epoll round per connection).
    int defer = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_DEFER_ACCEPT, &defer, sizeof defer);
    if (bind(fd, reinterpret_cast<const sockaddr*>(&lc.addr), sizeof lc.addr) != 0 ||
        listen(fd, 4096) != 0) {
      std::string why = strerror(errno);
      ::close(fd);
      throw std::runtime_error("cannot listen on " + lc.address + ":" + std::to_string(lc.port) +
                               ": " + why);
    }
    auto l = std::make_unique<Listener>();
    l->kind = Kind::kListener;
    l->fd = fd;
    l->https = lc.https;
    l->decision = lc.decision;
    l->http2 = lc.http2;
    epoll_event ev{};
    ev.events = EPOLLIN;
    ev.data.ptr = l.get();
    epoll_ctl(epfd_, EPOLL_CTL_ADD, fd, &ev);
    listeners_.push_back(std::move(l));
  }
}

void WorkerLoop::run() {
  constexpr int kMaxEvents = 256;
  epoll_event events[kMaxEvents];
  now_ms_ = mono_ms();
  next_tick_ms_ = now_ms_ + kTickMs;
  // The Redis pools' connects were queued by the constructor: under way before the first event.
  if (cache_.has_redis()) run_redis();
  for (;;) {
    int n = epoll_wait(epfd_, events, kMaxEvents, poll_timeout_ms());
    now_ms_ = mono_ms();
    for (int i = 0; i < n; ++i) {
      auto* p = static_cast<Pollable*>(events[i].data.ptr);
      try {
        dispatch(*p, events[i].events);
      } catch (const std::bad_alloc&) {
        out_of_memory(*p);
      }
      give_back_dead_parts();
    }
    if (cache_.has_redis()) run_redis();
    flush_connections();
    reap();
    if (shared_.generation() != seen_generation_) adopt_generation();
    if (!stopping_ && shared_.stopping()) begin_stop();
    if (accept_resume_ms_ != 0 && now_ms_ >= accept_resume_ms_ && !stopping_) resume_accepting();
    if (now_ms_ >= next_tick_ms_) {
      next_tick_ms_ = now_ms_ + kTickMs;
      tick();
      if (cache_.has_redis()) run_redis();
      flush_connections();
      reap();
    }
    if (stopping_ && (live_.empty() || now_ms_ >= stop_deadline_ms_)) break;
  }
  if (AccessLogSink* log = http1_.access_log()) log->flush();
  // The calibration chain's result is used here, so the compiler cannot drop the work.
  asm volatile("" : : "r"(http1_.study().state()));
}

void WorkerLoop::dispatch(Pollable& p, std::uint32_t ev) {
  switch (p.kind) {
    case Kind::kClient:
      on_client(*static_cast<Client*>(&p), ev);
      break;
    case Kind::kUpstream:
      on_upstream(*static_cast<UpConn*>(&p), ev);
      break;
    case Kind::kListener:
      on_accept(*static_cast<Listener*>(&p));
      break;
    case Kind::kWake: {
      std::uint64_t v;
      ssize_t r = ::read(wake_fd_, &v, sizeof v);
      (void)r;
      break;
    }
    case Kind::kRedis: {
      auto* conn = static_cast<RedisConn*>(&p);
      conn->store->on_event(*conn, ev);
      break;
    }
  }
}

// A request that could not get memory (a body window for the rules, a cached response's copy)
// loses its connection; the worker and its other connections go on. Without this the exception
// would end the worker's thread, and std::terminate the process.
void WorkerLoop::out_of_memory(Pollable& p) {
  Client* c = nullptr;
  if (p.kind == Kind::kClient) c = static_cast<Client*>(&p);
  if (p.kind == Kind::kUpstream) c = static_cast<UpConn&>(p).owner;
  std::fprintf(stderr, "gatebench-gateway: worker %d: out of memory%s\n", index_,
               c != nullptr ? ", closing the connection" : "");
  if (c != nullptr && !c->conn.dead) close_client(*c);
}

int WorkerLoop::poll_timeout_ms() const {
  return static_cast<int>(cache_.wait_ms(kTickMs, now_ms_));
}

// Before reap(): a queued connection closed in this batch is still marked dead, not reused.
void WorkerLoop::flush_connections() {
  h2_.flush([this](Client& c) {
    try {
      drive(c);
    } catch (const std::bad_alloc&) {
      out_of_memory(c);
    }
  });
}

// Between two events nothing up the stack reads a dead client's buffers (in close_client code up
// the stack of the close may), and a later event naming it finds it dead: its parts can serve the
// next stream at once. Only the object itself must wait for reap(), since the batch's events may
// still name it. One batch of up to kMaxEvents events ends HTTP/2 streams by the hundred while it
// starts as many: their request parts waited for the batch's end, and the new streams took fresh
// ones meanwhile.
void WorkerLoop::give_back_dead_parts() {
  for (; dead_parts_returned_ < dead_clients_.size(); ++dead_parts_returned_) {
    Client& c = *dead_clients_[dead_parts_returned_];
    parts_.give_request(c);
    parts_.give_exchange(c);
  }
}

void WorkerLoop::reap() {
  give_back_dead_parts();
  for (Client* c : dead_clients_) free_clients_.push_back(c);
  dead_clients_.clear();
  dead_parts_returned_ = 0;
  h2_.reap();
  ups_.reap();
}

// Spare parts of request sets and closed connections' objects beyond what the last one or two
// peak windows used are freed, the ones unused the longest first (the pools take from the back).
// malloc_trim returns the freed pages of every arena (this worker's included) to the system
// instead of keeping them for a next burst. What was in use within the last windows stays: HTTP/2
// streams come and go many times a second, and releasing each tick the buffers just given back
// had the worker in madvise and page faults for 15% of its CPU (gateway-h2, 640 streams in
// flight).
void WorkerLoop::release_spare_buffers() {
  const std::size_t in_use = client_store_.size() - free_clients_.size();
  if (now_ms_ >= peak_window_end_ms_) {
    previous_peak_ = current_peak_;
    current_peak_ = in_use;
    parts_.next_window();
    peak_window_end_ms_ = now_ms_ + kPeakWindowMs;
    ups_.next_window(*gen_);
  }
  bool released = parts_.trim();
  const std::size_t clients_peak = std::max({previous_peak_, current_peak_, in_use});
  const std::size_t keep_clients = std::max(kSpareClients, clients_peak - in_use);
  if (free_clients_.size() > keep_clients) {
    const std::size_t excess = free_clients_.size() - keep_clients;
    for (std::size_t i = 0; i < excess; ++i) {
      // Swap-remove from the store: the object's owner; nothing else points at a free client.
      const std::size_t at = free_clients_[i]->store_index;
      client_store_[at] = std::move(client_store_.back());
      client_store_[at]->store_index = at;
      client_store_.pop_back();
    }
    free_clients_.erase(free_clients_.begin(),
                        free_clients_.begin() + static_cast<std::ptrdiff_t>(excess));
    released = true;
  }
  if (released) trim_heap();
}

void WorkerLoop::adopt_generation() {
  std::shared_ptr<const Published> pub = shared_.current();
  seen_generation_ = pub->generation;
  if (pub->generation == gen_->pub->generation) return;
  std::unique_ptr<WorkerGen> next;
  {
    std::lock_guard<std::mutex> lock(prepared_mu_);
    if (prepared_ && prepared_->pub == pub) next = std::move(prepared_);
    prepared_.reset();
  }
  // Every published generation was prepared for this worker first (gateway_main.cpp); building
  // it here is what a caller that did not prepare gets.
  if (!next) next = build_gen(std::move(pub));
  finish_gen(*next);
  // Idle connections of the old generation may point at upstreams that no longer exist.
  ups_.close_idle(*gen_);
  gen_->retired = true;
  WorkerGen* old = gen_;
  retired_.push_back(std::move(gen_owner_));
  gen_owner_ = std::move(next);
  gen_ = gen_owner_.get();
  if (old->inflight == 0) release_gen(old);
}

void WorkerLoop::prepare(std::shared_ptr<const Published> pub) {
  std::unique_ptr<WorkerGen> g = build_gen(std::move(pub));
  std::lock_guard<std::mutex> lock(prepared_mu_);
  prepared_ = std::move(g);
}

void WorkerLoop::discard_prepared() {
  std::unique_ptr<WorkerGen> dropped;  // freed outside the lock
  std::lock_guard<std::mutex> lock(prepared_mu_);
  dropped = std::move(prepared_);
}

std::unique_ptr<WorkerGen> WorkerLoop::build_gen(std::shared_ptr<const Published> pub) {
  auto g = std::make_unique<WorkerGen>();
  g->pub = std::move(pub);
  const Config& c = *g->pub->config;
  g->idle.resize(c.hosts.size());
  g->use.resize(c.hosts.size());
  for (const HostConfig& h : c.hosts) {
    g->policies.push_back(std::make_unique<HostPolicy>(h, c.tokens.get()));
    std::unique_ptr<cache::MemoryStore> store;
    if (h.cache && h.cache->store == CacheStore::kMemory) store = make_memory_cache(*h.cache);
    g->memory_caches.push_back(std::move(store));
  }
  return g;
}

// The Redis pools belong to the worker's loop (its epoll set), so they are looked up here.
void WorkerLoop::finish_gen(WorkerGen& g) {
  for (const HostConfig& h : g.pub->config->hosts) {
    g.redis_caches.push_back(h.cache && h.cache->store == CacheStore::kRedis
                                 ? cache_.redis_store_for(*h.cache, epfd_)
                                 : nullptr);
  }
}

void WorkerLoop::release_gen(WorkerGen* g) {
  for (auto it = retired_.begin(); it != retired_.end(); ++it) {
    if (it->get() == g) {
      retired_.erase(it);
      return;
    }
  }
}

void WorkerLoop::end_generation_use(Client& c) {
  if (c.conn.gen == nullptr) return;
  WorkerGen* g = c.conn.gen;
  c.conn.gen = nullptr;
  if (--g->inflight == 0 && g->retired) release_gen(g);
}

void WorkerLoop::begin_stop() {
  stopping_ = true;
  stop_deadline_ms_ = now_ms_ + kStopGraceMs;
  for (auto& l : listeners_) {
    ::close(l->fd);
    l->fd = -1;
  }
  // Idle keep-alive clients go now; busy ones close after their current response. An HTTP/2
  // connection gets GOAWAY: the streams it carries finish, no new one starts.
  std::vector<Client*> idle;
  std::vector<Client*> h2;
  for (Client* c : live_) {
    if (c->conn.state == CState::kReadHead && c->conn.in_len == 0) idle.push_back(c);
    if (c->conn.state == CState::kH2) h2.push_back(c);
    c->conn.close_after = true;
  }
  for (Client* c : idle) close_client(*c);
  for (Client* c : h2) {
    c->buffers.h2->shutdown();
    drive(*c);
  }
  ups_.close_idle(*gen_);
}

void WorkerLoop::tick() {
  if (AccessLogSink* log = http1_.access_log()) log->tick(now_ms_);
  release_spare_buffers();
  cache_.tick(now_ms_);
  // Deadlines are coarse (one tick); scanning the live list beats a timer heap at these sizes.
  for (std::size_t i = 0; i < live_.size();) {
    Client* c = live_[i];
    if (c->conn.deadline_ms != 0 && now_ms_ >= c->conn.deadline_ms) {
      if (http1_.answer_timeout(*c)) {
        if (!c->conn.dead) drive(*c);
      } else {
        close_client(*c);
      }
    }
    if (i < live_.size() && live_[i] == c) ++i;
  }
}

Client* WorkerLoop::new_client() {
  Client* c;
  if (!free_clients_.empty()) {
    c = free_clients_.back();
    free_clients_.pop_back();
  } else {
    client_store_.push_back(std::make_unique<Client>());
    c = client_store_.back().get();
    c->kind = Kind::kClient;
    c->store_index = client_store_.size() - 1;
  }
  current_peak_ = std::max(current_peak_, client_store_.size() - free_clients_.size());
  c->conn = {};
  c->px = {};
  c->live_index = live_.size();
  live_.push_back(c);
  return c;
}

void WorkerLoop::close_client(Client& c) {
  if (c.conn.dead) return;
  if (c.px.redis_lookup != nullptr) c.px.redis_lookup->store->cancel(c);
  if (c.px.up != nullptr) http1_.release_upconn(c, false);
  end_generation_use(c);
  if (c.conn.stream != nullptr) {
    // Cut before its response was complete: the client must not take it for a whole one.
    c.conn.parent->buffers.h2->reset_stream(*c.conn.stream, NGHTTP2_INTERNAL_ERROR);
    c.conn.stream->user = nullptr;
    c.conn.stream = nullptr;
  }
  if (c.buffers.h2) detach_streams(c);
  if (c.conn.io.ssl != nullptr) {
    // close_notify (best effort, non-blocking): a session freed without it is dropped from
    // the server's session cache.
    if (c.conn.state != CState::kHandshake) SSL_shutdown(c.conn.io.ssl);
    SSL_free(c.conn.io.ssl);
    c.conn.io.ssl = nullptr;
  }
  if (c.conn.io.fd >= 0) ::close(c.conn.io.fd);
  c.conn.io.fd = -1;
  c.conn.dead = true;
  Client* last = live_.back();
  live_[c.live_index] = last;
  last->live_index = c.live_index;
  live_.pop_back();
  dead_clients_.push_back(&c);
}

void WorkerLoop::on_accept(Listener& l) {
  for (;;) {
    sockaddr_in peer{};
    socklen_t plen = sizeof peer;
    int fd = accept4(l.fd, reinterpret_cast<sockaddr*>(&peer), &plen, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) {
      if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM) {
        pause_accepting();
        return;
      }
      if (errno == EINTR || errno == ECONNABORTED) continue;
      return;  // EAGAIN: the backlog is empty
    }
    if (live_.size() >= connection_cap()) {
      // Past the cap: a clear answer (best effort, the socket is fresh; a TLS client only sees
      // the close, no handshake is spent on it) instead of a connection left waiting.
      static constexpr std::string_view kFull =
          "HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/plain\r\n"
          "Content-Length: 21\r\nConnection: close\r\nRetry-After: 1\r\n\r\n"
          "too many connections\n";
      if (!l.https) {
        ssize_t w = ::send(fd, kFull.data(), kFull.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
        (void)w;
      }
      ::close(fd);
      continue;
    }
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    Client* c = new_client();
    ClientConn& cc = c->conn;
    cc.io.fd = fd;
    cc.https = l.https;
    cc.decision = l.decision;
    cc.h2c = !l.https && l.http2;
    cc.ip = ntohl(peer.sin_addr.s_addr);
    inet_ntop(AF_INET, &peer.sin_addr, cc.ip_text, sizeof cc.ip_text);
    cc.ip_len = static_cast<std::uint8_t>(strlen(cc.ip_text));
    cc.deadline_ms = now_ms_ + cfg().client_header_timeout_ms;
    if (l.https) {
      cc.io.ssl = SSL_new(gen_->pub->tls.get());
      SSL_set_fd(cc.io.ssl, fd);
      SSL_set_accept_state(cc.io.ssl);
      if (l.http2) offer_h2(cc.io.ssl);
      cc.state = CState::kHandshake;
    }
    epoll_event ev{};
    ev.events = EPOLLIN | EPOLLOUT | EPOLLRDHUP | EPOLLET;
    ev.data.ptr = c;
    epoll_ctl(epfd_, EPOLL_CTL_ADD, fd, &ev);
    drive(*c);
  }
}

void WorkerLoop::pause_accepting() {
  for (auto& l : listeners_) {
    if (l->fd < 0 || l->paused) continue;
    epoll_ctl(epfd_, EPOLL_CTL_DEL, l->fd, nullptr);
    l->paused = true;
  }
  accept_resume_ms_ = now_ms_ + kAcceptPauseMs;
}

void WorkerLoop::resume_accepting() {
  accept_resume_ms_ = 0;
  for (auto& l : listeners_) {
    if (l->fd < 0 || !l->paused) continue;
    epoll_event ev{};
    ev.events = EPOLLIN;
    ev.data.ptr = l.get();
    epoll_ctl(epfd_, EPOLL_CTL_ADD, l->fd, &ev);
    l->paused = false;
  }
}

void WorkerLoop::on_client(Client& c, std::uint32_t ev) {
  if (c.conn.dead) return;
  if (ev & (EPOLLIN | EPOLLRDHUP | EPOLLHUP | EPOLLERR)) c.conn.io.readable = true;
  if (ev & (EPOLLRDHUP | EPOLLHUP | EPOLLERR)) c.conn.io.peer_closed = true;
  if (ev & (EPOLLOUT | EPOLLHUP | EPOLLERR)) c.conn.io.writable = true;
  drive(c);
}

void WorkerLoop::on_upstream(UpConn& u, std::uint32_t ev) {
  if (u.dead) return;
  if (u.owner == nullptr) {
    if ((ev & (EPOLLIN | EPOLLRDHUP | EPOLLHUP | EPOLLERR)) == 0) return;  // late write space
    // An idle pooled connection only reports closure or unexpected bytes: drop it.
    ups_.drop_idle(u);
    return;
  }
  if (ev & (EPOLLIN | EPOLLRDHUP | EPOLLHUP | EPOLLERR)) u.readable = true;
  if (ev & (EPOLLRDHUP | EPOLLHUP | EPOLLERR)) u.peer_closed = true;
  if (ev & (EPOLLOUT | EPOLLHUP | EPOLLERR)) u.writable = true;
  drive(*u.owner);
}

void WorkerLoop::drive(Client& c) {
  Client* parent = c.conn.parent;
  c.conn.driving = true;
  drive_steps(c);
  c.conn.driving = false;
  // A stream's progress leaves frames to send (or room to read) on its connection. Sent once
  // the batch of events is done, not now: driving the connection after each stream wrote one
  // TLS record and one write() per response (gateway-h2: 1.0 write per request with 640
  // streams in flight, haproxy's 0.17), where the streams answered by one batch share one.
  if (parent != nullptr && !parent->conn.dead && !parent->conn.driving &&
      !parent->conn.flush_queued) {
    h2_.queue(*parent);
  }
}

void WorkerLoop::drive_steps(Client& c) {
  for (;;) {
    if (c.conn.dead) return;
    bool progressed = false;
    switch (c.conn.state) {
      case CState::kHandshake:
        progressed = http1_.step_handshake(c);
        break;
      case CState::kReadHead:
        progressed = http1_.step_read_head(c);
        break;
      case CState::kReadBody:
        progressed = http1_.step_read_body(c);
        break;
      case CState::kCacheWait:
        break;  // the Redis lookup's result resumes the request (run_redis)
      case CState::kLocal:
        progressed = http1_.step_local(c);
        break;
      case CState::kProxy:
        progressed = http1_.step_proxy(c);
        break;
      case CState::kLinger:
        progressed = http1_.step_linger(c);
        break;
      case CState::kH2:
        progressed = step_h2(c);
        break;
    }
    if (!progressed) return;
  }
}

// ---- The request machine's calls back (http1_flow.hpp) ----------------------------------

void LoopCalls::close_client(Client& c) {
  loop_.close_client(c);
}

void LoopCalls::end_generation_use(Client& c) {
  loop_.end_generation_use(c);
}

void LoopCalls::start_h2(Client& c) {
  loop_.start_h2(c);
}

// ---- Worker ------------------------------------------------------------------------------

Worker::Worker(int index, SharedState& shared)
    : index_(index), shared_(shared), loop_(std::make_unique<WorkerLoop>(index, shared)) {}
Worker::~Worker() {
  if (thread_.joinable()) thread_.join();
}
void Worker::start() {
  thread_ = std::thread([this] {
    try {
      loop_->run();
    } catch (const std::exception& e) {
      std::fprintf(stderr, "gatebench-gateway: worker %d failed: %s; stopping\n", index_, e.what());
      shared_.fail_worker();
    }
  });
}
void Worker::prepare(std::shared_ptr<const Published> pub) {
  loop_->prepare(std::move(pub));
}
void Worker::discard_prepared() {
  loop_->discard_prepared();
}
void Worker::wake() {
  loop_->wake();
}
void Worker::join() {
  if (thread_.joinable()) thread_.join();
}

}  // namespace gatebench::gateway
