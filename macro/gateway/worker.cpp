#include "macro/gateway/worker.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/tcp.h>
#include <openssl/err.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <ctime>
#include <stdexcept>
#include <string>
#include <vector>

#include "macro/gateway/access_log_sink.hpp"
#include "macro/gateway/calibrate.hpp"
#include "macro/gateway/http_head.hpp"
#include "macro/gateway/policy.hpp"
#include "macro/gateway/response_writer.hpp"

namespace gatebench::gateway {
namespace {

constexpr std::size_t kBodyWindow = 16384;
constexpr std::size_t kRespCap = 16384;
constexpr std::size_t kOutCap = kRespCap + 4096;
constexpr std::uint32_t kTickMs = 100;
constexpr std::uint32_t kLingerMs = 2000;
constexpr std::uint32_t kStopGraceMs = 5000;

std::uint64_t mono_ms() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
  return static_cast<std::uint64_t>(ts.tv_sec) * 1000 +
         static_cast<std::uint64_t>(ts.tv_nsec) / 1000000;
}
std::int64_t mono_us() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<std::int64_t>(ts.tv_sec) * 1000000 + ts.tv_nsec / 1000;
}
std::int64_t wall_us() {
  timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return static_cast<std::int64_t>(ts.tv_sec) * 1000000 + ts.tv_nsec / 1000;
}

enum class Kind : std::uint8_t { kListener, kClient, kUpstream, kWake };
struct Pollable {
  Kind kind;
};

struct Listener : Pollable {
  int fd = -1;
  bool https = false;
};

struct Client;
struct WorkerGen;

struct UpConn : Pollable {
  int fd = -1;
  Client* owner = nullptr;
  WorkerGen* gen = nullptr;
  int host = -1;
  bool connected = false;
  bool readable = false;
  bool writable = false;
  bool reused = false;
  bool dead = false;
};

// Per-worker view of one configuration generation: its upstream pools. Requests started under
// an older generation finish on it; it is freed when the last of them is done.
struct WorkerGen {
  std::shared_ptr<const Published> pub;
  std::vector<std::vector<UpConn*>> idle;             // per host, LIFO
  std::vector<std::unique_ptr<HostPolicy>> policies;  // per host: this worker's feature state
  int inflight = 0;
  bool retired = false;
};

enum class CState : std::uint8_t { kHandshake, kReadHead, kLocal, kProxy, kLinger };

struct Client : Pollable {
  int fd = -1;
  SSL* ssl = nullptr;
  bool https = false;
  bool readable = true;
  bool writable = true;
  bool eof = false;
  bool dead = false;
  CState state = CState::kReadHead;
  std::uint32_t ip = 0;
  char ip_text[INET_ADDRSTRLEN] = {};
  std::uint8_t ip_len = 0;
  std::size_t live_index = 0;
  std::uint64_t deadline_ms = 0;

  // Request side. The head stays in place at the front of `in` for the whole request (views in
  // `req` point into it); body bytes cycle through the window behind it.
  std::unique_ptr<char[]> in;
  std::size_t in_cap = 0;
  std::size_t in_len = 0;
  RequestHead req;
  WorkerGen* gen = nullptr;
  int host = -1;
  std::size_t body_off = 0;   // first body byte not yet forwarded
  std::size_t body_scan = 0;  // bytes before this offset are known to be body
  std::uint64_t req_left = 0;
  ChunkedScanner req_chunks;
  bool req_body_complete = false;
  bool req_sent = false;
  bool sent_continue = false;
  bool retried = false;
  bool close_after = false;

  // Upstream and response side.
  UpConn* up = nullptr;
  std::unique_ptr<char[]> up_head;
  std::size_t up_head_len = 0;
  std::size_t up_head_sent = 0;
  std::unique_ptr<char[]> resp;
  std::size_t resp_len = 0;
  std::size_t resp_off = 0;
  std::size_t resp_scan = 0;
  std::uint64_t resp_left = 0;
  ChunkedScanner resp_chunks;
  ResponseHead rh;
  bool resp_head_done = false;
  bool resp_body_complete = false;
  bool up_eof = false;

  // Bytes for the client: a response head (or a whole local response).
  std::unique_ptr<char[]> out;
  std::size_t out_len = 0;
  std::size_t out_sent = 0;

  // Log.
  std::int64_t start_us = 0;
  std::int64_t up_start_us = 0;
  std::int64_t up_time_us = -1;
  std::uint64_t bytes_sent = 0;
  std::uint16_t status = 0;
  Decision decision;
};

}  // namespace

class WorkerLoop {
 public:
  WorkerLoop(int index, SharedState& shared);
  ~WorkerLoop();
  void run();
  void wake() {
    std::uint64_t one = 1;
    ssize_t r = ::write(wake_fd_, &one, sizeof one);
    (void)r;
  }

 private:
  // Loop plumbing.
  void open_listeners();
  void on_accept(Listener& l);
  void on_client(Client& c, std::uint32_t ev);
  void on_upstream(UpConn& u, std::uint32_t ev);
  void tick();
  void adopt_generation();
  void begin_stop();
  void reap();

  // Connection lifetimes.
  Client* new_client();
  void close_client(Client& c);
  UpConn* new_upconn();
  void close_upconn(UpConn& u);
  void release_upconn(Client& c, bool reusable);
  void release_gen(WorkerGen* g);
  std::unique_ptr<WorkerGen> make_gen(std::shared_ptr<const Published> pub);

