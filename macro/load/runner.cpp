#include "macro/load/runner.hpp"

#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <memory>
#include <thread>
#include <vector>

#include "macro/load/h2_requests.hpp"
#include "macro/load/h2_worker.hpp"
#include "macro/load/worker.hpp"

namespace gatebench::load {
namespace {

// Threads need a moment to start; every worker begins at the same instant after it.
constexpr std::uint64_t kStartDelayNs = 20'000'000;

std::uint64_t realtime_ns() {
  timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return static_cast<std::uint64_t>(ts.tv_sec) * 1'000'000'000ULL +
         static_cast<std::uint64_t>(ts.tv_nsec);
}

// The monotonic instant the workers begin at: --start-at's wall-clock instant on this machine's
// monotonic clock, or as soon as the threads are up; `late_ns` how far past --start-at that is.
std::uint64_t start_instant(const Options& options, std::uint64_t& late_ns) {
  const std::uint64_t earliest = monotonic_ns() + kStartDelayNs;
  late_ns = 0;
  if (options.start_at_unix_ms == 0) return earliest;
  const std::uint64_t wanted_real = options.start_at_unix_ms * 1'000'000ULL;
  const std::uint64_t now_real = realtime_ns(), now_mono = monotonic_ns();
  if (wanted_real <= now_real + kStartDelayNs) {
    late_ns = now_real + kStartDelayNs - wanted_real;
    return earliest;
  }
  return now_mono + (wanted_real - now_real);
}

}  // namespace

RunResult run_load(const Options& options, const Target& target, const RequestSet& requests,
                   const std::atomic<bool>& stop) {
  std::uint64_t start_late_ns = 0;
  const std::uint64_t start = start_instant(options, start_late_ns);
  const std::uint64_t measure_start = start + options.warmup_ns;
  const std::uint64_t measure_end = measure_start + options.duration_ns;
  const std::uint64_t spin_ns = effective_spin_ns(options, usable_cpus());
  const bool sched_batch = effective_sched_batch(options);

  // HTTP/2 header lists are built once and shared, read-only, by every thread.
  std::unique_ptr<H2Requests> h2_requests;
  if (options.h2) h2_requests = std::make_unique<H2Requests>(requests, target, options.headers);
  std::vector<std::unique_ptr<LoadThread>> workers;
  for (int i = 0; i < options.threads; ++i) {
    WorkerPlan plan;
    plan.index = i;
    plan.connections =
        options.connections / options.threads + (i < options.connections % options.threads ? 1 : 0);
    plan.start_ns = start;
    plan.measure_start_ns = measure_start;
    plan.measure_end_ns = measure_end;
    plan.spin_ns = spin_ns;
    plan.rebase_pace = options.rebase_pace;
    plan.sched_batch = sched_batch;
    if (options.rate > 0) {
      plan.rate = options.rate * plan.connections / options.connections;
      // Threads take turns in the global schedule instead of sending at the same instants.
      plan.phase_ns = static_cast<std::uint64_t>(1e9 / options.rate * i);
    }
    if (options.requests_total > 0) {
      const std::uint64_t t = static_cast<std::uint64_t>(options.threads);
      plan.budget = options.requests_total / t +
                    (static_cast<std::uint64_t>(i) < options.requests_total % t ? 1 : 0);
      if (plan.budget == 0) continue;  // fewer requests than threads
    }
    if (h2_requests)
      workers.push_back(
          std::make_unique<H2Worker>(options, target, requests, *h2_requests, plan, stop));
    else
      workers.push_back(std::make_unique<Worker>(options, target, requests, plan, stop));
  }

  std::vector<std::thread> threads;
  threads.reserve(workers.size());
  for (auto& w : workers) threads.emplace_back([&w] { w->run(); });

  // Progress on a terminal only, and only for runs long enough to want it.
  const bool show = options.progress && !options.quiet && isatty(STDERR_FILENO) &&
                    options.warmup_ns + options.duration_ns >= 3'000'000'000ULL;
  if (show) {
    const std::uint64_t hard_end = measure_end + options.timeout_ns;
    std::uint64_t shown = 0;
    while (monotonic_ns() < hard_end && !stop.load()) {
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
      const std::uint64_t now = monotonic_ns();
      std::uint64_t done = 0;
      for (auto& w : workers) done += w->progress();
      if (now / 1'000'000'000ULL == shown) continue;
      shown = now / 1'000'000'000ULL;
      if (options.requests_total > 0 && done >= options.requests_total) break;
      if (now >= measure_end) break;
      if (now < measure_start) {
        std::fprintf(stderr, "\r  warm-up %5.1fs / %.1fs   ", (now - start) / 1e9,
                     options.warmup_ns / 1e9);
      } else {
        const double t = (now - measure_start) / 1e9;
        std::fprintf(stderr, "\r  %6.1fs / %.1fs  %12llu responses  %12.0f req/s   ", t,
                     options.duration_ns / 1e9, static_cast<unsigned long long>(done),
                     t > 0 ? done / t : 0.0);
      }
    }
    std::fprintf(stderr, "\r%78s\r", "");
  }
  for (auto& t : threads) t.join();

  RunResult result;
  result.start_late_ns = start_late_ns;
  result.spin_ns = spin_ns;
  result.stats.templates.resize(requests.size());
  for (auto& w : workers) result.stats.merge(w->stats());
  result.interrupted = stop.load();
  bool batch = !workers.empty();
  for (auto& w : workers) {
    if (w->uses_uring()) result.io = "uring";
    batch = batch && w->ran_batch();
  }
  if (batch) result.sched = "batch";
  if (options.requests_total > 0) {
    result.elapsed_s = result.stats.last_completion_ns / 1e9;
  } else {
    result.elapsed_s = options.duration_ns / 1e9;
  }
  if (result.interrupted) {
    const std::uint64_t now = monotonic_ns();
    const std::uint64_t end = std::min(now, measure_end);
    result.elapsed_s = end > measure_start ? (end - measure_start) / 1e9 : 0;
  }
  result.window_start_ns = measure_start;
  result.window_end_ns = measure_start + static_cast<std::uint64_t>(result.elapsed_s * 1e9);
  return result;
}

}  // namespace gatebench::load
