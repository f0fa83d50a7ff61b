// The HTTP/1.1 request machine, which HTTP/2 streams run too (h2_flow.hpp): a request's way from
// the TLS handshake and its head through routing, policy, the cache and local answers
// (request_flow.cpp) or the upstream exchange (proxy.cpp) to its access-log record and what
// follows on the connection. The part owns what only the machine uses: the policy scratch (lent
// to DecisionFlow), the de-chunked body, the decision listeners' flow and the study-only work,
// the I/O scratch it lends to H2Flow, and the access-log sink the loop ticks. What it shares
// with the loop (the request-set pools, the cache, the upstream connections, the clock, the
// current generation) it gets by reference at construction; what only the loop may do (close a
// client, end a generation's use, turn a connection into HTTP/2) it asks through LoopCalls.
#pragma once

#include <sys/uio.h>

#include <cstdint>
#include <memory>
#include <span>
#include <string_view>
#include <vector>

#include "macro/gateway/access_log_sink.hpp"
#include "macro/gateway/cache_flow.hpp"
#include "macro/gateway/client_io.hpp"
#include "macro/gateway/connection.hpp"
#include "macro/gateway/decision_flow.hpp"
#include "macro/gateway/h2_flow.hpp"
#include "macro/gateway/request_parts.hpp"
#include "macro/gateway/study_work.hpp"
#include "macro/gateway/upstream_pool.hpp"

namespace gatebench::gateway {

class WorkerLoop;

// The machine's calls back into the worker's loop, which owns the client objects, the
// configuration generations and the connections' protocols. Plain calls defined in worker.cpp
// beside what they call: no virtual call and no std::function on the request path, one direct
// call each as when the machine was the loop's own members.
class LoopCalls {
 public:
  explicit LoopCalls(WorkerLoop& loop) : loop_(loop) {}
  // The connection (or stream) of `c` ends; its object waits for the loop's reap.
  void close_client(Client& c);
  // The request of `c` is logged: its generation may be released.
  void end_generation_use(Client& c);
  // The connection of `c` speaks HTTP/2 (ALPN h2, or the h2c preface read).
  void start_h2(Client& c);

 private:
  WorkerLoop& loop_;
};

class Http1Flow {
 public:
  static constexpr std::size_t kIoScratchCap = kOutCap + kRespCap;

  // `now_ms`, `gen`, `stopping` and `epfd` are the loop's clock, current generation, stop flag
  // and epoll descriptor: read when used, so the loop may construct them after this part and
  // change them. `log` is the worker's access-log sink (null when the log is off): the machine
  // alone writes it, the loop ticks and flushes it (access_log).
  Http1Flow(LoopCalls loop, const std::uint64_t& now_ms, WorkerGen* const& gen, RequestParts& parts,
            CacheFlow& cache, UpstreamConns& ups, const bool& stopping, const int& epfd,
            std::unique_ptr<AccessLogSink> log, StudyWork study)
      : loop_(loop),
        now_ms_(now_ms),
        gen_(gen),
        parts_(parts),
        cache_(cache),
        log_(std::move(log)),
        ups_(ups),
        stopping_(stopping),
        epfd_(epfd),
        study_(std::move(study)) {}
  Http1Flow(const Http1Flow&) = delete;
  Http1Flow& operator=(const Http1Flow&) = delete;

  // The steps of the loop's drive: each returns true when it progressed (step again).
  bool step_handshake(Client& c);
  bool step_read_head(Client& c);
  bool step_read_body(Client& c);
  bool step_local(Client& c);
  bool step_linger(Client& c);
  // kProxy: the request (head, body) out, then the response in and out to the client.
  bool step_proxy(Client& c);

