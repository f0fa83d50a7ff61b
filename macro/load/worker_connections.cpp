// The HTTP/1.1 worker's connections (worker.hpp): its construction, each connection's set-up
// through the shared lifecycle (connection.hpp) up to the first request, an idle connection that
// the server closed, the sweep of deadlines and back-offs, and the ring's drain at the end. The
// exchange of requests and responses is in worker.cpp.
#include <openssl/err.h>
#include <sys/epoll.h>
#include <unistd.h>

#include <cerrno>
#include <stdexcept>
#include <string>

#include "macro/load/worker.hpp"

namespace gatebench::load {
namespace {

// A send and a receive per connection, and the epoll watch (the kernel rounds up to a power of
// two and clamps to its largest ring).
unsigned ring_entries(std::size_t connections) {
  return static_cast<unsigned>(2 * connections + 16);
}

}  // namespace

Worker::Worker(const Options& options, const Target& target, const RequestSet& requests,
               const WorkerPlan& plan, const std::atomic<bool>& stop)
    : options_(options),
      target_(target),
      requests_(requests),
      plan_(plan),
      schedule_(plan_, options.timeout_ns, stop),
      rng_(worker_rng(plan)),
      connector_(options, target, plan_, stats_, static_cast<std::size_t>(plan.connections), false),
      conns_(static_cast<std::size_t>(plan.connections)) {
  for (Connection& c : conns_) {
    c.t.index = static_cast<std::uint32_t>(&c - conns_.data());
    c.buf = std::make_unique<char[]>(kBufferBytes);
    if (!options_.count_header.empty())
      c.parser.count_field(options_.count_header, &stats_.header_counts);
  }
  if (!target_.tls && options_.io != "epoll") {
    ring_ = std::make_unique<Uring>(ring_entries(conns_.size()));
    if (!ring_->ok()) {
      ring_.reset();
      if (options_.io == "uring")
        throw std::runtime_error(
            "--io uring: the kernel refused io_uring (use --io auto or epoll)");
    }
  }
  stats_.templates.resize(requests_.size());
  if (plan_.rate > 0) available_.reserve(conns_.size());
}

Worker::~Worker() {
  for (Connection& c : conns_) close_socket(c, false);
  if (ring_) drain_ring(monotonic_ns() + 1'000'000'000);
}

void Worker::open_socket(Connection& c, std::uint64_t now) {
  if (c.ring_ops > 0) {
    // The old socket's receive may still land in c.buf: reopen when its completion is in.
    c.t.phase = Phase::kDraining;
    return;
  }
  if (!connector_.open(c.t)) {
    fail(c, ErrorClass::kConnect, true);
    return;
  }
  if (!c.has_request) c.t.deadline_ns = now + options_.timeout_ns;
}

void Worker::on_connected(Connection& c, std::uint64_t now) {
  const SetUp step = connector_.connected(c.t, now);
  if (step == SetUp::kOpen && ring_) {
    connector_.unwatch(c.t);
    c.on_ring = true;
    // A receive stays armed while the socket is open: it takes the response, and on an idle
    // connection it notices the server closing, as EPOLLIN does on the epoll path.
    arm_recv(c);
  }
  after_set_up(c, step);
}

void Worker::continue_handshake(Connection& c) {
  after_set_up(c, connector_.handshake(c.t));
}

void Worker::after_set_up(Connection& c, SetUp step) {
  switch (step) {
    case SetUp::kOpen:
      on_ready(c);
      break;
    case SetUp::kWaiting:
      break;
    case SetUp::kConnectFailed:
      fail(c, ErrorClass::kConnect, true);
      break;
    default:
      fail(c, ErrorClass::kTls, true);
      break;
  }
}

void Worker::on_ready(Connection& c) {
  if (c.has_request) {
    do_write(c);
  } else {
    c.exchange = Exchange::kIdle;
    if (!c.on_ring) connector_.watch(c.t, EPOLLIN);
  }
}

void Worker::sweep(std::uint64_t now) {
  for (Connection& c : conns_) {
    if (c.t.phase == Phase::kBackoff) {
      if (now >= c.t.retry_ns) {
        c.t.phase = Phase::kClosed;
        after_request(c, now);
      }
      continue;
    }
    if (now < c.t.deadline_ns) continue;
    if (c.has_request || c.t.phase == Phase::kConnecting || c.t.phase == Phase::kHandshaking) {
      const ErrorClass e = overdue_error(c.t.phase);
      fail(c, e, e != ErrorClass::kTimeout);
    }
  }
}

void Worker::on_idle_event(Connection& c) {
  // No request is outstanding: the server closed (or reset) an idle keep-alive connection, or
  // sent bytes nobody asked for.
  char probe[256];
  ssize_t n;
  SSL* ssl = c.t.ssl.get();
  if (ssl)
    n = SSL_read(ssl, probe, sizeof probe);
  else
    n = read(c.t.fd, probe, sizeof probe);
  if (ssl) ERR_clear_error();
  if (n < 0 && !ssl && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
  if (n < 0 && ssl && SSL_get_error(ssl, static_cast<int>(n)) == SSL_ERROR_WANT_READ) return;
  close_idle(c, n > 0);
}

void Worker::close_idle(Connection& c, bool garbage) {
  close_socket(c, false);
  const std::uint64_t now = monotonic_ns();
  if (garbage) count_error(ErrorClass::kProtocol, now);
  if (plan_.rate == 0 && schedule_.can_issue(now)) begin_request(c, now, now);
}

void Worker::drain_ring(std::uint64_t until_ns) {
  // Every socket is closed, so what comes in is stale and only counts down; nothing reopens.
  schedule_.stop();
  auto pending = [this] {
    for (const Connection& c : conns_) {
      if (c.ring_ops > 0) return true;
    }
    return false;
  };
  while (pending() && monotonic_ns() < until_ns) {
    poll_once(timespec{0, 10'000'000});
  }
}

}  // namespace gatebench::load