  // Request state machine.
  void drive(Client& c);
  bool step_handshake(Client& c);
  bool step_read_head(Client& c);
  void begin_request(Client& c);
  bool step_local(Client& c);
  bool step_linger(Client& c);
  void start_proxy(Client& c);
  bool connect_upstream(Client& c);
  bool pump_request(Client& c);
  bool pump_response(Client& c);
  void identify_request_body(Client& c);
  void identify_response_body(Client& c);
  void upstream_failed(Client& c, std::uint16_t status, const char* why);
  void finish_request(Client& c);
  void respond(Client& c, std::uint16_t status, std::string_view content_type,
               std::string_view body, std::string_view extra_headers);

  // I/O on the client side (plain or TLS).
  ssize_t client_read(Client& c, char* buf, std::size_t len);
  ssize_t client_writev(Client& c, const iovec* iov, int cnt);

  const Config& cfg() const { return *gen_->pub->config; }

  int index_;
  SharedState& shared_;
  int epfd_ = -1;
  int wake_fd_ = -1;
  Pollable wake_tag_{Kind::kWake};
  std::vector<std::unique_ptr<Listener>> listeners_;
  std::unique_ptr<WorkerGen> gen_owner_;
  WorkerGen* gen_ = nullptr;
  std::vector<std::unique_ptr<WorkerGen>> retired_;
  std::uint64_t seen_generation_ = 0;

  std::vector<std::unique_ptr<Client>> client_store_;
  std::vector<Client*> free_clients_;
  std::vector<Client*> live_;
  std::vector<Client*> dead_clients_;
  std::vector<std::unique_ptr<UpConn>> up_store_;
  std::vector<UpConn*> free_ups_;
  std::vector<UpConn*> dead_ups_;

  std::unique_ptr<AccessLogSink> log_;
  std::unique_ptr<char[]> tls_scratch_;
  std::unique_ptr<PolicyScratch> policy_scratch_ = std::make_unique<PolicyScratch>();
  std::uint64_t now_ms_ = 0;
  std::uint64_t next_tick_ms_ = 0;
  bool stopping_ = false;
  std::uint64_t stop_deadline_ms_ = 0;
  std::uint32_t calibrate_mixes_ = 0;
  std::uint64_t calibrate_state_ = 0;
};

WorkerLoop::WorkerLoop(int index, SharedState& shared)
    : index_(index), shared_(shared), calibrate_mixes_(shared.calibrate_mixes) {
  epfd_ = epoll_create1(EPOLL_CLOEXEC);
  wake_fd_ = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (epfd_ < 0 || wake_fd_ < 0)
    throw std::runtime_error("epoll/eventfd: " + std::string(strerror(errno)));
  epoll_event ev{};
  ev.events = EPOLLIN;
  ev.data.ptr = &wake_tag_;
  epoll_ctl(epfd_, EPOLL_CTL_ADD, wake_fd_, &ev);
  gen_owner_ = make_gen(shared_.current());
  gen_ = gen_owner_.get();
  seen_generation_ = gen_->pub->generation;
  tls_scratch_ = std::make_unique<char[]>(kOutCap + kRespCap);
  if (cfg().access_log_enabled) {
    // The id carries the pid so a restarted gateway's sequence numbers start a new series.
    log_ = std::make_unique<AccessLogSink>(
        static_cast<std::uint32_t>(getpid()) * 256u + static_cast<std::uint32_t>(index_),
        cfg().access_log_addr, cfg().access_log_flush_ms);
  }
  open_listeners();
}

