// One HTTP/2 load thread: its own connections (each an nghttp2 client session fed from and
// drained to the socket by this loop: nghttp2 frames and parses, it does no I/O), its epoll set,
// TLS context and statistics. The same window, budget, closed and open loops and error classes as
// the HTTP/1.1 worker (docs/load.md, "HTTP/2"). The streams and frames are in h2_worker.cpp, the
// connections' set-up and upkeep in h2_connections.cpp.
#pragma once

#include <nghttp2/nghttp2.h>
#include <sys/epoll.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "fixtures/rng.hpp"
#include "macro/load/connection.hpp"
#include "macro/load/h2_requests.hpp"
#include "macro/load/load_thread.hpp"
#include "macro/load/options.hpp"
#include "macro/load/request_set.hpp"
#include "macro/load/schedule.hpp"
#include "macro/load/stats.hpp"
#include "macro/load/url.hpp"
#include "macro/load/worker_plan.hpp"

namespace gatebench::load {

struct H2Deleter {
  void operator()(nghttp2_session* s) const { nghttp2_session_del(s); }
  void operator()(nghttp2_session_callbacks* c) const { nghttp2_session_callbacks_del(c); }
};

class H2Worker final : public LoadThread {
 public:
  H2Worker(const Options& options, const Target& target, const RequestSet& requests,
           const H2Requests& h2_requests, const WorkerPlan& plan, const std::atomic<bool>& stop);
  ~H2Worker() override;
  H2Worker(const H2Worker&) = delete;
  H2Worker& operator=(const H2Worker&) = delete;

  void run() override;
  const Stats& stats() const override { return stats_; }
  std::uint64_t progress() const override { return progress_.load(std::memory_order_relaxed); }
  bool uses_uring() const override { return false; }
  bool ran_batch() const override { return ran_batch_; }

 private:
  // A request in flight on a stream; slots are fixed per connection (--streams of them), so a
  // request costs no allocation of ours.
  struct Stream {
    std::int32_t id = 0;  // 0: free
    std::uint32_t tmpl = 0;
    bool measured = false;
    bool peer_reset = false;                 // an RST_STREAM came for it
    int status = 0;                          // final status (1xx are skipped)
    int count_slot = HeaderCounts::kAbsent;  // --count-header: its value in the final head
    std::size_t body_off = 0;
    std::uint64_t start_ns = 0;  // intended (open loop) or actual (closed loop) start
    std::uint64_t sent_ns = 0;
    std::uint64_t deadline_ns = 0;
  };
  // A request the server did not process, waiting for a stream to send it again.
  struct Retry {
    std::uint32_t tmpl = 0;
    bool measured = false;
    std::uint64_t start_ns = 0;
    std::uint64_t deadline_ns = 0;
  };
  static constexpr std::size_t kInBytes = 32768;
  // Frames of a loop turn are gathered in `out` and written in one call (nghttp2 hands them out
  // one frame at a time).
  static constexpr std::size_t kOutBytes = 65536;
  struct Connection {
    H2Worker* owner = nullptr;
    // Its deadline_ns, once open: the server's SETTINGS.
    Transport t;
    bool ready = false;      // the server's SETTINGS arrived: requests may go out
    bool goaway = false;     // the server sent GOAWAY: no new streams on this connection
    bool fresh = true;       // nothing received yet (an HTTP/1.1 answer to h2c shows here)
    bool closing = false;    // the session is being deleted: its callbacks are ignored
    bool available = false;  // open loop: listed in available_
    std::uint32_t active = 0;
    std::uint32_t measured_active = 0;
    std::uint32_t server_max = 0xffffffffu;  // SETTINGS_MAX_CONCURRENT_STREAMS (unlimited)
    std::unique_ptr<nghttp2_session, H2Deleter> session;
    std::vector<Stream> streams;
    std::vector<std::uint32_t> free;  // indices of free stream slots
    std::unique_ptr<std::uint8_t[]> in;
    std::unique_ptr<std::uint8_t[]> out;
    std::size_t out_off = 0;
    std::size_t out_len = 0;
    // The part of nghttp2's last output chunk that did not fit in `out` (valid until the next
    // nghttp2_session_mem_send, which is only called once it is copied).
    const std::uint8_t* spill = nullptr;
    std::size_t spill_len = 0;
  };

