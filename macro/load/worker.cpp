// The HTTP/1.1 exchange (worker.hpp): a request written, its response read and parsed, the next
// one started or scheduled, over the ring or epoll; and the loop that drives it. Connections are
// set up and looked after in worker_connections.cpp.
#include "macro/load/worker.hpp"

#include <poll.h>
#include <sys/epoll.h>
#include <time.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "macro/load/socket_io.hpp"

namespace gatebench::load {
namespace {

// Ring completions: the operation in the top two bits, then 30 bits of the socket's generation
// (enough to tell a previous socket of the slot apart), then the connection index.
enum RingOp : std::uint64_t { kOpEpoll = 1, kOpRecv = 2, kOpSend = 3 };
constexpr std::uint32_t kRingGenMask = (1u << 30) - 1;

std::uint64_t ring_key(RingOp op, std::uint32_t index, std::uint32_t generation) {
  return (static_cast<std::uint64_t>(op) << 62) |
         (static_cast<std::uint64_t>(generation & kRingGenMask) << 32) | index;
}

RingOp ring_op(std::uint64_t key) {
  return static_cast<RingOp>(key >> 62);
}
std::uint32_t ring_index(std::uint64_t key) {
  return static_cast<std::uint32_t>(key & 0xffffffffu);
}
std::uint32_t ring_generation(std::uint64_t key) {
  return static_cast<std::uint32_t>(key >> 32) & kRingGenMask;
}

}  // namespace

void Worker::close_socket(Connection& c, bool clean) {
  // Ring operations hold the socket open past close(); shutting it down ends them now.
  connector_.close(c.t, clean, c.on_ring);
  c.on_ring = false;
  c.recv_armed = false;
  c.send_armed = false;
  c.buf_len = 0;
}

void Worker::begin_request(Connection& c, std::uint64_t start, std::uint64_t now) {
  c.tmpl = static_cast<std::uint32_t>(requests_.size() == 1 ? 0 : requests_.pick(rng_.uniform()));
  c.start_ns = start;
  c.sent_ns = now;
  c.measured = start >= plan_.measure_start_ns && start < plan_.measure_end_ns;
  c.has_request = true;
  c.write_off = 0;
  c.t.deadline_ns = now + options_.timeout_ns;
  c.parser.reset(requests_.templates()[c.tmpl].head);
  in_flight_ += 1;
  if (c.measured) {
    schedule_.count_measured();
    stats_.issued += 1;
    if (plan_.rate > 0) stats_.send_lag.record(now - start);
  }
  // Connecting or handshaking: the request goes out when the connection is ready.
  if (c.t.phase == Phase::kClosed)
    open_socket(c, now);
  else if (c.t.phase == Phase::kOpen && c.exchange == Exchange::kIdle)
    do_write(c);
}

void Worker::do_write(Connection& c) {
  const std::string& wire = requests_.templates()[c.tmpl].wire;
  c.exchange = Exchange::kWriting;
  if (c.on_ring) {
    if (c.send_armed) return;
    if (!ring_->send(c.t.fd, wire.data() + c.write_off, wire.size() - c.write_off,
                     ring_key(kOpSend, c.t.index, c.t.generation))) {
      fail(c, ErrorClass::kWrite, false);
      return;
    }
    c.send_armed = true;
    c.ring_ops += 1;
    return;
  }
  while (c.write_off < wire.size()) {
    const IoResult r =
        write_some(c.t.fd, c.t.ssl.get(), wire.data() + c.write_off, wire.size() - c.write_off);
    switch (r.status) {
      case IoStatus::kDone:
        break;
      case IoStatus::kWouldBlock:
        connector_.watch(c.t, EPOLLOUT);
        return;
      case IoStatus::kWantOther:
        connector_.watch(c.t, EPOLLIN);
        return;
      default:
        fail(c, r.status == IoStatus::kTlsFailed ? ErrorClass::kTls : ErrorClass::kWrite, false);
        return;
    }
    c.write_off += r.bytes;
    if (c.measured) stats_.bytes_written += r.bytes;
  }
  c.exchange = Exchange::kReading;
  connector_.watch(c.t, EPOLLIN);
}

void Worker::on_readable(Connection& c) {
  for (;;) {
    const std::size_t space = kBufferBytes - c.buf_len;
    const IoResult r = read_some(c.t.fd, c.t.ssl.get(), c.buf.get() + c.buf_len, space);
    switch (r.status) {
      case IoStatus::kDone:
        break;
      case IoStatus::kWouldBlock:
        return;
      case IoStatus::kWantOther:
        connector_.watch(c.t, EPOLLIN | EPOLLOUT);
        return;
      case IoStatus::kEof:
        end_of_stream(c);
        return;
      default:
        fail(c, r.status == IoStatus::kTlsFailed ? ErrorClass::kTls : ErrorClass::kRead, false);
        return;
    }
    if (c.measured) stats_.bytes_read += r.bytes;
    c.buf_len += r.bytes;
    if (!process_input(c)) return;
    // Plain sockets: a short read means the socket is drained; TLS may hold decrypted bytes.
    if (!c.t.ssl && r.bytes < space) return;
  }
}

void Worker::end_of_stream(Connection& c) {
  if (c.parser.finish_eof() == ParseStatus::kComplete) {
    complete_request(c);  // a close-delimited body: keep_alive() is false, so it reconnects
  } else {
    fail(c, c.parser.started() ? ErrorClass::kProtocol : ErrorClass::kRead, false);
  }
}

bool Worker::process_input(Connection& c) {
  const ParseResult r = c.parser.feed(std::string_view(c.buf.get(), c.buf_len));
  if (r.consumed > 0) {
    c.buf_len -= r.consumed;
    if (c.buf_len > 0) std::memmove(c.buf.get(), c.buf.get() + r.consumed, c.buf_len);
  }
  switch (r.status) {
    case ParseStatus::kNeedMore:
      return true;
    case ParseStatus::kComplete:
      if (c.buf_len > 0) {
        // Bytes beyond the response we asked for: the server is not speaking HTTP/1.1 to us.
        fail(c, ErrorClass::kProtocol, false);
        return false;
      }
      complete_request(c);
      return false;
    case ParseStatus::kError:
      fail(c, ErrorClass::kProtocol, false);
      return false;
  }
  return false;
}

void Worker::complete_request(Connection& c) {
  const std::uint64_t now = monotonic_ns();
  c.has_request = false;
  in_flight_ -= 1;
  if (c.measured) {
    record_response(stats_, plan_, requests_, c.tmpl, c.parser.status_code(), c.start_ns, c.sent_ns,
                    now);
    if (!options_.count_header.empty()) stats_.header_counts.count(c.parser.count_slot());
    progress_.store(stats_.responses, std::memory_order_relaxed);
  }
  // A response that came before the whole request went out (a send is still queued): the
  // connection cannot carry the next request.
  if (c.t.fd >= 0 && c.parser.keep_alive() && !options_.close && !c.send_armed) {
    c.exchange = Exchange::kIdle;
  } else {
    close_socket(c, true);
  }
  schedule_.on_response(now);
  after_request(c, now);
}

void Worker::fail(Connection& c, ErrorClass error, bool backoff) {
  const std::uint64_t now = monotonic_ns();
  if (c.has_request) {
    c.has_request = false;
    in_flight_ -= 1;
    if (c.measured) {
      stats_.templates[c.tmpl].errors += 1;
      count_error(error, now);
    }
  } else {
    count_error(error, now);
  }
  close_socket(c, false);
  if (backoff) {
    Connector::back_off(c.t, now);
    return;
  }
  after_request(c, now);
}

void Worker::after_request(Connection& c, std::uint64_t now) {
  if (plan_.rate > 0) {
    make_available(c);
    dispatch_due(now);
  } else if (schedule_.can_issue(now)) {
    begin_request(c, now, now);
  }
}

void Worker::make_available(Connection& c) {
  if (c.available) return;
  c.available = true;
  available_.push_back(static_cast<std::uint32_t>(&c - conns_.data()));
}

void Worker::dispatch_due(std::uint64_t now) {
  std::uint64_t when = 0;
  while (!available_.empty() && schedule_.due(now, when)) {
    Connection& c = conns_[available_.back()];
    available_.pop_back();
    c.available = false;
    // Backing off after a failed connect: the sweep offers it again when the pause is over.
    if (c.t.phase == Phase::kBackoff) continue;
    schedule_.take();
    begin_request(c, when, now);
  }
}

void Worker::arm_recv(Connection& c) {
  if (c.recv_armed || c.t.fd < 0) return;
  const std::size_t space = kBufferBytes - c.buf_len;
  // The parser consumes what it can, so the buffer is never full while it waits for more.
  if (space == 0 || !ring_->recv(c.t.fd, c.buf.get() + c.buf_len, space,
                                 ring_key(kOpRecv, c.t.index, c.t.generation))) {
    fail(c, c.has_request ? ErrorClass::kProtocol : ErrorClass::kRead, false);
    return;
  }
  c.recv_armed = true;
  c.ring_ops += 1;
}

void Worker::arm_epoll_watch() {
  // Connects, TLS and idle epoll connections report through the epoll descriptor, which the
  // ring watches, so one wait covers both.
  ring_->poll_multishot(connector_.epoll_fd(), POLLIN, ring_key(kOpEpoll, 0, 0));
}

void Worker::on_ring_completion(std::uint64_t key, int res, bool more) {
  const RingOp op = ring_op(key);
  if (op == kOpEpoll) {
    const int n = connector_.poll();
    for (int i = 0; i < n; ++i) handle_event(connector_.event(i).data.u64);
    if (!more) arm_epoll_watch();
    return;
  }
  Connection& c = conns_[ring_index(key)];
  c.ring_ops -= 1;
  if (ring_generation(key) != (c.t.generation & kRingGenMask) || !c.on_ring) {
    // An operation of a socket already closed.
    if (c.ring_ops == 0 && c.t.phase == Phase::kDraining) {
      c.t.phase = Phase::kClosed;
      if (c.has_request || !schedule_.stopping()) open_socket(c, monotonic_ns());
    }
    return;
  }
  if (op == kOpSend)
    on_ring_send(c, res);
  else
    on_ring_recv(c, res);
}

void Worker::on_ring_send(Connection& c, int res) {
  c.send_armed = false;
  if (res < 0) {
    if (res == -EINTR || res == -EAGAIN) {
      do_write(c);
      return;
    }
    fail(c, ErrorClass::kWrite, false);
    return;
  }
  c.write_off += static_cast<std::size_t>(res);
  if (c.measured) stats_.bytes_written += static_cast<std::uint64_t>(res);
  if (c.write_off < requests_.templates()[c.tmpl].wire.size()) {
    do_write(c);
  } else if (c.exchange == Exchange::kWriting) {
    c.exchange = Exchange::kReading;
  }
}

void Worker::on_ring_recv(Connection& c, int res) {
  c.recv_armed = false;
  if (res == -EINTR || res == -EAGAIN) {
    arm_recv(c);
    return;
  }
  if (!c.has_request) {
    close_idle(c, res > 0);
    return;
  }
  if (res < 0) {
    fail(c, ErrorClass::kRead, false);
    return;
  }
  if (res == 0) {
    end_of_stream(c);
    return;
  }
  if (c.measured) stats_.bytes_read += static_cast<std::uint64_t>(res);
  c.buf_len += static_cast<std::size_t>(res);
  const std::uint32_t generation = c.t.generation;
  process_input(c);
  // Still the same socket (the response may have completed and the next request started on
  // it): keep a receive armed.
  if (c.t.generation == generation && c.on_ring) arm_recv(c);
}

void Worker::poll_once(const timespec& timeout) {
  if (ring_) {
    ring_->wait(timeout, [this](std::uint64_t key, int res, bool more) {
      on_ring_completion(key, res, more);
    });
    return;
  }
  const int n = connector_.wait(timeout);
  for (int i = 0; i < n; ++i) handle_event(connector_.event(i).data.u64);
}

void Worker::handle_event(std::uint64_t data) {
  Connection& c = conns_[event_index(data)];
  if (c.t.generation != event_generation(data) || c.t.fd < 0) return;
  switch (c.t.phase) {
    case Phase::kConnecting:
      on_connected(c, monotonic_ns());
      return;
    case Phase::kHandshaking:
      continue_handshake(c);
      return;
    case Phase::kOpen:
      break;
    default:
      return;
  }
  switch (c.exchange) {
    case Exchange::kWriting:
      do_write(c);
      break;
    case Exchange::kReading:
      if (c.t.events & EPOLLOUT) connector_.watch(c.t, EPOLLIN);
      on_readable(c);
      break;
    case Exchange::kIdle:
      on_idle_event(c);
      break;
  }
}

void Worker::run() {
  ran_batch_ = apply_thread_policy(plan_);
  if (ring_) {
    ring_->start();
    arm_epoll_watch();
  }
  sleep_until(plan_.start_ns);
  std::uint64_t now = monotonic_ns();
  if (plan_.rate > 0) {
    // Connections are opened ahead of the schedule so that the first intended sends find them.
    for (Connection& c : conns_) {
      make_available(c);
      open_socket(c, now);
    }
  } else {
    for (Connection& c : conns_) {
      if (!schedule_.can_issue(now)) break;
      begin_request(c, now, now);
    }
  }
  schedule_.start(now);
  for (;;) {
    now = monotonic_ns();
    // Slots that fell due before the end still go out if a connection is free, even when the
    // loop wakes after the end.
    if (schedule_.open_loop() && !schedule_.stopping()) dispatch_due(now);
    if (!schedule_.keep_running(now, in_flight_)) break;
    if (schedule_.sweep_due(now)) sweep(now);
    poll_once(schedule_.wait_for(now, !available_.empty()));
  }
  // Whatever is still outstanding ran out of time.
  now = monotonic_ns();
  for (Connection& c : conns_) {
    if (c.has_request) {
      fail(c, overdue_error(c.t.phase), true);
    }
    close_socket(c, false);
  }
  if (ring_) drain_ring(monotonic_ns() + 1'000'000'000);
  stats_.missed = schedule_.missed(stats_.issued);
}

}  // namespace gatebench::load
