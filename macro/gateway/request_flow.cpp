// A request's way through the worker apart from proxying: the TLS handshake, reading and parsing
// the head, routing and policy, local responses, the access-log record, and what follows the
// request on the connection (keep-alive, pipelined bytes, lingering close).
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <memory>

#include "macro/gateway/clock.hpp"
#include "macro/gateway/decision.hpp"
#include "macro/gateway/http1_flow.hpp"
#include "macro/gateway/response_writer.hpp"
#include "macro/gateway/tls_context.hpp"
#include "micro/core/access_log/write.hpp"
#include "micro/core/rules/body_fields.hpp"
#include "micro/core/rules/normalize.hpp"
#include "micro/core/rules/request_ascii.hpp"

namespace gatebench::gateway {
namespace {

constexpr std::uint32_t kLingerMs = 2000;
constexpr std::string_view kH2Preface = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";

bool same_host(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (rules::lower_ascii(a[i]) != rules::lower_ascii(b[i])) return false;
  }
  return true;
}

}  // namespace

bool Http1Flow::step_handshake(Client& c) {
  switch (client_handshake(c.conn.io)) {
    case HandshakeStatus::kDone:
      // With read-ahead the handshake's last read can take the first request's records too, and
      // the edge that announced them may have been spent by an earlier step (readable false):
      // bytes OpenSSL holds are readable, or the request would wait for an event that never comes.
      if (SSL_has_pending(c.conn.io.ssl)) c.conn.io.readable = true;
      if (negotiated_h2(c.conn.io.ssl)) {
        loop_.start_h2(c);
      } else {
        c.conn.state = CState::kReadHead;
      }
      return true;
    case HandshakeStatus::kWouldBlock:
      return false;
    case HandshakeStatus::kFailed:
      break;
  }
  loop_.close_client(c);
  return false;
}

bool Http1Flow::step_read_head(Client& c) {
  ClientConn& cc = c.conn;
  char* in = c.buffers.in.get();
  // h2c with prior knowledge: the preface, once whole, turns the connection into HTTP/2; a
  // prefix of it is not handed to the HTTP/1 parser (it would answer its first line).
  bool preface_prefix = false;
  if (cc.h2c && cc.in_len > 0) {
    const std::size_t n = std::min(cc.in_len, kH2Preface.size());
    if (std::string_view(in, n) == kH2Preface.substr(0, n)) {
      if (n == kH2Preface.size()) {
        loop_.start_h2(c);
        return true;
      }
      preface_prefix = true;
    }
  }
  if (cc.in_len > 0 && !preface_prefix) {
    HeadStatus st =
        parse_request_head(std::string_view(in, cc.in_len), cfg().max_header_bytes, c.req());
    if (st == HeadStatus::kComplete) {
      begin_request(c);
      return true;
    }
    if (st != HeadStatus::kIncomplete) {
      refuse_head(c, c.req().error_status, c.req().error);
      return true;
    }
  }
  if (!cc.io.readable) return false;
  if (!c.buffers.in) {
    // An idle connection holds no buffers: its next bytes, or the end of a client that
    // leaves, are read into the worker's scratch, and a set is taken only when bytes came (so
    // thousands of clients closing at once do not each take one to read their EOF).
    const std::size_t room = cfg().max_header_bytes + kBodyWindow;  // a new set's window
    IoResult r = read_client(c, io_scratch_.get(), std::min(room, kIoScratchCap));
    if (r.status == IoStatus::kOk) {
      parts_.take_request(c);
      std::memcpy(c.buffers.in.get(), io_scratch_.get(), r.bytes);
      cc.deadline_ms = now_ms_ + cfg().client_header_timeout_ms;
      cc.in_len = r.bytes;
      return true;
    }
    if (r.status == IoStatus::kWouldBlock) return false;
    loop_.close_client(c);  // EOF or error between requests
    return false;
  }
  if (cc.in_len == c.buffers.in_cap) return false;  // unreachable: parse reports kTooLarge first
  IoResult r = read_client(c, in + cc.in_len, c.buffers.in_cap - cc.in_len);
  if (r.status == IoStatus::kOk) {
    if (cc.in_len == 0) cc.deadline_ms = now_ms_ + cfg().client_header_timeout_ms;
    cc.in_len += r.bytes;
    return true;
  }
  if (r.status == IoStatus::kWouldBlock) {
    if (cc.in_len == 0 && cc.parent == nullptr) parts_.give_request(c);
    return false;
  }
  loop_.close_client(c);  // EOF or error between requests
  return false;
}