  static int on_header(nghttp2_session* session, const nghttp2_frame* frame,
                       const std::uint8_t* name, std::size_t namelen, const std::uint8_t* value,
                       std::size_t valuelen, std::uint8_t flags, void* user_data);
  static int on_frame_recv(nghttp2_session* session, const nghttp2_frame* frame, void* user_data);
  static int on_frame_not_send(nghttp2_session* session, const nghttp2_frame* frame,
                               int lib_error_code, void* user_data);
  static int on_stream_close(nghttp2_session* session, std::int32_t stream_id,
                             std::uint32_t error_code, void* user_data);
  static ssize_t read_body(nghttp2_session* session, std::int32_t stream_id, std::uint8_t* buf,
                           std::size_t length, std::uint32_t* data_flags,
                           nghttp2_data_source* source, void* user_data);
  static void* mem_malloc(std::size_t size, void* user);
  static void mem_free(void* ptr, void* user);
  static void* mem_calloc(std::size_t n, std::size_t size, void* user);
  static void* mem_realloc(void* ptr, std::size_t size, void* user);

  std::uint32_t capacity(const Connection& c) const;
  bool has_room(const Connection& c) const;
  // Starts a new request (retry == nullptr) or sends `retry` again, on a free stream of c.
  void start_stream(Connection& c, std::uint64_t start, std::uint64_t now, const Retry* retry);
  // The stream ended: a response, an error, or (REFUSED_STREAM) a request to send again.
  void finish_stream(Connection& c, Stream& s, std::uint32_t error_code);
  void release(Connection& c, Stream& s);
  void fail_request(std::uint32_t tmpl, bool measured, ErrorClass error, std::uint64_t now);

  void open_socket(Connection& c, std::uint64_t now);
  void on_connected(Connection& c, std::uint64_t now);
  void continue_handshake(Connection& c);
  // A set-up step's outcome: the session starts (after ALPN said h2), or the connection waits or
  // fails.
  void after_set_up(Connection& c, SetUp step);
  void start_session(Connection& c);
  void on_readable(Connection& c);
  // Hands nghttp2's frames to the socket; false when the connection was closed.
  bool flush(Connection& c);
  // After input or a timeout: new streams on free slots, output, retiring a finished connection.
  void service(Connection& c, std::uint64_t now);
  void refill(Connection& c, std::uint64_t now);
  // Every stream of c fails with `error`; the connection closes and reopens (after a pause when
  // `backoff`).
  void fail_connection(Connection& c, ErrorClass error, bool backoff);
  // The server cannot be spoken to in HTTP/2: the run ends (docs/load.md).
  void not_h2(Connection& c, const std::string& why);
  void close_socket(Connection& c, bool clean);
  void reopen(Connection& c, std::uint64_t now);
  void handle_event(const epoll_event& ev);
  void sweep(std::uint64_t now);
  void dispatch_due(std::uint64_t now);
  void make_available(Connection& c);
  Connection* pick_available();

  const Options& options_;
  const RequestSet& requests_;
  const H2Requests& h2_requests_;
  WorkerPlan plan_;
  Schedule schedule_;
  std::atomic<std::uint64_t> progress_{0};
  Stats stats_;
  fixtures::Rng rng_;
  nghttp2_mem mem_{};
  std::unique_ptr<nghttp2_session_callbacks, H2Deleter> callbacks_;
  // Before conns_: sockets and TLS sessions close before their epoll set and TLS context.
  Connector connector_;
  // After mem_ and callbacks_: sessions are deleted first.
  std::vector<Connection> conns_;
  std::vector<std::uint32_t> available_;  // open loop: connections with a free stream
  std::vector<Retry> retries_;            // reserved for every stream of the thread
  std::size_t in_flight_ = 0;             // requests started and not finished (retries included)
  bool fatal_ = false;
  bool ran_batch_ = false;
};

}  // namespace gatebench::load
