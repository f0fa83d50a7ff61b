#include "macro/load/worker_plan.hpp"

#include <sched.h>
#include <sys/prctl.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <string>

namespace gatebench::load {

std::uint64_t monotonic_ns() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<std::uint64_t>(ts.tv_sec) * kSecondNs + static_cast<std::uint64_t>(ts.tv_nsec);
}

fixtures::Rng worker_rng(const WorkerPlan& plan) {
  return fixtures::Rng(fixtures::kDefaultSeed).fork("load-worker-" + std::to_string(plan.index));
}

std::uint64_t intended_ns(const WorkerPlan& plan, std::uint64_t k) {
  return plan.start_ns + plan.phase_ns +
         static_cast<std::uint64_t>(std::llround(static_cast<double>(k) * 1e9 / plan.rate));
}

std::uint64_t first_slot_at(const WorkerPlan& plan, std::uint64_t t) {
  const std::uint64_t origin = plan.start_ns + plan.phase_ns;
  std::uint64_t k =
      t <= origin ? 0
                  : static_cast<std::uint64_t>(static_cast<double>(t - origin) * plan.rate / 1e9);
  while (intended_ns(plan, k) < t) ++k;
  while (k > 0 && intended_ns(plan, k - 1) >= t) --k;
  return k;
}

SecondStats& second_at(Stats& stats, const WorkerPlan& plan, std::uint64_t now) {
  const std::uint64_t rel = now - plan.measure_start_ns;
  const std::uint64_t window = plan.measure_end_ns - plan.measure_start_ns;
  const std::uint64_t last = window == 0 ? 0 : (window - 1) / kSecondNs;
  return stats.second(std::min(rel / kSecondNs, last));
}

void record_error(Stats& stats, const WorkerPlan& plan, ErrorClass error, std::uint64_t now) {
  if (now < plan.measure_start_ns) return;
  stats.errors[static_cast<int>(error)] += 1;
  second_at(stats, plan, now).errors += 1;
}

void record_handshake(Stats& stats, const WorkerPlan& plan, bool resumed, std::uint64_t now) {
  if (now < plan.measure_start_ns) return;
  if (resumed)
    stats.handshakes_resumed += 1;
  else
    stats.handshakes_full += 1;
  second_at(stats, plan, now).handshakes += 1;
}

void record_response(Stats& stats, const WorkerPlan& plan, const RequestSet& requests,
                     std::uint32_t tmpl, int status, std::uint64_t start_ns, std::uint64_t sent_ns,
                     std::uint64_t now) {
  const std::uint64_t latency = now - start_ns;
  stats.latency.record(latency);
  if (plan.rate > 0) stats.service.record(now - sent_ns);
  stats.responses += 1;
  stats.status[static_cast<std::size_t>(status)] += 1;
  SecondStats& second = stats.second((start_ns - plan.measure_start_ns) / kSecondNs);
  second.requests += 1;
  second.latency.record(latency);
  TemplateStats& t = stats.templates[tmpl];
  t.responses += 1;
  t.status[static_cast<std::size_t>(status)] += 1;
  const int expect = requests.templates()[tmpl].expect_status;
  if (expect == 0 || expect == status)
    t.as_expected += 1;
  else
    t.unexpected += 1;
  stats.last_completion_ns = std::max(stats.last_completion_ns, now - plan.measure_start_ns);
}

bool apply_thread_policy(const WorkerPlan& plan) {
  // Sleeps end on time: the default 50 us timer slack would show up as open-loop latency.
  prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
  if (!plan.sched_batch) return false;
  // Applies to this thread only (Linux policies are per thread). A refusal (a seccomp filter)
  // leaves the normal policy, and the result says so.
  const sched_param param{};
  sched_setscheduler(0, SCHED_BATCH, &param);
  return sched_getscheduler(0) == SCHED_BATCH;
}

int wait_epoll(int epoll_fd, std::vector<epoll_event>& events, const timespec& timeout,
               bool& precise) {
  const int max = static_cast<int>(events.size());
  if (precise) {
    const int n = epoll_pwait2(epoll_fd, events.data(), max, &timeout, nullptr);
    if (n >= 0 || errno != ENOSYS) return n;
    precise = false;  // kernel before 5.11 (or valgrind): millisecond sleeps
  }
  const std::uint64_t ns = static_cast<std::uint64_t>(timeout.tv_sec) * kSecondNs +
                           static_cast<std::uint64_t>(timeout.tv_nsec);
  return epoll_wait(epoll_fd, events.data(), max, static_cast<int>((ns + 999'999) / 1'000'000));
}

void sleep_until(std::uint64_t until_ns) {
  for (std::uint64_t now = monotonic_ns(); now < until_ns; now = monotonic_ns()) {
    const std::uint64_t wait = until_ns - now;
    timespec ts{static_cast<time_t>(wait / kSecondNs), static_cast<long>(wait % kSecondNs)};
    nanosleep(&ts, nullptr);
  }
}

}  // namespace gatebench::load
