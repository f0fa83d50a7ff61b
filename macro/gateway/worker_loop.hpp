// The worker's event loop: epoll dispatch, accepting, client objects, configuration generations,
// timeouts and the graceful stop (worker.cpp), and HTTP/2 streams as clients of the request
// machine (h2_streams.cpp). Each flow is a part the loop owns, in its own header with its own
// state: Http1Flow (the HTTP/1.1 request machine, which HTTP/2 streams run too), RequestParts
// (the pools of request-set parts), H2Flow (HTTP/2 connections), CacheFlow (the response cache
// and its Redis pools), and inside Http1Flow DecisionFlow (decision listeners) and StudyWork
// (study-only work per request). docs/design.md, "The gateway's worker", lists who owns what.
#pragma once

#include <unistd.h>

#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "macro/gateway/cache_flow.hpp"
#include "macro/gateway/connection.hpp"
#include "macro/gateway/h2_flow.hpp"
#include "macro/gateway/http1_flow.hpp"
#include "macro/gateway/request_parts.hpp"
#include "macro/gateway/shared_state.hpp"
#include "macro/gateway/upstream_pool.hpp"

namespace gatebench::gateway {

// Closed connections' objects kept for reuse (and spare parts of request sets,
// request_parts.hpp); the others are freed on the tick, so a worker's memory follows its
// connections and requests, not its peak.
inline constexpr std::size_t kSpareClients = 64;
// Beyond those, as many as were in use at the peak of this window or the one before.
inline constexpr std::uint64_t kPeakWindowMs = 1000;
// Out of descriptors (EMFILE/ENFILE), the listeners leave epoll this long: a level-triggered
// listener whose accept fails would otherwise wake the loop at once, for ever (nginx does the
// same).
inline constexpr std::uint64_t kAcceptPauseMs = 100;

class WorkerLoop final : private H2Handler {
 public:
  WorkerLoop(int index, SharedState& shared);
  ~WorkerLoop();
  WorkerLoop(const WorkerLoop&) = delete;
  WorkerLoop& operator=(const WorkerLoop&) = delete;
  void run();
  // Builds this worker's state for a generation about to be published (its hosts' policies
  // with their rate-limit tables, and memory caches), on the calling thread: the main thread
  // builds every worker's before it publishes, so memory that is not there refuses the reload
  // instead of ending a worker. Throws std::bad_alloc (or what the constructors throw).
  void prepare(std::shared_ptr<const Published> pub);
  // Drops a prepared state whose generation is not going to be published.
  void discard_prepared();
  void wake() {
    std::uint64_t one = 1;
    ssize_t r = ::write(wake_fd_, &one, sizeof one);
    (void)r;
  }

 private:
  friend class LoopCalls;  // the request machine's calls back (http1_flow.hpp)

  // Loop plumbing (worker.cpp).
  void open_listeners();
  void on_accept(Listener& l);
  void pause_accepting();
  void resume_accepting();
  std::size_t connection_cap() const {
    return std::min<std::size_t>(cfg().max_connections_per_worker,
                                 shared_.descriptor_connection_cap);
  }
  void dispatch(Pollable& p, std::uint32_t ev);
  void out_of_memory(Pollable& p);
  void on_client(Client& c, std::uint32_t ev);
  void on_upstream(UpConn& u, std::uint32_t ev);
  void tick();
  void adopt_generation();
  void begin_stop();
  void reap();
  // The pooled parts of clients closed since the last call go back to their pools; the
  // objects wait for reap() (see give_back_dead_parts in worker.cpp).
  void give_back_dead_parts();
  // Drives the HTTP/2 connections whose streams progressed since the last call (drive queues
  // them), so the frames of every stream served in one batch of events leave in one write.
  void flush_connections();
  void release_spare_buffers();
  Client* new_client();
  void close_client(Client& c);
  void release_gen(WorkerGen* g);
  void end_generation_use(Client& c);
  // The generation's per-worker state without what lives in this worker's loop (prepare), then
  // the rest (finish_gen, on the worker's thread).
  static std::unique_ptr<WorkerGen> build_gen(std::shared_ptr<const Published> pub);
  void finish_gen(WorkerGen& g);
  // Never inlined: `gatebench-macro --instructions` toggles callgrind's collection on this
  // function's symbol, and GCC at -O2/-O3 inlined it into every caller (nothing was counted).
  [[gnu::noinline]] void drive(Client& c);
  void drive_steps(Client& c);

  // HTTP/2: the connections are H2Flow's; their streams are clients of this loop
  // (h2_streams.cpp).
  void start_h2(Client& c);
  // Inline: drive_steps calls H2Flow::step directly, one call per step.
  bool step_h2(Client& c) {
    const H2Step step = h2_.step(c);
    if (step == H2Step::kClose) {
      close_client(c);
      return false;
    }
    return step == H2Step::kProgress;
  }
  void start_stream(Client& parent, H2Stream& s);
  void detach_streams(Client& c);
  void on_ready(H2Front& front, H2Stream& s) override;
  void on_closed(H2Front& front, H2Stream& s) override;

  // After a batch of events or a tick: timeouts, finished lookups (resumed by the request
  // machine, then driven), queued commands out.
  void run_redis() {
    cache_.run_redis(now_ms_, [this](Client& c) {
      if (http1_.resume_after_lookup(c)) drive(c);
    });
  }
  int poll_timeout_ms() const;

  const Config& cfg() const { return *gen_->pub->config; }

  // First: H2Flow borrows its I/O scratch. It holds references to the members below, used only
  // once the loop is built.
  Http1Flow http1_;
  int index_;
  SharedState& shared_;
  int epfd_ = -1;
  int wake_fd_ = -1;
  Pollable wake_tag_{Kind::kWake};
  std::vector<std::unique_ptr<Listener>> listeners_;
  std::unique_ptr<WorkerGen> gen_owner_;
  WorkerGen* gen_ = nullptr;
  std::vector<std::unique_ptr<WorkerGen>> retired_;
  std::uint64_t seen_generation_ = 0;
  std::mutex prepared_mu_;
  std::unique_ptr<WorkerGen> prepared_;  // from prepare(), taken by adopt_generation()

  std::vector<std::unique_ptr<Client>> client_store_;
  std::vector<Client*> free_clients_;
  std::vector<Client*> live_;
  std::vector<Client*> dead_clients_;
  std::size_t dead_parts_returned_ = 0;  // dead_clients_ before this gave their parts back
  // The parts of request sets no connection holds.
  RequestParts parts_;
  H2Flow h2_{parts_, now_ms_, gen_, http1_.io_scratch()};
  UpstreamConns ups_;

  std::uint64_t now_ms_ = 0;
  std::uint64_t next_tick_ms_ = 0;
  // Clients in use at the peak of the current and the previous window (release_spare_buffers).
  std::size_t current_peak_ = 0;
  std::size_t previous_peak_ = 0;
  std::uint64_t peak_window_end_ms_ = 0;
  // Accepting stops for kAcceptPauseMs when the process is out of descriptors (0: accepting).
  std::uint64_t accept_resume_ms_ = 0;
  bool stopping_ = false;
  std::uint64_t stop_deadline_ms_ = 0;
  CacheFlow cache_;
};

}  // namespace gatebench::gateway
