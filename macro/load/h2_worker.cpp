// HTTP/2 streams (h2_worker.hpp): requests started on free stream slots and finished, sent again
// after REFUSED_STREAM or GOAWAY, nghttp2's callbacks, the frames' way to and from the socket,
// the open-loop dispatch and the loop that drives it all. Connections are set up and looked after
// in h2_connections.cpp.
#include "macro/load/h2_worker.hpp"

#include <algorithm>
#include <cstring>
#include <string_view>

#include "macro/load/socket_io.hpp"

namespace gatebench::load {

std::uint32_t H2Worker::capacity(const Connection& c) const {
  return std::min(static_cast<std::uint32_t>(options_.streams), c.server_max);
}

bool H2Worker::has_room(const Connection& c) const {
  return c.t.phase == Phase::kOpen && c.ready && !c.goaway && c.active < capacity(c) &&
         !c.free.empty();
}

void H2Worker::fail_request(std::uint32_t tmpl, bool measured, ErrorClass error,
                            std::uint64_t now) {
  in_flight_ -= 1;
  if (!measured) return;
  stats_.templates[tmpl].errors += 1;
  record_error(stats_, plan_, error, now);
}

void H2Worker::start_stream(Connection& c, std::uint64_t start, std::uint64_t now,
                            const Retry* retry) {
  const std::uint32_t slot = c.free.back();
  Stream& s = c.streams[slot];
  if (retry != nullptr) {
    s.tmpl = retry->tmpl;
    s.measured = retry->measured;
    s.start_ns = retry->start_ns;
    s.deadline_ns = retry->deadline_ns;
  } else {
    s.tmpl = static_cast<std::uint32_t>(requests_.size() == 1 ? 0 : requests_.pick(rng_.uniform()));
    s.start_ns = start;
    s.measured = start >= plan_.measure_start_ns && start < plan_.measure_end_ns;
    s.deadline_ns = now + options_.timeout_ns;
    in_flight_ += 1;
    if (s.measured) {
      schedule_.count_measured();
      stats_.issued += 1;
      if (plan_.rate > 0) stats_.send_lag.record(now - start);
    }
  }
  s.sent_ns = now;
  s.status = 0;
  s.count_slot = HeaderCounts::kAbsent;
  s.peer_reset = false;
  s.body_off = 0;
  const auto& nva = h2_requests_.headers(s.tmpl);
  nghttp2_data_provider body{};
  body.source.ptr = &s;
  body.read_callback = &read_body;
  const bool has_body = !h2_requests_.body(s.tmpl).empty();
  const std::int32_t id = nghttp2_submit_request(c.session.get(), nullptr, nva.data(), nva.size(),
                                                 has_body ? &body : nullptr, &s);
  if (id < 0) {
    // Stream IDs used up (2^30 requests on one connection) or a session in shutdown: the
    // connection takes no more streams; the request goes out on another one.
    c.goaway = true;
    retries_.push_back(Retry{s.tmpl, s.measured, s.start_ns, s.deadline_ns});
    return;
  }
  c.free.pop_back();
  s.id = id;
  c.active += 1;
  if (s.measured) c.measured_active += 1;
  stats_.h2.streams += 1;
  stats_.h2.max_concurrent = std::max(stats_.h2.max_concurrent, c.active);
}

void H2Worker::release(Connection& c, Stream& s) {
  s.id = 0;
  c.active -= 1;
  if (s.measured) c.measured_active -= 1;
  c.free.push_back(static_cast<std::uint32_t>(&s - c.streams.data()));
}

void H2Worker::finish_stream(Connection& c, Stream& s, std::uint32_t error_code) {
  const std::uint64_t now = monotonic_ns();
  const Stream done = s;
  release(c, s);
  if (error_code == NGHTTP2_REFUSED_STREAM) {
    // Not processed (RFC 9113, section 8.7): safe to send again.
    stats_.h2.retried += 1;
    retries_.push_back(Retry{done.tmpl, done.measured, done.start_ns, done.deadline_ns});
    return;
  }
  if (error_code != NGHTTP2_NO_ERROR || done.status == 0) {
    fail_request(done.tmpl, done.measured,
                 done.peer_reset ? ErrorClass::kStream : ErrorClass::kProtocol, now);
    return;
  }
  in_flight_ -= 1;
  schedule_.on_response(now);
  if (done.measured) {
    record_response(stats_, plan_, requests_, done.tmpl, done.status, done.start_ns, done.sent_ns,
                    now);
    if (!options_.count_header.empty()) stats_.header_counts.count(done.count_slot);
    progress_.store(stats_.responses, std::memory_order_relaxed);
  }
}

int H2Worker::on_header(nghttp2_session* session, const nghttp2_frame* frame,
                        const std::uint8_t* name, std::size_t namelen, const std::uint8_t* value,
                        std::size_t valuelen, std::uint8_t, void* user_data) {
  auto* c = static_cast<Connection*>(user_data);
  if (c->closing || frame->hd.type != NGHTTP2_HEADERS) return 0;
  const std::string_view field(reinterpret_cast<const char*>(name), namelen);
  const std::string& counted = c->owner->options_.count_header;
  const bool is_status = field == ":status";
  if (!is_status && (counted.empty() || field != counted)) return 0;
  auto* s =
      static_cast<Stream*>(nghttp2_session_get_stream_user_data(session, frame->hd.stream_id));
  if (s == nullptr || s->id != frame->hd.stream_id) return 0;
  if (!is_status) {
    // Names arrive in lower case (nghttp2 refuses others), as count_header is kept.
    s->count_slot = c->owner->stats_.header_counts.slot(
        trim_value(std::string_view(reinterpret_cast<const char*>(value), valuelen)));
    return 0;
  }
  // Every head starts with :status: what an interim 1xx head carried does not count.
  s->count_slot = HeaderCounts::kAbsent;
  // nghttp2's HTTP messaging checks have already refused a :status that is not three digits.
  int code = 0;
  for (std::size_t i = 0; i < valuelen; ++i) code = code * 10 + (value[i] - '0');
  if (code >= 200 && code < kStatusSlots) s->status = code;  // 1xx: the final one follows
  return 0;
}

int H2Worker::on_frame_recv(nghttp2_session* session, const nghttp2_frame* frame, void* user_data) {
  auto* c = static_cast<Connection*>(user_data);
  if (c->closing) return 0;
  H2Stats& h2 = c->owner->stats_.h2;
  switch (frame->hd.type) {
    case NGHTTP2_SETTINGS:
      if (frame->hd.flags & NGHTTP2_FLAG_ACK) break;
      for (std::size_t i = 0; i < frame->settings.niv; ++i) {
        if (frame->settings.iv[i].settings_id != NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS) continue;
        c->server_max = frame->settings.iv[i].value;
        if (h2.server_max_streams == 0 || c->server_max < h2.server_max_streams)
          h2.server_max_streams = c->server_max;
      }
      c->ready = true;
      break;
    case NGHTTP2_RST_STREAM: {
      h2.rst_stream[h2_error_slot(frame->rst_stream.error_code)] += 1;
      auto* s =
          static_cast<Stream*>(nghttp2_session_get_stream_user_data(session, frame->hd.stream_id));
      if (s != nullptr && s->id == frame->hd.stream_id) s->peer_reset = true;
      break;
    }
    case NGHTTP2_GOAWAY:
      h2.goaway[h2_error_slot(frame->goaway.error_code)] += 1;
      c->goaway = true;
      break;
    default:
      break;
  }
  return 0;
}

int H2Worker::on_frame_not_send(nghttp2_session*, const nghttp2_frame* frame, int,
                                void* user_data) {
  // A request whose HEADERS could not go out (the server's GOAWAY came first): no stream was
  // opened, so there is no close callback; the request is sent again elsewhere.
  auto* c = static_cast<Connection*>(user_data);
  if (c->closing || frame->hd.type != NGHTTP2_HEADERS) return 0;
  for (Stream& s : c->streams) {
    if (s.id == frame->hd.stream_id) {
      c->owner->finish_stream(*c, s, NGHTTP2_REFUSED_STREAM);
      break;
    }
  }
  return 0;
}

int H2Worker::on_stream_close(nghttp2_session* session, std::int32_t stream_id,
                              std::uint32_t error_code, void* user_data) {
  auto* c = static_cast<Connection*>(user_data);
  if (c->closing) return 0;
  auto* s = static_cast<Stream*>(nghttp2_session_get_stream_user_data(session, stream_id));
  if (s == nullptr || s->id != stream_id) return 0;
  c->owner->finish_stream(*c, *s, error_code);
  return 0;
}

ssize_t H2Worker::read_body(nghttp2_session*, std::int32_t, std::uint8_t* buf, std::size_t length,
                            std::uint32_t* data_flags, nghttp2_data_source* source,
                            void* user_data) {
  auto* c = static_cast<Connection*>(user_data);
  auto* s = static_cast<Stream*>(source->ptr);
  const std::string& body = c->owner->h2_requests_.body(s->tmpl);
  const std::size_t n = std::min(length, body.size() - s->body_off);
  std::memcpy(buf, body.data() + s->body_off, n);
  s->body_off += n;
  if (s->body_off == body.size()) *data_flags |= NGHTTP2_DATA_FLAG_EOF;
  return static_cast<ssize_t>(n);
}

bool H2Worker::flush(Connection& c) {
  for (;;) {
    // Gather frames until the buffer is full or nghttp2 has nothing more.
    while (c.out_len < kOutBytes) {
      if (c.spill_len == 0) {
        const std::uint8_t* data = nullptr;
        const ssize_t n = nghttp2_session_mem_send(c.session.get(), &data);
        if (n < 0) {
          fail_connection(c, ErrorClass::kProtocol, false);
          return false;
        }
        if (n == 0) break;
        c.spill = data;
        c.spill_len = static_cast<std::size_t>(n);
      }
      const std::size_t take = std::min(c.spill_len, kOutBytes - c.out_len);
      std::memcpy(c.out.get() + c.out_len, c.spill, take);
      c.out_len += take;
      c.spill += take;
      c.spill_len -= take;
    }
    if (c.out_off == c.out_len) break;
    const IoResult r =
        write_some(c.t.fd, c.t.ssl.get(), c.out.get() + c.out_off, c.out_len - c.out_off);
    if (r.status == IoStatus::kWouldBlock || r.status == IoStatus::kWantOther) {
      // Reads go on while the socket is full: the server's frames still have to be taken.
      connector_.watch(c.t, EPOLLIN | EPOLLOUT);
      return true;
    }
    if (r.status != IoStatus::kDone) {
      fail_connection(c, r.status == IoStatus::kTlsFailed ? ErrorClass::kTls : ErrorClass::kWrite,
                      false);
      return false;
    }
    if (c.measured_active > 0) stats_.bytes_written += r.bytes;
    c.out_off += r.bytes;
    if (c.out_off == c.out_len) c.out_off = c.out_len = 0;
  }
  connector_.watch(c.t, EPOLLIN);
  return true;
}

void H2Worker::on_readable(Connection& c) {
  const std::uint32_t generation = c.t.generation;
  for (;;) {
    const IoResult r = read_some(c.t.fd, c.t.ssl.get(), c.in.get(), kInBytes);
    switch (r.status) {
      case IoStatus::kDone:
      case IoStatus::kEof:
        break;
      case IoStatus::kWouldBlock:
        return;
      case IoStatus::kWantOther:
        connector_.watch(c.t, EPOLLIN | EPOLLOUT);
        return;
      default:
        fail_connection(c, r.status == IoStatus::kTlsFailed ? ErrorClass::kTls : ErrorClass::kRead,
                        false);
        return;
    }
    const std::size_t n = r.bytes;
    if (r.status == IoStatus::kEof) {
      // The server closed. With nothing in flight (an idle connection, or one it retired by
      // GOAWAY) that is not an error: a new connection takes over.
      if (c.active == 0) {
        close_socket(c, false);
        reopen(c, monotonic_ns());
      } else {
        fail_connection(c, ErrorClass::kRead, false);
      }
      return;
    }
    if (c.fresh) {
      c.fresh = false;
      if (!c.t.ssl &&
          std::string_view(reinterpret_cast<const char*>(c.in.get()), n).starts_with("HTTP/1.")) {
        not_h2(c,
               "the server answered the HTTP/2 connection preface in HTTP/1.1: no h2c with "
               "prior knowledge on this port");
        return;
      }
    }
    if (c.measured_active > 0) stats_.bytes_read += n;
    const ssize_t used = nghttp2_session_mem_recv(c.session.get(), c.in.get(), n);
    if (used < 0) {
      fail_connection(c, ErrorClass::kProtocol, false);
      return;
    }
    if (c.t.generation != generation) return;
    // Plain sockets: a short read means the socket is drained; TLS may hold decrypted bytes.
    if (!c.t.ssl && n < kInBytes) return;
  }
}

void H2Worker::refill(Connection& c, std::uint64_t now) {
  while (has_room(c)) {
    if (!retries_.empty()) {
      const Retry r = retries_.back();
      retries_.pop_back();
      start_stream(c, r.start_ns, now, &r);
    } else if (plan_.rate == 0 && schedule_.can_issue(now)) {
      start_stream(c, now, now, nullptr);
    } else {
      break;
    }
  }
  if (plan_.rate > 0 && has_room(c)) make_available(c);
}

void H2Worker::service(Connection& c, std::uint64_t now) {
  if (c.t.phase != Phase::kOpen) return;
  if (c.ready && !c.goaway) refill(c, now);
  if (plan_.rate > 0) dispatch_due(now);
  if (c.t.phase != Phase::kOpen) return;
  if (!flush(c)) return;
  // Retired by the server (GOAWAY) and nothing left in flight, or a session that is over.
  const bool done = (c.goaway && c.active == 0) || (!nghttp2_session_want_read(c.session.get()) &&
                                                    !nghttp2_session_want_write(c.session.get()));
  if (done) {
    close_socket(c, true);
    reopen(c, now);
  }
}

void H2Worker::make_available(Connection& c) {
  if (c.available) return;
  c.available = true;
  available_.push_back(static_cast<std::uint32_t>(&c - conns_.data()));
}

H2Worker::Connection* H2Worker::pick_available() {
  while (!available_.empty()) {
    Connection& c = conns_[available_.back()];
    if (has_room(c)) return &c;
    c.available = false;
    available_.pop_back();
  }
  return nullptr;
}

void H2Worker::dispatch_due(std::uint64_t now) {
  std::uint32_t touched_gen = 0;
  Connection* touched = nullptr;
  std::uint64_t when = 0;
  while (!schedule_.stopping() || !retries_.empty()) {
    Connection* c = pick_available();
    if (c == nullptr) break;
    if (!retries_.empty()) {
      const Retry r = retries_.back();
      retries_.pop_back();
      start_stream(*c, r.start_ns, now, &r);
    } else {
      if (!schedule_.due(now, when)) break;
      schedule_.take();
      start_stream(*c, when, now, nullptr);
    }
    // Frames of a connection go out together: a connection is flushed when the loop moves on.
    if (touched != nullptr && touched != c && touched->t.generation == touched_gen &&
        touched->t.phase == Phase::kOpen)
      flush(*touched);
    touched = c;
    touched_gen = c->t.generation;
  }
  if (touched != nullptr && touched->t.generation == touched_gen &&
      touched->t.phase == Phase::kOpen)
    flush(*touched);
}

void H2Worker::handle_event(const epoll_event& ev) {
  const std::uint32_t generation = event_generation(ev.data.u64);
  Connection& c = conns_[event_index(ev.data.u64)];
  if (c.t.generation != generation || c.t.fd < 0) return;
  switch (c.t.phase) {
    case Phase::kConnecting:
      on_connected(c, monotonic_ns());
      break;
    case Phase::kHandshaking:
      continue_handshake(c);
      break;
    case Phase::kOpen:
      if (ev.events & (EPOLLIN | EPOLLERR | EPOLLHUP)) on_readable(c);
      if (c.t.generation != generation || c.t.phase != Phase::kOpen) break;
      service(c, monotonic_ns());
      break;
    default:
      break;
  }
}

void H2Worker::run() {
  ran_batch_ = apply_thread_policy(plan_);
  sleep_until(plan_.start_ns);
  std::uint64_t now = monotonic_ns();
  // Every connection opens at once; requests go out when the server's SETTINGS arrive.
  for (Connection& c : conns_) {
    close_socket(c, false);  // initialises the stream slots
    open_socket(c, now);
  }
  schedule_.start(now);
  for (;;) {
    now = monotonic_ns();
    if (schedule_.open_loop() && !schedule_.stopping()) dispatch_due(now);
    if (!schedule_.keep_running(now, in_flight_)) break;
    if (schedule_.sweep_due(now)) sweep(now);
    const int n = connector_.wait(schedule_.wait_for(now, !available_.empty()));
    for (int i = 0; i < n; ++i) handle_event(connector_.event(i));
  }
  // Whatever is still outstanding ran out of time.
  now = monotonic_ns();
  schedule_.stop();
  for (Connection& c : conns_) {
    for (Stream& s : c.streams)
      if (s.id != 0) fail_request(s.tmpl, s.measured, ErrorClass::kTimeout, now);
    close_socket(c, false);
  }
  for (const Retry& r : retries_) fail_request(r.tmpl, r.measured, ErrorClass::kTimeout, now);
  retries_.clear();
  stats_.missed = schedule_.missed(stats_.issued);
}

}  // namespace gatebench::load