void Http1Flow::begin_stream(Client& c, const H2Stream& s) {
  ClientConn& cc = c.conn;
  if (s.req_end && !s.too_large && s.head.size() <= kHeadOnlyCap) {
    parts_.take_head_only(c);  // no body will come (END_STREAM): no body window
  } else {
    parts_.take_request(c);
  }
  if (s.too_large || s.head.size() > c.buffers.in_cap) {
    refuse_head(c, 431, "request header list too large\n");
  } else {
    std::memcpy(c.buffers.in.get(), s.head.data(), s.head.size());
    cc.in_len = s.head.size();
    cc.state = CState::kReadHead;
    cc.deadline_ms = now_ms_ + cfg().client_header_timeout_ms;
  }
}

void Http1Flow::refuse_head(Client& c, std::uint16_t status, std::string_view why) {
  ClientConn& cc = c.conn;
  c.log = {};
  c.log.start_us = mono_us();
  cc.host = -1;
  cc.close_after = true;
  c.req().method = {};
  c.req().target = {};
  c.req().host = {};
  c.req().user_agent = {};
  c.req().referer = {};
  c.req().body = BodyKind::kNone;
  c.req().is_head = false;
  c.req().head_len = static_cast<std::uint32_t>(cc.in_len);
  respond(c, status, "text/plain", why, {});
}

void Http1Flow::begin_request(Client& c) {
  if (study_.on()) study_.run(c);
  ClientConn& cc = c.conn;
  std::int64_t now_us = mono_us();
  c.log = {};
  c.log.start_us = now_us;
  // Set here, not when proxying starts, so a local answer also knows the body is still unread.
  c.px = {};
  c.px.req_body.start(c.req().body, c.req().content_length, c.req().head_len);
  cc.close_after = cc.close_after || !c.req().keep_alive;
  // The request keeps its generation (config strings, pools) until it is logged.
  cc.gen = gen_;
  ++gen_->inflight;
  const Config& config = *cc.gen->pub->config;
  if (cc.decision) {
    cc.host = -1;
    begin_decision(c);
    return;
  }
  cc.host = find_host(config, c.req().host);
  if (cc.host < 0) {
    // Nothing to route to: the body (if any) is not read, so the connection cannot continue.
    if (c.req().body != BodyKind::kNone) cc.close_after = true;
    respond(c, config.unknown_host_status, "text/plain", "unknown host\n", {});
    return;
  }
  const HostConfig& host = host_of(c);
  if (c.req().body != BodyKind::kNone && host.inspects_bodies()) {
    if (c.req().body == BodyKind::kLength && c.req().content_length > host.body_limit &&
        host.body_overflow == BodyOverflow::kReject) {
      cc.close_after = true;
      respond(c, 413, "text/plain", "request body larger than the host's body_limit\n", {});
      return;
    }
    // The rules see the body: it is read (up to the limit) before they run.
    grow_in(c, c.req().head_len + host.body_limit);
    cc.state = CState::kReadBody;
    cc.deadline_ms = now_ms_ + config.client_body_timeout_ms;
    c.px.body_deadline_ms = cc.deadline_ms;  // the part streamed after inspection included
    return;
  }
  route_request(c);
}

void Http1Flow::begin_decision(Client& c) {
  const LocalResponse answer = decision_.begin(c, *policy_scratch_);
  if (answer.status != 0) {
    respond(c, answer);
    return;
  }
  // The JSON form: its body is read first (step_read_body).
  grow_in(c, c.req().head_len + kDecisionMaxBody);
  c.conn.state = CState::kReadBody;
  c.conn.deadline_ms = now_ms_ + cfg().client_body_timeout_ms;
}

