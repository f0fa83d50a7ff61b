// A client connection's state in the worker loop, in parts with one lifetime each: what lives as
// long as the connection (reset with `= {}` when a recycled object takes a new connection), what
// lives for one request's log record, and what lives for one proxied exchange. The buffers and
// the parsers' results live in pooled parts the connection holds only while it needs them
// (RequestBuffers, ResponseBuffers, the upstream head); each parse overwrites the heads.
#pragma once

#include <arpa/inet.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

#include "macro/gateway/body_cursor.hpp"
#include "macro/gateway/client_io.hpp"
#include "macro/gateway/event_tag.hpp"
#include "macro/gateway/h2_front.hpp"
#include "macro/gateway/http_head.hpp"
#include "macro/gateway/policy.hpp"
#include "macro/gateway/redis_store.hpp"
#include "macro/gateway/response_cache.hpp"
#include "macro/gateway/upstream_pool.hpp"

namespace gatebench::gateway {

struct Listener : Pollable {
  int fd = -1;
  bool https = false;
  bool decision = false;  // a decision listener (decision.hpp): nothing is proxied
  bool http2 = false;     // h2 by ALPN (https) or by prior knowledge (http)
  bool paused = false;    // out of epoll after EMFILE/ENFILE until the worker's resume time
};

// kCacheWait: a Redis cache lookup is in flight (redis_store.hpp). kH2: an HTTP/2 connection,
// whose requests run as stream clients of their own (h2_flow.cpp).
enum class CState : std::uint8_t {
  kHandshake,
  kReadHead,
  kReadBody,
  kCacheWait,
  kLocal,
  kProxy,
  kLinger,
  kH2
};

struct Client;

// A request's buffers come in three parts, each taken from its worker pool when first needed and
// given back as soon as it is not, so memory follows what requests are doing, not how many are
// open: an HTTP/2 stream waiting for its upstream holds only its request part (640 streams in
// flight held 640 whole sets, about 20 KiB of touched pages each, before the split). The pools
// are free lists (spare_pool.hpp), so a request allocates nothing in steady state. Sizes come
// from max_header_bytes, which only a restart changes. The byte windows are not zeroed (every byte
// is written before it is read): pages nobody writes stay out of memory.
//
// The request part, held from the first bytes of a request until it is done and nothing follows
// (idle between keep-alive requests, or closed): the head stays at the front of `in` for the
// whole request (views in the parsed head point into it, up to its access-log record); body bytes
// cycle through the window behind it. `in` may have grown for an inspected body (grow_in) and
// keeps its size. The parsed head is allocated first, so the head's bytes usually share its page.
struct RequestBuffers {
  std::unique_ptr<RequestHead> req;
  std::unique_ptr<char[]> in;
  std::size_t in_cap = 0;
};

// The response part, held from the first upstream bytes or a local answer until the request
// ends (an HTTP/2 connection holds one only for frames its socket did not take yet): the
// upstream's response window, its parsed head, and a response head or a whole local response for
// the client.
struct ResponseBuffers {
  std::unique_ptr<ResponseHead> rh;
  std::unique_ptr<char[]> resp;
  std::unique_ptr<char[]> out;
};

// A connection's buffers: the pooled parts while it holds them, and what the response cache and
// HTTP/2 keep on the connection itself.
struct ClientBuffers : RequestBuffers, ResponseBuffers {
  // The head rewritten for the upstream (max_header_bytes + 1 KiB), the third pooled part: held
  // only until it is sent (and written again for a retry on a new connection).
  std::unique_ptr<char[]> up_head;
  // Response cache: a hit's body once it cannot go out at once (the store's view is only valid
  // until the worker's next insert), and a response being stored with its freshness.
  std::vector<char> hit_body;
  std::vector<char> redis_value;  // a Redis reply's entry (the reply is freed after its callback)
  CaptureBuffer capture;
  std::unique_ptr<CacheCandidate> candidate;
  std::unique_ptr<H2Front> h2;  // an HTTP/2 connection's session (h2_front.hpp)
};

struct ClientConn {
  ClientIo io;
  bool https = false;
  bool dead = false;
  bool close_after = false;  // no further request on this connection
  bool decision = false;     // accepted on a decision listener
  bool h2c = false;          // a plain listener that takes the HTTP/2 preface (prior knowledge)
  bool driving = false;      // inside drive(): a stream's progress does not drive it again
  // An HTTP/2 connection in the loop's flush list (WorkerLoop::flush_connections).
  bool flush_queued = false;
  // A stream client: one HTTP/2 stream's request on the connection `parent`; its reads and
  // writes go through the parent's H2Front instead of a socket (io.fd is -1).
  H2Stream* stream = nullptr;
  Client* parent = nullptr;
  CState state = CState::kReadHead;
  std::uint32_t ip = 0;
  char ip_text[INET_ADDRSTRLEN] = {};
  std::uint8_t ip_len = 0;
  std::size_t in_len = 0;  // bytes in buffers.in
  std::uint64_t deadline_ms = 0;
  // What the current request runs on: its generation (config strings, pools) until logged.
  WorkerGen* gen = nullptr;
  int host = -1;
  // Bytes of buffers.out for the client, and how many went out.
  std::size_t out_len = 0;
  std::size_t out_sent = 0;
  // A body sent after buffers.out (a cache hit); out_sent counts over both. Borrowed: a view
  // into the cache store, copied to buffers.hit_body before the worker waits for the socket.
  std::string_view out_body;
  bool out_body_borrowed = false;
};

// What the access-log record of the current request needs.
struct RequestLog {
  std::int64_t start_us = 0;
  std::int64_t up_start_us = 0;
  std::int64_t up_time_us = -1;
  std::uint64_t bytes_sent = 0;
  std::uint16_t status = 0;
  Decision decision;
  // Body bytes a local answer consumed (a decision's JSON): skipped before the next request.
  std::uint32_t local_body = 0;
};

// One request's exchange with the upstream: the request going out, the response coming back
// (reset when a request begins; only a proxied request moves past req_body's start).
struct ProxyExchange {
  UpConn* up = nullptr;
  std::size_t up_head_len = 0;
  std::size_t up_head_sent = 0;
  BodyCursor req_body;  // over buffers.in
  bool req_sent = false;
  bool sent_continue = false;
  bool retried = false;
  // The whole request body is due by then (0: no body). Reads do not move it, so a body that
  // trickles in cannot hold the client and the upstream connection for ever.
  std::uint64_t body_deadline_ms = 0;
  std::size_t resp_len = 0;  // bytes in buffers.resp
  BodyCursor resp_body;      // over buffers.resp, once the head is parsed
  bool resp_head_done = false;
  bool up_eof = false;
  CacheStatus cache = CacheStatus::kNone;  // X-Cache-Status of this request
  bool capture = false;                    // the response is copied for the cache
  std::size_t cap_scan = 0;                // response window bytes before this are copied
  RedisLookup* redis_lookup = nullptr;     // while in kCacheWait
  RedisResult redis_result = RedisResult::kNone;
  std::size_t redis_value_len = 0;  // bytes of buffers.redis_value for kValue
};

struct Client : Pollable {
  std::size_t live_index = 0;
  ClientConn conn;
  RequestLog log;
  ProxyExchange px;
  std::size_t store_index = 0;  // in the worker's client_store_ (objects are freed when spare)
  ClientBuffers buffers;
  // The current request's parsed heads, in the request and response parts (valid while held).
  RequestHead& req() { return *buffers.req; }
  const RequestHead& req() const { return *buffers.req; }
  ResponseHead& rh() { return *buffers.rh; }
  const ResponseHead& rh() const { return *buffers.rh; }
};

// The configuration of the host the current request of `c` was routed to (c.conn.host >= 0).
inline const HostConfig& host_of(const Client& c) {
  return c.conn.gen->pub->config->hosts[static_cast<std::size_t>(c.conn.host)];
}

}  // namespace gatebench::gateway
