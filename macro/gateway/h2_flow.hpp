// HTTP/2 connections in the worker. The connection's Client (state kH2) moves bytes between its
// socket and its H2Front; each request stream gets a stream client of its own (a pooled Client
// like any other, with `parent` set) that runs the unchanged HTTP/1.1 request machine, whose
// reads and writes go through the H2Front (stream_read, stream_write) instead of a socket. So
// routing, policy, cache, the upstream pool and the access log are the same code for both
// protocols. The part owns the connections queued to be driven after a batch of events and the
// sessions of closed connections; the worker's loop starts, drives and closes the clients
// (h2_streams.cpp), since streams are clients of its request machine.
#pragma once

#include <sys/uio.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "macro/gateway/client_io.hpp"
#include "macro/gateway/config.hpp"
#include "macro/gateway/connection.hpp"
#include "macro/gateway/h2_front.hpp"
#include "macro/gateway/request_parts.hpp"

namespace gatebench::gateway {

// What a connection's step did: moved bytes (step again), nothing to do until the next event, or
// the connection must close (its socket failed, or its session is done).
enum class H2Step : std::uint8_t { kIdle, kProgress, kClose };

class H2Flow {
 public:
  // `now_ms` and `gen` are the loop's clock and current generation (read when a deadline is
  // set), `scratch` its I/O scratch (kOutCap + kRespCap bytes), lent for the connection's bytes.
  H2Flow(RequestParts& parts, const std::uint64_t& now_ms, WorkerGen* const& gen,
         std::span<char> scratch)
      : parts_(parts), now_ms_(now_ms), gen_(gen), scratch_(scratch) {}
  H2Flow(const H2Flow&) = delete;
  H2Flow& operator=(const H2Flow&) = delete;

  // The connection becomes HTTP/2 (ALPN h2, or the h2c preface read): its session, fed what was
  // read before the protocol was known; its request part goes back.
  void start(Client& c, H2Handler& handler);
  // One step of a connection: frames out, bytes in (feeding the session calls the handler), its
  // idle or header deadline.
  H2Step step(Client& c);

  // A stream client's response bytes to its session, and its request body from it.
  static IoResult stream_write(Client& c, const iovec* iov, int cnt);
  static IoResult stream_read(Client& c, char* buf, std::size_t len);

  // A stream progressed: its connection is driven once the batch of events is done (flush).
  void queue(Client& parent) {
    parent.conn.flush_queued = true;
    flush_.push_back(&parent);
  }
  // Drives the queued connections, so the frames of every stream served in one batch of events
  // leave in one write. Indexed: driving a connection can close stream clients, never queue
  // another connection.
  template <class Drive>
  void flush(Drive&& drive) {
    for (std::size_t i = 0; i < flush_.size(); ++i) {
      Client& c = *flush_[i];
      c.conn.flush_queued = false;
      if (c.conn.dead) continue;
      drive(c);
    }
    flush_.clear();
  }
  // A closed connection's session, freed in reap(): the close may run inside its calls.
  void retire(std::unique_ptr<H2Front> front) { dead_fronts_.push_back(std::move(front)); }
  void reap() { dead_fronts_.clear(); }

 private:
  const Config& cfg() const { return *gen_->pub->config; }

  RequestParts& parts_;
  const std::uint64_t& now_ms_;
  WorkerGen* const& gen_;
  std::span<char> scratch_;
  std::vector<Client*> flush_;
  std::vector<std::unique_ptr<H2Front>> dead_fronts_;
};

}  // namespace gatebench::gateway