// Room for the head and `want` bytes in all; the head is parsed again, since its views point
// into the buffer. Kept until the connection object is reused (new_client sizes it again).
void Http1Flow::grow_in(Client& c, std::size_t want) {
  ClientBuffers& b = c.buffers;
  if (b.in_cap >= want) return;
  auto bigger = std::make_unique<char[]>(want);
  std::memcpy(bigger.get(), b.in.get(), c.conn.in_len);
  b.in = std::move(bigger);
  b.in_cap = want;
  parse_request_head(std::string_view(b.in.get(), c.conn.in_len), cfg().max_header_bytes, c.req());
}

bool Http1Flow::step_read_body(Client& c) {
  ClientConn& cc = c.conn;
  BodyCursor& body = c.px.req_body;
  char* in = c.buffers.in.get();
  body.identify(in, cc.in_len, false);
  if (body.framing_error()) {
    cc.close_after = true;
    respond(c, 400, "text/plain", "bad chunked body\n", {});
    return true;
  }
  if (cc.decision) {
    // begin_decision admitted only a Content-Length body that fits the buffer.
    if (body.complete) {
      respond(c, decision_.decide(c, true, *policy_scratch_));
      return true;
    }
  } else if (body.complete || body.scan - c.req().head_len >= host_of(c).body_limit ||
             cc.in_len == c.buffers.in_cap) {
    route_request(c);
    return true;
  }
  if (!send_continue(c)) return true;
  if (!cc.io.readable) return false;
  IoResult r = read_client(c, in + cc.in_len, c.buffers.in_cap - cc.in_len);
  if (r.status == IoStatus::kOk) {
    cc.in_len += r.bytes;  // the deadline stays: it bounds the whole body
    return true;
  }
  if (r.status == IoStatus::kWouldBlock) return false;
  loop_.close_client(c);  // the client went away in the middle of its body
  return false;
}

void Http1Flow::route_request(Client& c) {
  ClientConn& cc = c.conn;
  const HostConfig& host = host_of(c);
  // An absolute-form target ("GET http://host/path") goes on as origin-form, so path rules and
  // the upstream see the same path; naming a host other than Host's would route around them.
  if (!c.req().target.empty() && c.req().target.front() != '/' && c.req().target != "*") {
    std::string_view authority;
    std::string_view origin = rules::origin_form(c.req().target, authority);
    if (origin.data() != c.req().target.data()) {
      if (!same_host(authority, c.req().host)) {
        cc.close_after = true;
        respond(c, 400, "text/plain", "absolute-form target names another host than Host\n", {});
        return;
      }
      if (origin.empty() || origin.front() == '?') {
        // The byte before is the authority's last (or the '/' of "://"): it becomes the path.
        char* slash = const_cast<char*>(origin.data()) - 1;
        *slash = '/';
        origin = std::string_view(slash, origin.size() + 1);
      }
      c.req().target = origin;
    }
  }
  std::string_view body;
  bool body_complete = true;
  if (cc.state == CState::kReadBody) {
    const BodyCursor& cursor = c.px.req_body;
    body = std::string_view(c.buffers.in.get() + c.req().head_len, cursor.scan - c.req().head_len);
    body_complete = cursor.complete;
    if (body.size() > host.body_limit) {
      body = body.substr(0, host.body_limit);
      body_complete = false;
    }
    if (!body_complete && host.body_overflow == BodyOverflow::kReject) {
      cc.close_after = true;
      respond(c, 413, "text/plain", "request body larger than the host's body_limit\n", {});
      return;
    }
    if (c.req().body == BodyKind::kChunked) {
      if (chunk_scratch_.size() < body.size()) chunk_scratch_.resize(body.size());
      body = rules::chunked_data(body, chunk_scratch_.data());
    }
  }
  // The rules run now: at the request's start, unless its body was read first.
  const std::int64_t now_us = cc.state == CState::kReadBody ? mono_us() : c.log.start_us;
  PolicyRequest pr{c.req(),
                   std::string_view(c.buffers.in.get(), c.req().head_len),
                   cc.ip,
                   cc.https,
                   static_cast<std::uint64_t>(now_us) * 1000,
                   static_cast<std::uint64_t>(wall_us() / 1000000),
                   body,
                   body_complete};
  c.log.decision =
      cc.gen->policies[static_cast<std::size_t>(cc.host)]->evaluate(pr, *policy_scratch_);
  if (c.log.decision.respond) {
    if (c.req().body != BodyKind::kNone) cc.close_after = true;
    const LocalResponse& lr = c.log.decision.response;
    respond(c, lr.status, lr.content_type, lr.body, lr.extra_headers);
    return;
  }
  // After the policy: a blocked or limited request is never answered from the cache.
  if (answer_from_cache(c)) return;
  start_proxy(c);
}