WorkerLoop::~WorkerLoop() {
  for (auto& c : client_store_) {
    if (c->ssl != nullptr) SSL_free(c->ssl);
    if (c->fd >= 0) ::close(c->fd);
  }
  for (auto& u : up_store_) {
    if (u->fd >= 0) ::close(u->fd);
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
  for (;;) {
    int n = epoll_wait(epfd_, events, kMaxEvents, static_cast<int>(kTickMs));
    now_ms_ = mono_ms();
    for (int i = 0; i < n; ++i) {
      auto* p = static_cast<Pollable*>(events[i].data.ptr);
      switch (p->kind) {
        case Kind::kClient:
          on_client(*static_cast<Client*>(p), events[i].events);
          break;
        case Kind::kUpstream:
          on_upstream(*static_cast<UpConn*>(p), events[i].events);
          break;
        case Kind::kListener:
          on_accept(*static_cast<Listener*>(p));
          break;
        case Kind::kWake: {
          std::uint64_t v;
          ssize_t r = ::read(wake_fd_, &v, sizeof v);
          (void)r;
          break;
        }
      }
    }
    reap();
    if (shared_.generation() != seen_generation_) adopt_generation();
    if (!stopping_ && shared_.stopping()) begin_stop();
    if (now_ms_ >= next_tick_ms_) {
      next_tick_ms_ = now_ms_ + kTickMs;
      tick();
      reap();
    }
    if (stopping_ && (live_.empty() || now_ms_ >= stop_deadline_ms_)) break;
  }
  if (log_) log_->flush();
  // The calibration chain's result is used here, so the compiler cannot drop the work.
  asm volatile("" : : "r"(calibrate_state_));
}

void WorkerLoop::reap() {
  for (Client* c : dead_clients_) free_clients_.push_back(c);
  dead_clients_.clear();
  for (UpConn* u : dead_ups_) free_ups_.push_back(u);
  dead_ups_.clear();
}

void WorkerLoop::adopt_generation() {
  std::shared_ptr<const Published> pub = shared_.current();
  seen_generation_ = pub->generation;
  if (pub->generation == gen_->pub->generation) return;
  // Idle connections of the old generation may point at upstreams that no longer exist.
  for (auto& pool : gen_->idle) {
    for (UpConn* u : pool) close_upconn(*u);
    pool.clear();
  }
  gen_->retired = true;
  WorkerGen* old = gen_;
  retired_.push_back(std::move(gen_owner_));
  gen_owner_ = make_gen(std::move(pub));
  gen_ = gen_owner_.get();
  if (old->inflight == 0) release_gen(old);
}

std::unique_ptr<WorkerGen> WorkerLoop::make_gen(std::shared_ptr<const Published> pub) {
  auto g = std::make_unique<WorkerGen>();
  g->pub = std::move(pub);
  const Config& c = *g->pub->config;
  g->idle.resize(c.hosts.size());
  for (const HostConfig& h : c.hosts) {
    g->policies.push_back(std::make_unique<HostPolicy>(h, c.tokens.get()));
  }
  return g;
}

void WorkerLoop::release_gen(WorkerGen* g) {
  for (auto it = retired_.begin(); it != retired_.end(); ++it) {
    if (it->get() == g) {
      retired_.erase(it);
      return;
    }
  }
}

void WorkerLoop::begin_stop() {
  stopping_ = true;
  stop_deadline_ms_ = now_ms_ + kStopGraceMs;
  for (auto& l : listeners_) {
    ::close(l->fd);
    l->fd = -1;
  }
  // Idle keep-alive clients go now; busy ones close after their current response.
  std::vector<Client*> idle;
  for (Client* c : live_) {
    if (c->state == CState::kReadHead && c->in_len == 0) idle.push_back(c);
    c->close_after = true;
  }
  for (Client* c : idle) close_client(*c);
  for (auto& pool : gen_->idle) {
    for (UpConn* u : pool) close_upconn(*u);
    pool.clear();
  }
}

void WorkerLoop::tick() {
  if (log_) log_->tick(now_ms_);
  // Deadlines are coarse (one tick); scanning the live list beats a timer heap at these sizes.
  for (std::size_t i = 0; i < live_.size();) {
    Client* c = live_[i];
    if (c->deadline_ms != 0 && now_ms_ >= c->deadline_ms) {
      if (c->state == CState::kProxy && !c->resp_head_done && c->out_len == 0) {
        upstream_failed(*c, 504, "upstream timed out");
        if (!c->dead) drive(*c);
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
  }
  std::size_t want = cfg().max_header_bytes + kBodyWindow;
  if (c->in_cap != want) {
    c->in = std::make_unique<char[]>(want);
    c->in_cap = want;
    c->up_head = std::make_unique<char[]>(cfg().max_header_bytes + 1024);
  }
  if (!c->resp) {
    c->resp = std::make_unique<char[]>(kRespCap);
    c->out = std::make_unique<char[]>(kOutCap);
  }
  c->dead = false;
  c->readable = true;
  c->writable = true;
  c->eof = false;
  c->in_len = 0;
  c->out_len = c->out_sent = 0;
  c->up = nullptr;
  c->gen = nullptr;
  c->close_after = false;
  c->state = CState::kReadHead;
  c->live_index = live_.size();
  live_.push_back(c);
  return c;
}

void WorkerLoop::close_client(Client& c) {
  if (c.dead) return;
  if (c.up != nullptr) release_upconn(c, false);
  if (c.gen != nullptr) {
    WorkerGen* g = c.gen;
    c.gen = nullptr;
    if (--g->inflight == 0 && g->retired) release_gen(g);
  }
  if (c.ssl != nullptr) {
    // close_notify (best effort, non-blocking): a session freed without it is dropped from
    // the server's session cache.
    if (c.state != CState::kHandshake) SSL_shutdown(c.ssl);
    SSL_free(c.ssl);
    c.ssl = nullptr;
  }
  ::close(c.fd);
  c.fd = -1;
  c.dead = true;
  Client* last = live_.back();
  live_[c.live_index] = last;
  last->live_index = c.live_index;
  live_.pop_back();
  dead_clients_.push_back(&c);
}

UpConn* WorkerLoop::new_upconn() {
  UpConn* u;
  if (!free_ups_.empty()) {
    u = free_ups_.back();
    free_ups_.pop_back();
  } else {
    up_store_.push_back(std::make_unique<UpConn>());
    u = up_store_.back().get();
    u->kind = Kind::kUpstream;
  }
  u->dead = false;
  u->owner = nullptr;
  u->connected = false;
  u->readable = false;
  u->writable = false;
  u->reused = false;
  return u;
}

void WorkerLoop::close_upconn(UpConn& u) {
  if (u.dead) return;
  ::close(u.fd);
  u.fd = -1;
  u.dead = true;
  u.owner = nullptr;
  dead_ups_.push_back(&u);
}

void WorkerLoop::release_upconn(Client& c, bool reusable) {
  UpConn* u = c.up;
  c.up = nullptr;
  u->owner = nullptr;
  if (reusable && !stopping_ && !u->gen->retired) {
    auto& pool = u->gen->idle[static_cast<std::size_t>(u->host)];
    const HostConfig& h = u->gen->pub->config->hosts[static_cast<std::size_t>(u->host)];
    if (pool.size() < h.pool_size) {
      pool.push_back(u);
      return;
    }
  }
  close_upconn(*u);
}

void WorkerLoop::on_accept(Listener& l) {
  for (;;) {
    sockaddr_in peer{};
    socklen_t plen = sizeof peer;
    int fd = accept4(l.fd, reinterpret_cast<sockaddr*>(&peer), &plen, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) return;  // EAGAIN, or a transient error (EMFILE...): try again on the next edge
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    Client* c = new_client();
    c->fd = fd;
    c->https = l.https;
    c->ip = ntohl(peer.sin_addr.s_addr);
    inet_ntop(AF_INET, &peer.sin_addr, c->ip_text, sizeof c->ip_text);
    c->ip_len = static_cast<std::uint8_t>(strlen(c->ip_text));
    c->deadline_ms = now_ms_ + cfg().client_header_timeout_ms;
    if (l.https) {
      c->ssl = SSL_new(gen_->pub->tls.get());
      SSL_set_fd(c->ssl, fd);
      SSL_set_accept_state(c->ssl);
      c->state = CState::kHandshake;
    }
    epoll_event ev{};
    ev.events = EPOLLIN | EPOLLOUT | EPOLLRDHUP | EPOLLET;
    ev.data.ptr = c;
    epoll_ctl(epfd_, EPOLL_CTL_ADD, fd, &ev);
    drive(*c);
  }
}

void WorkerLoop::on_client(Client& c, std::uint32_t ev) {
  if (c.dead) return;
  if (ev & (EPOLLIN | EPOLLRDHUP | EPOLLHUP | EPOLLERR)) c.readable = true;
  if (ev & (EPOLLOUT | EPOLLHUP | EPOLLERR)) c.writable = true;
  drive(c);
}

void WorkerLoop::on_upstream(UpConn& u, std::uint32_t ev) {
  if (u.dead) return;
  if (u.owner == nullptr) {
    if ((ev & (EPOLLIN | EPOLLRDHUP | EPOLLHUP | EPOLLERR)) == 0) return;  // late write space
    // An idle pooled connection only reports closure or unexpected bytes: drop it.
    auto& pool = u.gen->idle[static_cast<std::size_t>(u.host)];
    for (std::size_t i = 0; i < pool.size(); ++i) {
      if (pool[i] == &u) {
        pool[i] = pool.back();
        pool.pop_back();
        break;
      }
    }
    close_upconn(u);
    return;
  }
  if (ev & (EPOLLIN | EPOLLRDHUP | EPOLLHUP | EPOLLERR)) u.readable = true;
  if (ev & (EPOLLOUT | EPOLLHUP | EPOLLERR)) u.writable = true;
  drive(*u.owner);
}

// ---- client I/O -------------------------------------------------------------------------

ssize_t WorkerLoop::client_read(Client& c, char* buf, std::size_t len) {
  if (c.ssl == nullptr) {
    ssize_t n = ::read(c.fd, buf, len);
    if (n > 0) {
      // A short read drained the socket; edge-triggered epoll reports the next arrival.
      if (static_cast<std::size_t>(n) < len) c.readable = false;
      return n;
    }
    if (n == 0) return 0;
    if (errno == EAGAIN || errno == EINTR) {
      c.readable = false;
      return -1;
    }
    return -2;
  }
  ERR_clear_error();
  int n = SSL_read(c.ssl, buf, static_cast<int>(len));
  if (n > 0) return n;
  int err = SSL_get_error(c.ssl, n);
  if (err == SSL_ERROR_WANT_READ) {
    c.readable = false;
    return -1;
  }
  if (err == SSL_ERROR_WANT_WRITE) {
    c.writable = false;
    return -1;
  }
  if (err == SSL_ERROR_ZERO_RETURN) return 0;
  return -2;
}

ssize_t WorkerLoop::client_writev(Client& c, const iovec* iov, int cnt) {
  std::size_t total = 0;
  for (int i = 0; i < cnt; ++i) total += iov[i].iov_len;
  if (c.ssl == nullptr) {
    ssize_t n = ::writev(c.fd, iov, cnt);
    if (n >= 0) {
      if (static_cast<std::size_t>(n) < total) c.writable = false;
      return n;
    }
    if (errno == EAGAIN || errno == EINTR) {
      c.writable = false;
      return -1;
    }
    return -2;
  }
  // One TLS record for head and body when they fit the scratch buffer.
  const char* data = static_cast<const char*>(iov[0].iov_base);
  std::size_t len = iov[0].iov_len;
  if (cnt > 1 && iov[0].iov_len > 0 && total <= kOutCap + kRespCap) {
    std::size_t off = 0;
    for (int i = 0; i < cnt; ++i) {
      std::memcpy(tls_scratch_.get() + off, iov[i].iov_base, iov[i].iov_len);
      off += iov[i].iov_len;
    }
    data = tls_scratch_.get();
    len = total;
  } else if (len == 0 && cnt > 1) {
    data = static_cast<const char*>(iov[1].iov_base);
    len = iov[1].iov_len;
  }
  ERR_clear_error();
  int n = SSL_write(c.ssl, data, static_cast<int>(len));
  if (n > 0) return n;
  int err = SSL_get_error(c.ssl, n);
  if (err == SSL_ERROR_WANT_WRITE) {
    c.writable = false;
    return -1;
  }
  if (err == SSL_ERROR_WANT_READ) {
    c.readable = false;
    return -1;
  }
  return -2;
}

// ---- state machine ----------------------------------------------------------------------

void WorkerLoop::drive(Client& c) {
  for (;;) {
    if (c.dead) return;
    bool progressed = false;
    switch (c.state) {
      case CState::kHandshake:
        progressed = step_handshake(c);
        break;
      case CState::kReadHead:
        progressed = step_read_head(c);
        break;
      case CState::kLocal:
        progressed = step_local(c);
        break;
      case CState::kProxy: {
        bool a = pump_request(c);
        if (c.dead || c.state != CState::kProxy) {
          progressed = true;
          break;
        }
        bool b = pump_response(c);
        progressed = a || b;
        break;
      }
      case CState::kLinger:
        progressed = step_linger(c);
        break;
    }
    if (!progressed) return;
  }
}

bool WorkerLoop::step_handshake(Client& c) {
  ERR_clear_error();
  int r = SSL_do_handshake(c.ssl);
  if (r == 1) {
    c.state = CState::kReadHead;
    return true;
  }
  int err = SSL_get_error(c.ssl, r);
  if (err == SSL_ERROR_WANT_READ) {
    c.readable = false;
    return false;
  }
  if (err == SSL_ERROR_WANT_WRITE) {
    c.writable = false;
    return false;
  }
  close_client(c);
  return false;
}

bool WorkerLoop::step_read_head(Client& c) {
  if (c.in_len > 0) {
    HeadStatus st =
        parse_request_head(std::string_view(c.in.get(), c.in_len), cfg().max_header_bytes, c.req);
    if (st == HeadStatus::kComplete) {
      begin_request(c);
      return true;
    }
    if (st != HeadStatus::kIncomplete) {
      c.start_us = mono_us();
      c.host = -1;
      c.decision = Decision{};
      c.close_after = true;
      c.req.method = {};
      c.req.target = {};
      c.req.host = {};
      c.req.user_agent = {};
      c.req.referer = {};
      c.req.body = BodyKind::kNone;
      c.req.head_len = static_cast<std::uint32_t>(c.in_len);
      respond(c, c.req.error_status, "text/plain", c.req.error, {});
      return true;
    }
  }
  if (!c.readable) return false;
  if (c.in_len == c.in_cap) return false;  // unreachable: parse reports kTooLarge first
  ssize_t n = client_read(c, c.in.get() + c.in_len, c.in_cap - c.in_len);
  if (n > 0) {
    if (c.in_len == 0) c.deadline_ms = now_ms_ + cfg().client_header_timeout_ms;
    c.in_len += static_cast<std::size_t>(n);
    return true;
  }
  if (n == -1) return false;
  close_client(c);  // EOF or error between requests
  return false;
}

void WorkerLoop::begin_request(Client& c) {
  if (calibrate_mixes_ != 0) calibrate_state_ = calibrate_mix(calibrate_state_, calibrate_mixes_);
  std::int64_t now_us = mono_us();
  c.start_us = now_us;
  c.up_time_us = -1;
  c.bytes_sent = 0;
  c.decision = Decision{};
  c.close_after = c.close_after || !c.req.keep_alive;
  // The request keeps its generation (config strings, pools) until it is logged.
  c.gen = gen_;
  ++gen_->inflight;
  const Config& config = *c.gen->pub->config;
  c.host = find_host(config, c.req.host);
  if (c.host < 0) {
    // Nothing to route to: the body (if any) is not read, so the connection cannot continue.
    if (c.req.body != BodyKind::kNone) c.close_after = true;
    respond(c, config.unknown_host_status, "text/plain", "unknown host\n", {});
    return;
  }
  PolicyRequest pr{c.req,
                   std::string_view(c.in.get(), c.req.head_len),
                   c.ip,
                   c.https,
                   static_cast<std::uint64_t>(now_us) * 1000,
                   static_cast<std::uint64_t>(wall_us() / 1000000)};
  c.decision = c.gen->policies[static_cast<std::size_t>(c.host)]->evaluate(pr, *policy_scratch_);
  if (c.decision.respond) {
    if (c.req.body != BodyKind::kNone) c.close_after = true;
    const LocalResponse& lr = c.decision.response;
    respond(c, lr.status, lr.content_type, lr.body, lr.extra_headers);
    return;
  }
  start_proxy(c);
}

void WorkerLoop::respond(Client& c, std::uint16_t status, std::string_view content_type,
                         std::string_view body, std::string_view extra_headers) {
  SecurityHeaders sh =
      c.host >= 0 && c.gen != nullptr
          ? c.gen->pub->config->hosts[static_cast<std::size_t>(c.host)].security_headers
          : SecurityHeaders::kOff;
  c.out_len = write_local_response(c.out.get(), kOutCap, status, content_type, body, extra_headers,
                                   sh, c.close_after, c.req.minor_version == 0, c.req.is_head);
  c.out_sent = 0;
  c.status = status;
  c.state = CState::kLocal;
  c.deadline_ms = now_ms_ + cfg().send_timeout_ms;
}

bool WorkerLoop::step_local(Client& c) {
  if (c.out_sent == c.out_len) {
    finish_request(c);
    return true;
  }
  if (!c.writable) return false;
  iovec iov{c.out.get() + c.out_sent, c.out_len - c.out_sent};
  ssize_t n = client_writev(c, &iov, 1);
  if (n > 0) {
    c.out_sent += static_cast<std::size_t>(n);
    c.bytes_sent += static_cast<std::uint64_t>(n);
    return true;
  }
  if (n == -1) return false;
  close_client(c);
  return false;
}

bool WorkerLoop::step_linger(Client& c) {
  // After an error response on a connection with unread input, read and drop what the client
  // still sends so close() does not reset the connection before it read the response.
  if (!c.readable) return false;
  ssize_t n = client_read(c, c.in.get(), c.in_cap);
  if (n > 0) return true;
  if (n == -1) return false;
  close_client(c);
  return false;
}

void WorkerLoop::finish_request(Client& c) {
  if (log_) {
    LogFields f;
    f.time_us = wall_us();
    f.request_time_us = mono_us() - c.start_us;
    f.upstream_time_us = c.up_time_us;
    f.bytes_sent = c.bytes_sent;
    f.client_ip = c.ip;
    f.status = c.status;
    f.https = c.https;
    f.method = c.req.method;
    std::string_view host = c.req.host;
    std::size_t colon = host.rfind(':');
    if (colon != std::string_view::npos) host = host.substr(0, colon);
    f.host = host;
    std::string_view target = c.req.target;
    std::size_t q = target.find('?');
    f.path = target.substr(0, q);
    f.query = q == std::string_view::npos ? std::string_view() : target.substr(q + 1);
    f.user_agent = c.req.user_agent;
    f.referer = c.req.referer;
    f.rule_id = c.decision.rule_id;
    f.action = action_name(c.decision.action);
    log_->add(f, now_ms_);
  }
  if (c.gen != nullptr) {
    WorkerGen* g = c.gen;
    c.gen = nullptr;
    if (--g->inflight == 0 && g->retired) release_gen(g);
  }
  if (c.close_after) {
    bool unread_input = c.req.body != BodyKind::kNone && !c.req_body_complete;
    if (c.state == CState::kLocal && (unread_input || c.in_len > c.req.head_len || c.readable)) {
      shutdown(c.fd, SHUT_WR);
      c.state = CState::kLinger;
      c.deadline_ms = now_ms_ + kLingerMs;
      return;
    }
    close_client(c);
    return;
  }
  // Keep-alive: whatever follows the request (pipelined bytes) becomes the next request.
  std::size_t used = c.state == CState::kProxy ? c.body_scan : c.req.head_len;
  std::size_t rest = c.in_len - used;
  if (rest > 0) std::memmove(c.in.get(), c.in.get() + used, rest);
  c.in_len = rest;
  c.state = CState::kReadHead;
  c.deadline_ms =
      now_ms_ + (rest == 0 ? cfg().keepalive_timeout_ms : cfg().client_header_timeout_ms);
}

// ---- proxying ---------------------------------------------------------------------------

void WorkerLoop::start_proxy(Client& c) {
  const HostConfig& host = c.gen->pub->config->hosts[static_cast<std::size_t>(c.host)];
  c.up_head_len = write_upstream_head(c.up_head.get(), cfg().max_header_bytes + 1024,
                                      std::string_view(c.in.get(), c.req.head_len), c.req,
                                      std::string_view(c.ip_text, c.ip_len), c.https);
  c.up_head_sent = 0;
  c.body_off = c.body_scan = c.req.head_len;
  c.req_left = c.req.body == BodyKind::kLength ? c.req.content_length : 0;
  c.req_chunks.reset();
  c.req_body_complete = c.req.body == BodyKind::kNone;
  c.req_sent = false;
  c.sent_continue = false;
  c.retried = false;
  c.resp_len = c.resp_off = c.resp_scan = 0;
  c.resp_head_done = false;
  c.resp_body_complete = false;
  c.up_eof = false;
  c.out_len = c.out_sent = 0;
  c.state = CState::kProxy;
  c.deadline_ms = now_ms_ + host.connect_timeout_ms;
  auto& pool = c.gen->idle[static_cast<std::size_t>(c.host)];
  if (!pool.empty()) {
    c.up = pool.back();
    pool.pop_back();
    c.up->owner = &c;
    c.up->reused = true;
    c.up_start_us = mono_us();
    return;
  }
  connect_upstream(c);
}

bool WorkerLoop::connect_upstream(Client& c) {
  const HostConfig& host = c.gen->pub->config->hosts[static_cast<std::size_t>(c.host)];
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) {
    upstream_failed(c, 502, "socket failed");
    return false;
  }
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  int r = ::connect(fd, reinterpret_cast<const sockaddr*>(&host.upstream_addr),
                    sizeof host.upstream_addr);
  if (r != 0 && errno != EINPROGRESS) {
    ::close(fd);
    c.up = nullptr;
    upstream_failed(c, 502, "connect failed");
    return false;
  }
  UpConn* u = new_upconn();
  u->fd = fd;
  u->gen = c.gen;
  u->host = c.host;
  u->owner = &c;
  u->connected = r == 0;
  u->writable = r == 0;
  epoll_event ev{};
  ev.events = EPOLLIN | EPOLLOUT | EPOLLRDHUP | EPOLLET;
  ev.data.ptr = u;
  epoll_ctl(epfd_, EPOLL_CTL_ADD, fd, &ev);
  c.up = u;
  c.up_start_us = mono_us();
  c.deadline_ms = now_ms_ + host.connect_timeout_ms;
  return true;
}

void WorkerLoop::identify_request_body(Client& c) {
  if (c.req_body_complete) return;
  if (c.req.body == BodyKind::kLength) {
    std::uint64_t avail = c.in_len - c.body_scan;
    std::uint64_t take = avail < c.req_left ? avail : c.req_left;
    c.body_scan += static_cast<std::size_t>(take);
    c.req_left -= take;
    c.req_body_complete = c.req_left == 0;
  } else if (c.req.body == BodyKind::kChunked) {
    std::size_t n =
        c.req_chunks.feed(std::string_view(c.in.get() + c.body_scan, c.in_len - c.body_scan));
    c.body_scan += n;
    c.req_body_complete = c.req_chunks.done();
  }
}

bool WorkerLoop::pump_request(Client& c) {
  if (c.req_sent || c.up == nullptr) return false;
  UpConn& u = *c.up;
  const HostConfig& host = c.gen->pub->config->hosts[static_cast<std::size_t>(c.host)];
  if (!u.connected) {
    if (!u.writable) return false;
    int err = 0;
    socklen_t len = sizeof err;
    getsockopt(u.fd, SOL_SOCKET, SO_ERROR, &err, &len);
    if (err != 0) {
      upstream_failed(c, 502, "connect failed");
      return true;
    }
    u.connected = true;
    c.deadline_ms = now_ms_ + host.read_timeout_ms;
  }
  identify_request_body(c);
  if (c.req.body == BodyKind::kChunked && c.req_chunks.error()) {
    // The head is out already; the upstream cannot get a valid request any more.
    c.close_after = true;
    release_upconn(c, false);
    respond(c, 400, "text/plain", "bad chunked body\n", {});
    return true;
  }
  iovec iov[2];
  int cnt = 0;
  if (c.up_head_sent < c.up_head_len) {
    iov[cnt++] = {c.up_head.get() + c.up_head_sent, c.up_head_len - c.up_head_sent};
  }
  if (c.body_off < c.body_scan) iov[cnt++] = {c.in.get() + c.body_off, c.body_scan - c.body_off};
  if (cnt == 0) {
    if (c.req_body_complete) {
      c.req_sent = true;
      return true;
    }
    // Every body byte received so far is forwarded: reuse the window and read more.
    c.in_len = c.body_off = c.body_scan = c.req.head_len;
    if (c.req.expect_continue && !c.sent_continue) {
      c.sent_continue = true;
      static constexpr std::string_view kContinue = "HTTP/1.1 100 Continue\r\n\r\n";
      iovec civ{const_cast<char*>(kContinue.data()), kContinue.size()};
      if (client_writev(c, &civ, 1) != static_cast<ssize_t>(kContinue.size())) {
        close_client(c);
        return true;
      }
    }
    if (!c.readable) return false;
    ssize_t n = client_read(c, c.in.get() + c.in_len, c.in_cap - c.in_len);
    if (n > 0) {
      c.in_len += static_cast<std::size_t>(n);
      c.deadline_ms = now_ms_ + host.read_timeout_ms;
      return true;
    }
    if (n == -1) return false;
    close_client(c);  // the client went away in the middle of its body
    return true;
  }
  if (!u.writable) return false;
  ssize_t n = ::writev(u.fd, iov, cnt);
  if (n < 0) {
    if (errno == EAGAIN || errno == EINTR) {
      u.writable = false;
      return false;
    }
    upstream_failed(c, 502, "upstream write failed");
    return true;
  }
  std::size_t sent = static_cast<std::size_t>(n);
  std::size_t total = iov[0].iov_len + (cnt > 1 ? iov[1].iov_len : 0);
  if (sent < total) u.writable = false;
  std::size_t head_part = c.up_head_len - c.up_head_sent;
  if (sent <= head_part) {
    c.up_head_sent += sent;
  } else {
    c.up_head_sent = c.up_head_len;
    c.body_off += sent - head_part;
  }
  c.deadline_ms = now_ms_ + host.read_timeout_ms;
  return true;
}

void WorkerLoop::identify_response_body(Client& c) {
  if (c.resp_body_complete) return;
  switch (c.rh.body) {
    case BodyKind::kNone:
      c.resp_body_complete = true;
      break;
    case BodyKind::kLength: {
      std::uint64_t avail = c.resp_len - c.resp_scan;
      std::uint64_t take = avail < c.resp_left ? avail : c.resp_left;
      c.resp_scan += static_cast<std::size_t>(take);
      c.resp_left -= take;
      c.resp_body_complete = c.resp_left == 0;
      break;
    }
    case BodyKind::kChunked:
      c.resp_scan += c.resp_chunks.feed(
          std::string_view(c.resp.get() + c.resp_scan, c.resp_len - c.resp_scan));
      c.resp_body_complete = c.resp_chunks.done();
      break;
    case BodyKind::kUntilClose:
      c.resp_scan = c.resp_len;
      c.resp_body_complete = c.up_eof;
      break;
  }
}

bool WorkerLoop::pump_response(Client& c) {
  const HostConfig& host = c.gen->pub->config->hosts[static_cast<std::size_t>(c.host)];
  if (!c.resp_head_done) {
    if (c.up == nullptr || !c.up->connected) return false;
    if (c.resp_len > 0) {
      HeadStatus st = parse_response_head(std::string_view(c.resp.get(), c.resp_len), kRespCap,
                                          c.req.is_head, c.rh);
      if (st == HeadStatus::kComplete && c.rh.status < 200) {
        // Interim response (100 Continue...): not forwarded, the final one follows.
        std::size_t rest = c.resp_len - c.rh.head_len;
        std::memmove(c.resp.get(), c.resp.get() + c.rh.head_len, rest);
        c.resp_len = rest;
        return true;
      }
      if (st == HeadStatus::kComplete) {
        c.resp_head_done = true;
        c.up_time_us = mono_us() - c.up_start_us;
        c.status = c.rh.status;
        bool client_keep = !c.close_after && c.rh.keep_alive && c.rh.body != BodyKind::kUntilClose;
        if (!c.req_body_complete) client_keep = false;
        c.close_after = !client_keep;
        c.out_len =
            write_client_head(c.out.get(), kOutCap, std::string_view(c.resp.get(), c.rh.head_len),
                              c.rh, host.security_headers, c.close_after, c.req.minor_version == 0);
        if (c.out_len == 0) {
          upstream_failed(c, 502, "upstream response head too large");
          return true;
        }
        c.out_sent = 0;
        c.resp_off = c.resp_scan = c.rh.head_len;
        c.resp_left = c.rh.body == BodyKind::kLength ? c.rh.content_length : 0;
        c.resp_chunks.reset();
        c.resp_body_complete = false;
        return true;
      }
      if (st != HeadStatus::kIncomplete) {
        upstream_failed(c, 502, c.rh.error);
        return true;
      }
    }
  } else {
    identify_response_body(c);
    if (c.rh.body == BodyKind::kChunked && c.resp_chunks.error()) {
      close_client(c);  // the head went out already: all we can do is cut the response
      return true;
    }
    iovec iov[2];
    int cnt = 0;
    if (c.out_sent < c.out_len) iov[cnt++] = {c.out.get() + c.out_sent, c.out_len - c.out_sent};
    if (c.resp_off < c.resp_scan)
      iov[cnt++] = {c.resp.get() + c.resp_off, c.resp_scan - c.resp_off};
    if (cnt > 0) {
      if (!c.writable) return false;
      ssize_t n = client_writev(c, iov, cnt);
      if (n == -1) return false;
      if (n < 0) {
        close_client(c);
        return true;
      }
      std::size_t sent = static_cast<std::size_t>(n);
      c.bytes_sent += sent;
      std::size_t head_part = c.out_len - c.out_sent;
      if (sent <= head_part) {
        c.out_sent += sent;
      } else {
        c.out_sent = c.out_len;
        c.resp_off += sent - head_part;
      }
      c.deadline_ms = now_ms_ + cfg().send_timeout_ms;
      return true;
    }
    if (c.resp_body_complete) {
      bool reusable = c.rh.keep_alive && c.req_body_complete && c.req_sent &&
                      c.resp_scan == c.resp_len && !c.up_eof;
      if (c.up != nullptr) release_upconn(c, reusable);
      finish_request(c);
      return true;
    }
    // Everything buffered went out: start the window over and read more from upstream.
    c.resp_len = c.resp_off = c.resp_scan = 0;
  }
  if (c.up == nullptr) return false;
  UpConn& u = *c.up;
  if (!u.readable || c.resp_len == kRespCap) {
    if (c.resp_len == kRespCap && !c.resp_head_done) {
      upstream_failed(c, 502, "upstream response head too large");
      return true;
    }
    return false;
  }
  ssize_t n = ::read(u.fd, c.resp.get() + c.resp_len, kRespCap - c.resp_len);
  if (n > 0) {
    if (static_cast<std::size_t>(n) < kRespCap - c.resp_len) u.readable = false;
    c.resp_len += static_cast<std::size_t>(n);
    c.deadline_ms = now_ms_ + host.read_timeout_ms;
    return true;
  }
  if (n < 0 && (errno == EAGAIN || errno == EINTR)) {
    u.readable = false;
    return false;
  }
  // EOF or reset.
  c.up_eof = true;
  u.readable = false;
  if (!c.resp_head_done) {
    upstream_failed(c, 502, "upstream closed the connection");
    return true;
  }
  if (c.rh.body == BodyKind::kUntilClose) {
    c.resp_body_complete = true;
    return true;
  }
  close_client(c);  // truncated response: the client must see the connection end
  return true;
}

void WorkerLoop::upstream_failed(Client& c, std::uint16_t status, const char* why) {
  bool fresh_response = c.resp_len == 0 && !c.resp_head_done;
  bool reused = c.up != nullptr && c.up->reused;
  if (c.up != nullptr) release_upconn(c, false);
  // A pooled connection the upstream closed while we picked it: retry once on a new one, as
  // long as no body byte has been consumed from the client.
  if (reused && fresh_response && !c.retried && c.req.body == BodyKind::kNone && status == 502) {
    c.retried = true;
    c.up_head_sent = 0;
    c.req_sent = false;
    c.up_eof = false;
    connect_upstream(c);
    return;
  }
  if (c.resp_head_done || c.out_len > 0) {
    close_client(c);
    return;
  }
  (void)why;
  // Body bytes may sit half-forwarded in the buffer: only a bodyless request lets the
  // connection carry on (its end is then exactly head_len).
  if (c.req.body != BodyKind::kNone) c.close_after = true;
  std::string_view body = status == 504 ? "upstream timed out\n" : "bad gateway\n";
  respond(c, status, "text/plain", body, {});
}

// ---- Worker ------------------------------------------------------------------------------

Worker::Worker(int index, SharedState& shared)
    : loop_(std::make_unique<WorkerLoop>(index, shared)) {}
Worker::~Worker() {
  if (thread_.joinable()) thread_.join();
}
void Worker::start() {
  thread_ = std::thread([this] { loop_->run(); });
}
void Worker::wake() {
  loop_->wake();
}
void Worker::join() {
  if (thread_.joinable()) thread_.join();
}

}  // namespace gatebench::gateway
