// One load thread: its own connections, event loop (io_uring for plain-HTTP traffic, epoll for
// connects, TLS and the fallback), TLS context and statistics. Nothing is shared with other
// workers while running except the stop flag and a progress counter. The exchange is in
// worker.cpp, the connections' set-up and upkeep in worker_connections.cpp.
#pragma once

#include <time.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

#include "fixtures/rng.hpp"
#include "macro/load/connection.hpp"
#include "macro/load/load_thread.hpp"
#include "macro/load/options.hpp"
#include "macro/load/request_set.hpp"
#include "macro/load/response_parser.hpp"
#include "macro/load/schedule.hpp"
#include "macro/load/stats.hpp"
#include "macro/load/uring.hpp"
#include "macro/load/url.hpp"
#include "macro/load/worker_plan.hpp"

namespace gatebench::load {

class Worker final : public LoadThread {
 public:
  Worker(const Options& options, const Target& target, const RequestSet& requests,
         const WorkerPlan& plan, const std::atomic<bool>& stop);
  ~Worker();
  Worker(const Worker&) = delete;
  Worker& operator=(const Worker&) = delete;

  void run() override;
  const Stats& stats() const override { return stats_; }
  std::uint64_t progress() const override { return progress_.load(std::memory_order_relaxed); }
  bool uses_uring() const override { return ring_ != nullptr; }
  bool ran_batch() const override { return ran_batch_; }

 private:
  // What an open connection is doing (its transport's phase is kOpen).
  enum class Exchange : std::uint8_t { kIdle, kWriting, kReading };
  static constexpr std::size_t kBufferBytes = 32768;  // per connection, for responses
  struct Connection {
    Transport t;
    Exchange exchange = Exchange::kIdle;
    bool has_request = false;
    bool measured = false;
    bool available = false;  // open loop: listed in available_
    bool on_ring = false;    // this socket's sends and receives go through ring_
    bool recv_armed = false;
    bool send_armed = false;
    std::uint8_t ring_ops = 0;  // ring operations in flight for this slot, any generation
    std::uint32_t tmpl = 0;
    std::size_t write_off = 0;
    std::size_t buf_len = 0;
    std::uint64_t start_ns = 0;  // intended (open loop) or actual (closed loop) start
    std::uint64_t sent_ns = 0;   // when the request was handed to the connection
    std::unique_ptr<char[]> buf;
    ResponseParser parser;
  };

  void begin_request(Connection& c, std::uint64_t start, std::uint64_t now);
  void open_socket(Connection& c, std::uint64_t now);
  void on_connected(Connection& c, std::uint64_t now);
  void continue_handshake(Connection& c);
  // A set-up step's outcome: the connection is ready, waits, or failed.
  void after_set_up(Connection& c, SetUp step);
  void on_ready(Connection& c);
  void do_write(Connection& c);
  void on_readable(Connection& c);
  void on_idle_event(Connection& c);
  // No request was outstanding: the server closed or reset an idle keep-alive connection, or
  // sent bytes nobody asked for (`garbage`, a protocol error).
  void close_idle(Connection& c, bool garbage);
  // Returns false when the connection was closed or replaced (stop touching it).
  bool process_input(Connection& c);
  // The server closed while a request was outstanding.
  void end_of_stream(Connection& c);
  void complete_request(Connection& c);
  void fail(Connection& c, ErrorClass error, bool backoff);
  void after_request(Connection& c, std::uint64_t now);
  void close_socket(Connection& c, bool clean);
  // Every event is handled by the connection's state (errors surface in read/write/SO_ERROR).
  void handle_event(std::uint64_t data);
  void sweep(std::uint64_t now);
  void dispatch_due(std::uint64_t now);
  void make_available(Connection& c);
  void count_error(ErrorClass error, std::uint64_t now) { record_error(stats_, plan_, error, now); }
  // Waits for and handles what the ring or epoll report, until `timeout` at the latest.
  void poll_once(const timespec& timeout);
  void on_ring_completion(std::uint64_t key, int res, bool more);
  void on_ring_recv(Connection& c, int res);
  void on_ring_send(Connection& c, int res);
  void arm_recv(Connection& c);
  void arm_epoll_watch();
  // Waits (bounded) until no ring operation can write a connection's buffer any more.
  void drain_ring(std::uint64_t until_ns);

  const Options& options_;
  const Target& target_;
  const RequestSet& requests_;
  WorkerPlan plan_;
  Schedule schedule_;
  std::atomic<std::uint64_t> progress_{0};
  Stats stats_;
  fixtures::Rng rng_;
  // Before conns_: sockets and TLS sessions close before their epoll set and TLS context.
  Connector connector_;
  std::vector<Connection> conns_;
  // After conns_: destroyed first, so no ring operation outlives the buffers it writes.
  std::unique_ptr<Uring> ring_;
  std::vector<std::uint32_t> available_;  // open loop: connections without a request
  std::size_t in_flight_ = 0;
  bool ran_batch_ = false;
};

}  // namespace gatebench::load