void Http1Flow::respond(Client& c, std::uint16_t status, std::string_view content_type,
                        std::string_view body, std::string_view extra_headers) {
  ClientConn& cc = c.conn;
  parts_.take_response(c);
  SecurityHeaders sh =
      cc.host >= 0 && cc.gen != nullptr ? host_of(c).security_headers : SecurityHeaders::kOff;
  cc.out_len =
      write_local_response(c.buffers.out.get(), kOutCap, status, content_type, body, extra_headers,
                           sh, cc.close_after, c.req().minor_version == 0, c.req().is_head);
  cc.out_sent = 0;
  cc.out_body = {};
  cc.out_body_borrowed = false;
  c.log.status = status;
  cc.state = CState::kLocal;
  cc.deadline_ms = now_ms_ + cfg().send_timeout_ms;
}

bool Http1Flow::answer_from_cache(Client& c) {
  if (!CacheFlow::caches(c)) return false;
  const CacheAnswer a = cache_.lookup(c, now_ms_);
  if (a.status != CacheStatus::kNone) serve_entry(c, a);
  return a.status != CacheStatus::kNone || a.waiting;
}

bool Http1Flow::serve_stale(Client& c) {
  const CacheAnswer a = cache_.stale(c);
  if (a.status == CacheStatus::kNone) return false;
  serve_entry(c, a);
  return true;
}

bool Http1Flow::resume_after_lookup(Client& c) {
  if (c.conn.dead || c.conn.state != CState::kCacheWait) return false;
  const CacheAnswer a = cache_.lookup_done(c);
  if (a.status != CacheStatus::kNone) {
    serve_entry(c, a);
  } else {
    start_proxy(c);
  }
  return true;
}

// A stored response: its head rewritten for the client, its body sent after it from the entry.
void Http1Flow::serve_entry(Client& c, const CacheAnswer& a) {
  ClientConn& cc = c.conn;
  EntryView e;
  if (!split_entry(a.entry, e)) {
    respond(c, 500, "text/plain", "bad cache entry\n", {});
    return;
  }
  parts_.take_response(c);
  cc.out_len = write_hit_head(c.buffers.out.get(), kOutCap, e.head, a.age_s, a.status,
                              cc.close_after, c.req().minor_version == 0);
  if (cc.out_len == 0) {
    respond(c, 500, "text/plain", "cache entry head too large\n", {});
    return;
  }
  cc.out_sent = 0;
  cc.out_body = e.body;
  cc.out_body_borrowed = a.borrowed && !e.body.empty();
  c.px.cache = a.status;
  c.log.status = e.status;
  cc.state = CState::kLocal;
  cc.deadline_ms = now_ms_ + cfg().send_timeout_ms;
}

bool Http1Flow::step_local(Client& c) {
  ClientConn& cc = c.conn;
  const std::size_t total = cc.out_len + cc.out_body.size();
  if (cc.out_sent == total) {
    finish_request(c);
    return true;
  }
  if (!cc.io.writable) {
    CacheFlow::unborrow_body(c);
    return false;
  }
  iovec iov[2];
  int cnt = 0;
  if (cc.out_sent < cc.out_len) {
    iov[cnt++] = {c.buffers.out.get() + cc.out_sent, cc.out_len - cc.out_sent};
  }
  const std::size_t body_sent = cc.out_sent > cc.out_len ? cc.out_sent - cc.out_len : 0;
  if (body_sent < cc.out_body.size()) {
    iov[cnt++] = {const_cast<char*>(cc.out_body.data()) + body_sent,
                  cc.out_body.size() - body_sent};
  }
  IoResult r = write_client(c, iov, cnt);
  if (r.status == IoStatus::kOk && r.bytes > 0) {
    cc.out_sent += r.bytes;
    c.log.bytes_sent += r.bytes;
    return true;
  }
  if (r.status == IoStatus::kWouldBlock) {
    CacheFlow::unborrow_body(c);
    return false;
  }
  loop_.close_client(c);
  return false;
}