  // The stream client `c` of `s`, whose head is complete, takes its request part and the head
  // (or refuses a head too large); the loop drives it next.
  void begin_stream(Client& c, const H2Stream& s);
  // The Redis lookup of `c` is done (CacheFlow::run_redis): its entry served or the request
  // proxied. False when `c` was not waiting for it any more (nothing to drive).
  bool resume_after_lookup(Client& c);
  // Closing a client: its upstream connection, if any, closed or back to its pool.
  void release_upconn(Client& c, bool reusable);
  // The deadline of `c` passed. A proxied request without a response yet is answered (408 when
  // its body was overdue, else 504) and true returned (the loop drives it); false otherwise (the
  // loop closes the connection).
  bool answer_timeout(Client& c);

  const StudyWork& study() const { return study_; }
  AccessLogSink* access_log() const { return log_.get(); }
  // The I/O scratch: a connection's bytes on their way (TLS record coalescing, an idle
  // connection's next bytes, HTTP/2 frames both ways), lent to H2Flow.
  std::span<char> io_scratch() const { return {io_scratch_.get(), kIoScratchCap}; }

 private:
  // Request state machine (request_flow.cpp).
  void begin_request(Client& c);
  // A head that cannot be served (bad, too large): answered and logged, the connection closes.
  void refuse_head(Client& c, std::uint16_t status, std::string_view why);
  void route_request(Client& c);
  bool send_continue(Client& c);
  void grow_in(Client& c, std::size_t want);
  void finish_request(Client& c);
  void log_request(const Client& c);
  void respond(Client& c, std::uint16_t status, std::string_view content_type,
               std::string_view body, std::string_view extra_headers);
  void respond(Client& c, const LocalResponse& r) {
    respond(c, r.status, r.content_type, r.body, r.extra_headers);
  }
  // Decision listeners: the request's form, and the JSON form's body read first (the flow
  // itself is DecisionFlow's).
  void begin_decision(Client& c);
  // Response cache: what CacheFlow finds, sent as a local answer. True when the cache took the
  // request (an entry served, or a Redis lookup under way).
  bool answer_from_cache(Client& c);
  void serve_entry(Client& c, const CacheAnswer& a);
  bool serve_stale(Client& c);
  // A stream's request is logged and its response handed over: its H2Front sends the rest.
  void end_stream(Client& c);

  // Proxying (proxy.cpp).
  void start_proxy(Client& c);
  bool pump_request(Client& c);
  bool pump_response(Client& c);
  // The request head as the upstream gets it, into the upstream head (taken here).
  void write_up_head(Client& c);
  bool connect_upstream(Client& c);
  bool parse_upstream_head(Client& c);
  bool send_response(Client& c);
  bool read_upstream(Client& c);
  void upstream_failed(Client& c, std::uint16_t status);
  bool body_overdue(const Client& c) const;
  void body_timed_out(Client& c);
  // `d`, or the request body's deadline when that is earlier and the body is still arriving.
  static std::uint64_t until_body_due(const Client& c, std::uint64_t d);

  // A client's request bytes and response bytes: its socket's, or its stream's on its H2Front.
  static IoResult read_client(Client& c, char* buf, std::size_t len) {
    if (c.conn.parent == nullptr) return client_read(c.conn.io, buf, len);
    return H2Flow::stream_read(c, buf, len);
  }
  IoResult write_client(Client& c, const iovec* iov, int cnt) {
    if (c.conn.parent != nullptr) return H2Flow::stream_write(c, iov, cnt);
    return client_writev(c.conn.io, iov, cnt, io_scratch());
  }
  const Config& cfg() const { return *gen_->pub->config; }

  // What every request reads first.
  LoopCalls loop_;
  const std::uint64_t& now_ms_;
  WorkerGen* const& gen_;
  RequestParts& parts_;
  CacheFlow& cache_;
  std::unique_ptr<char[]> io_scratch_ = std::make_unique<char[]>(kIoScratchCap);
  std::unique_ptr<AccessLogSink> log_;
  UpstreamConns& ups_;
  const bool& stopping_;
  const int& epfd_;
  StudyWork study_;
  std::unique_ptr<PolicyScratch> policy_scratch_ = std::make_unique<PolicyScratch>();
  std::vector<char> chunk_scratch_;  // an inspected chunked body without its framing
  DecisionFlow decision_;
};

}  // namespace gatebench::gateway
