// The HTTP/2 worker's connections (h2_worker.hpp): its construction and nghttp2's counting
// allocator, each connection's set-up through the shared lifecycle (connection.hpp), ALPN and the
// session's start, a connection's failure and close, and the sweep of deadlines and back-offs.
// The streams and the frames' way to and from the socket are in h2_worker.cpp.
#include <cstdlib>
#include <iterator>
#include <stdexcept>
#include <string>

#include "macro/load/h2_worker.hpp"

namespace gatebench::load {
namespace {

// Windows large enough that flow control never paces a benchmark response (h2load's default
// window is 2^30 - 1 too).
constexpr std::int32_t kWindow = (1 << 30) - 1;

}  // namespace

H2Worker::H2Worker(const Options& options, const Target& target, const RequestSet& requests,
                   const H2Requests& h2_requests, const WorkerPlan& plan,
                   const std::atomic<bool>& stop)
    : options_(options),
      requests_(requests),
      h2_requests_(h2_requests),
      plan_(plan),
      schedule_(plan_, options.timeout_ns, stop),
      rng_(worker_rng(plan)),
      connector_(options, target, plan_, stats_, static_cast<std::size_t>(plan.connections), true),
      conns_(static_cast<std::size_t>(plan.connections)) {
  mem_ = nghttp2_mem{this, &mem_malloc, &mem_free, &mem_calloc, &mem_realloc};
  nghttp2_session_callbacks* cbs = nullptr;
  if (nghttp2_session_callbacks_new(&cbs) != 0)
    throw std::runtime_error("nghttp2_session_callbacks_new failed");
  callbacks_.reset(cbs);
  nghttp2_session_callbacks_set_on_header_callback(cbs, &on_header);
  nghttp2_session_callbacks_set_on_frame_recv_callback(cbs, &on_frame_recv);
  nghttp2_session_callbacks_set_on_frame_not_send_callback(cbs, &on_frame_not_send);
  nghttp2_session_callbacks_set_on_stream_close_callback(cbs, &on_stream_close);
  const auto streams = static_cast<std::size_t>(options_.streams);
  for (Connection& c : conns_) {
    c.owner = this;
    c.t.index = static_cast<std::uint32_t>(&c - conns_.data());
    c.streams.resize(streams);
    c.free.reserve(streams);
    c.in = std::make_unique<std::uint8_t[]>(kInBytes);
    c.out = std::make_unique<std::uint8_t[]>(kOutBytes);
  }
  retries_.reserve(conns_.size() * streams);
  stats_.templates.resize(requests_.size());
  if (plan_.rate > 0) available_.reserve(conns_.size());
}

H2Worker::~H2Worker() {
  for (Connection& c : conns_) close_socket(c, false);
}

// Counting allocator: what libnghttp2 allocates per request is reported (h2.nghttp2_allocations).
void* H2Worker::mem_malloc(std::size_t size, void* user) {
  static_cast<H2Worker*>(user)->stats_.h2.nghttp2_allocations += 1;
  return std::malloc(size);
}

void H2Worker::mem_free(void* ptr, void*) {
  std::free(ptr);
}

void* H2Worker::mem_calloc(std::size_t n, std::size_t size, void* user) {
  static_cast<H2Worker*>(user)->stats_.h2.nghttp2_allocations += 1;
  return std::calloc(n, size);
}

void* H2Worker::mem_realloc(void* ptr, std::size_t size, void* user) {
  static_cast<H2Worker*>(user)->stats_.h2.nghttp2_allocations += 1;
  return std::realloc(ptr, size);
}

void H2Worker::close_socket(Connection& c, bool clean) {
  c.closing = true;
  c.session.reset();
  c.closing = false;
  connector_.close(c.t, clean);
  c.ready = false;
  c.goaway = false;
  c.fresh = true;
  c.active = 0;
  c.measured_active = 0;
  c.server_max = 0xffffffffu;
  c.out_off = c.out_len = 0;
  c.spill = nullptr;
  c.spill_len = 0;
  c.free.clear();
  for (std::uint32_t i = static_cast<std::uint32_t>(c.streams.size()); i-- > 0;) {
    c.streams[i].id = 0;
    c.free.push_back(i);
  }
}

void H2Worker::fail_connection(Connection& c, ErrorClass error, bool backoff) {
  const std::uint64_t now = monotonic_ns();
  if (c.active == 0) {
    record_error(stats_, plan_, error, now);
  } else {
    for (Stream& s : c.streams)
      if (s.id != 0) fail_request(s.tmpl, s.measured, error, now);
  }
  close_socket(c, false);
  if (backoff && !fatal_) {
    Connector::back_off(c.t, now);
    return;
  }
  reopen(c, now);
}

void H2Worker::not_h2(Connection& c, const std::string& why) {
  if (stats_.h2.not_h2.empty()) stats_.h2.not_h2 = why;
  fatal_ = true;
  schedule_.stop();
  const ErrorClass error = c.t.ssl ? ErrorClass::kTls : ErrorClass::kProtocol;
  fail_connection(c, error, false);
  // Every connection would meet the same server: the run ends here.
  for (Connection& other : conns_) {
    if (other.t.phase != Phase::kClosed && other.t.phase != Phase::kBackoff)
      fail_connection(other, error, false);
    other.t.phase = Phase::kClosed;
  }
  const std::uint64_t now = monotonic_ns();
  for (const Retry& r : retries_) fail_request(r.tmpl, r.measured, error, now);
  retries_.clear();
}

void H2Worker::reopen(Connection& c, std::uint64_t now) {
  if (fatal_ || (schedule_.stopping() && retries_.empty())) return;
  open_socket(c, now);
}

void H2Worker::open_socket(Connection& c, std::uint64_t now) {
  if (!connector_.open(c.t)) {
    fail_connection(c, ErrorClass::kConnect, true);
    return;
  }
  c.t.deadline_ns = now + options_.timeout_ns;
}

void H2Worker::on_connected(Connection& c, std::uint64_t now) {
  after_set_up(c, connector_.connected(c.t, now));
}

void H2Worker::continue_handshake(Connection& c) {
  after_set_up(c, connector_.handshake(c.t));
}

void H2Worker::after_set_up(Connection& c, SetUp step) {
  switch (step) {
    case SetUp::kOpen:
      break;
    case SetUp::kWaiting:
      return;
    case SetUp::kConnectFailed:
      fail_connection(c, ErrorClass::kConnect, true);
      return;
    case SetUp::kNoApplicationProtocol:
      // The usual answer of a server without HTTP/2 on this port (nginx, for one).
      not_h2(c,
             "the server refused ALPN h2 (alert no_application_protocol): no HTTP/2 on this "
             "port");
      return;
    case SetUp::kTlsFailed:
      fail_connection(c, ErrorClass::kTls, true);
      return;
  }
  if (!c.t.ssl) {
    start_session(c);
    return;
  }
  std::string selected;
  if (!TlsClient::alpn_is_h2(c.t.ssl.get(), selected)) {
    not_h2(c, "the server did not select h2 by ALPN (selected: " + selected + ")");
    return;
  }
  start_session(c);
  // Records that came with the last handshake read (read-ahead) are already in OpenSSL's
  // buffer, where no epoll event will announce them.
  const std::uint32_t generation = c.t.generation;
  if (c.t.phase == Phase::kOpen && SSL_has_pending(c.t.ssl.get())) {
    on_readable(c);
    if (c.t.generation == generation && c.t.phase == Phase::kOpen) service(c, monotonic_ns());
  }
}

void H2Worker::start_session(Connection& c) {
  nghttp2_session* session = nullptr;
  if (nghttp2_session_client_new3(&session, callbacks_.get(), &c, nullptr, &mem_) != 0) {
    fail_connection(c, ErrorClass::kProtocol, true);
    return;
  }
  c.session.reset(session);
  // No server push; stream and connection windows that never pace a response.
  const nghttp2_settings_entry settings[] = {{NGHTTP2_SETTINGS_ENABLE_PUSH, 0},
                                             {NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE, kWindow}};
  nghttp2_submit_settings(session, NGHTTP2_FLAG_NONE, settings, std::size(settings));
  nghttp2_session_set_local_window_size(session, NGHTTP2_FLAG_NONE, 0, kWindow);
  // Until the server's SETTINGS arrive (its first frame) no request goes out, so that its
  // stream limit is known before the first one.
  c.t.deadline_ns = monotonic_ns() + options_.timeout_ns;
  connector_.watch(c.t, EPOLLIN);
  flush(c);
}

void H2Worker::sweep(std::uint64_t now) {
  for (Connection& c : conns_) {
    switch (c.t.phase) {
      case Phase::kBackoff:
        if (now >= c.t.retry_ns) {
          c.t.phase = Phase::kClosed;
          reopen(c, now);
        }
        break;
      case Phase::kConnecting:
      case Phase::kHandshaking:
        if (now >= c.t.deadline_ns) fail_connection(c, overdue_error(c.t.phase), true);
        break;
      case Phase::kOpen: {
        if (!c.ready) {
          if (now >= c.t.deadline_ns) fail_connection(c, ErrorClass::kTimeout, true);
          break;
        }
        bool cancelled = false;
        for (Stream& s : c.streams) {
          if (s.id == 0 || now < s.deadline_ns) continue;
          // The stream is given up, not the connection: the server may still serve the others.
          nghttp2_submit_rst_stream(c.session.get(), NGHTTP2_FLAG_NONE, s.id, NGHTTP2_CANCEL);
          // Its frames and close may still come; they no longer find this slot.
          nghttp2_session_set_stream_user_data(c.session.get(), s.id, nullptr);
          const Stream done = s;
          release(c, s);
          fail_request(done.tmpl, done.measured, ErrorClass::kTimeout, now);
          cancelled = true;
        }
        if (cancelled) service(c, now);
        break;
      }
      case Phase::kClosed:
      case Phase::kDraining:
        break;
    }
  }
  // Requests waiting to be sent again time out like any other.
  for (std::size_t i = 0; i < retries_.size();) {
    if (now < retries_[i].deadline_ns) {
      ++i;
      continue;
    }
    fail_request(retries_[i].tmpl, retries_[i].measured, ErrorClass::kTimeout, now);
    retries_[i] = retries_.back();
    retries_.pop_back();
  }
}

}  // namespace gatebench::load
