#include "macro/load/schedule.hpp"

namespace gatebench::load {

Schedule::Schedule(const WorkerPlan& plan, std::uint64_t timeout_ns, const std::atomic<bool>& stop)
    : plan_(plan),
      stop_(stop),
      timeout_ns_(timeout_ns),
      hard_end_ns_(plan.measure_end_ns + timeout_ns),
      rebase_pending_(plan.rate > 0 && plan.rebase_pace) {}

void Schedule::begin_stopping(std::uint64_t now) {
  stopping_ = true;
  // Stopped by a signal: what is in flight gets one timeout from now, not from the window's end.
  if (stop_.load(std::memory_order_relaxed))
    hard_end_ns_ = std::min(hard_end_ns_, now + timeout_ns_);
}

void Schedule::rebase(std::uint64_t now) {
  rebase_pending_ = false;
  const auto next = now + static_cast<std::uint64_t>(1e9 / plan_.rate);
  const std::uint64_t due = next_due();
  if (next > due) shift_ns_ += next - due;
}

std::uint64_t Schedule::missed(std::uint64_t issued) const {
  if (plan_.rate == 0 || plan_.budget != 0 || stop_.load(std::memory_order_relaxed)) return 0;
  const std::uint64_t expected =
      first_slot_at(plan_, plan_.measure_end_ns) - first_slot_at(plan_, plan_.measure_start_ns);
  return expected > issued ? expected - issued : 0;
}

}  // namespace gatebench::load