// The request is logged and its response handed over: the H2Front sends the rest.
void Http1Flow::end_stream(Client& c) {
  if (H2Stream* s = c.conn.stream) {
    c.conn.parent->buffers.h2->end_response(*s);
    s->user = nullptr;
    c.conn.stream = nullptr;
  }
  loop_.close_client(c);
}

bool Http1Flow::step_linger(Client& c) {
  // After an error response on a connection with unread input, read and drop what the client
  // still sends so close() does not reset the connection before it read the response.
  if (!c.conn.io.readable) return false;
  IoResult r = read_client(c, c.buffers.in.get(), c.buffers.in_cap);
  if (r.status == IoStatus::kOk) return true;
  if (r.status == IoStatus::kWouldBlock) return false;
  loop_.close_client(c);
  return false;
}

void Http1Flow::log_request(const Client& c) {
  access_log::AccessLogRecord r;
  r.time_us = wall_us();
  r.request_time_us = mono_us() - c.log.start_us;
  r.upstream_time_us = c.log.up_time_us;
  r.bytes_sent = c.log.bytes_sent;
  r.client_ip = c.conn.ip;
  r.status = c.log.status;
  r.method = access_log::method_for_log(c.req().method);
  r.scheme = c.conn.https ? access_log::Scheme::https : access_log::Scheme::http;
  r.action = c.log.decision.action;
  std::string_view host = c.req().host;
  std::size_t colon = host.rfind(':');
  if (colon != std::string_view::npos) host = host.substr(0, colon);
  r.host = host;
  std::string_view target = c.req().target;
  std::size_t q = target.find('?');
  r.path = target.substr(0, q);
  r.query = q == std::string_view::npos ? std::string_view() : target.substr(q + 1);
  r.user_agent = c.req().user_agent;
  r.referer = c.req().referer;
  r.rule_id = c.log.decision.rule_id;
  log_->add(r, c.req().method, now_ms_);
}

void Http1Flow::finish_request(Client& c) {
  ClientConn& cc = c.conn;
  if (log_) log_request(c);
  loop_.end_generation_use(c);
  parts_.give_exchange(c);  // what follows on the connection is a new request
  cc.out_body = {};
  cc.out_body_borrowed = false;
  if (cc.parent != nullptr) {
    end_stream(c);  // one request per stream
    return;
  }
  if (cc.close_after) {
    bool unread_input = c.req().body != BodyKind::kNone && !c.px.req_body.complete;
    if (cc.state == CState::kLocal &&
        (unread_input || cc.in_len > c.req().head_len || cc.io.readable)) {
      shutdown(cc.io.fd, SHUT_WR);
      cc.state = CState::kLinger;
      cc.deadline_ms = now_ms_ + kLingerMs;
      return;
    }
    loop_.close_client(c);
    return;
  }
  // Keep-alive: whatever follows the request (pipelined bytes) becomes the next request.
  std::size_t used =
      cc.state == CState::kProxy ? c.px.req_body.scan : c.req().head_len + c.log.local_body;
  std::size_t rest = cc.in_len - used;
  char* in = c.buffers.in.get();
  if (rest > 0) std::memmove(in, in + used, rest);
  cc.in_len = rest;
  // Idle until the next request's first bytes: the request part goes back to the pool.
  if (rest == 0) parts_.give_request(c);
  cc.state = CState::kReadHead;
  cc.deadline_ms =
      now_ms_ + (rest == 0 ? cfg().keepalive_timeout_ms : cfg().client_header_timeout_ms);
}

}  // namespace gatebench::gateway
