#include "macro/driver/system/progress.hpp"

#include <algorithm>

#include "macro/common/duration.hpp"

namespace gatebench::macro {

double estimated_run_s(const RunShape& shape, double warmup_s, double duration_s) {
  const int load_runs = shape.measured_runs + (warmup_s > 0 ? 1 : 0);
  const double per_service = kServiceOverheadS + (shape.containers ? kContainerOverheadS : 0.0);
  return kScenarioOverheadS + warmup_s + shape.measured_runs * duration_s +
         load_runs * kLoadRunOverheadS + shape.services * per_service +
         shape.prepare_steps * kPrepareOverheadS;
}

void Progress::plan_run(double estimate_s, std::chrono::steady_clock::time_point start) {
  estimate_s_ = estimate_s;
  done_estimate_s_ = 0;
  start_ = start;
}

double Progress::elapsed_s() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
}

double Progress::left_s() const {
  const double left = std::max(0.0, estimate_s_ - done_estimate_s_);
  // After a few runs the machine's own pace is the better guide than the model's constants.
  const double pace = done_estimate_s_ > 0 ? elapsed_s() / done_estimate_s_ : 1.0;
  return left * pace;
}

void Progress::begin(const std::string& scenario, double estimate_s) {
  scenario_ = scenario;
  if (estimate_s_ > 0) scenario_ += ", about " + common::duration_text(left_s()) + " left";
  current_estimate_s_ = estimate_s;
  phase_.clear();
}

void Progress::draw(const std::string& text) {
  // \r plus "erase line": the scenario keeps a single line while it runs.
  std::fprintf(out_, "\r\033[K%s", text.c_str());
  std::fflush(out_);
}

void Progress::phase(const std::string& phase, double planned_s) {
  phase_ = phase;
  planned_s_ = planned_s;
  char buf[64] = "";
  if (planned_s > 0) std::snprintf(buf, sizeof buf, " (%.1fs)", planned_s);
  std::string text = "[" + scenario_ + "] " + phase + buf;
  if (live_) {
    draw(text);
  } else {
    std::fprintf(out_, "%s\n", text.c_str());
    std::fflush(out_);
  }
}

void Progress::tick(double elapsed_s, std::optional<double> rps) {
  if (!live_) return;
  char buf[128];
  if (rps) {
    std::snprintf(buf, sizeof buf, " %.1f/%.1fs  ~%.0f req/s", elapsed_s, planned_s_, *rps);
  } else {
    std::snprintf(buf, sizeof buf, " %.1f/%.1fs", elapsed_s, planned_s_);
  }
  draw("[" + scenario_ + "] " + phase_ + buf);
}

void Progress::end(const std::string& summary) {
  done_estimate_s_ += current_estimate_s_;
  current_estimate_s_ = 0;
  std::string text = "[" + scenario_ + "] " + summary;
  if (live_) {
    draw(text);
    std::fputc('\n', out_);
  } else {
    std::fprintf(out_, "%s\n", text.c_str());
  }
  std::fflush(out_);
}

std::string Progress::estimate_text() const {
  if (estimate_s_ <= 0) return "";
  const double took = elapsed_s();
  char off[32];
  std::snprintf(off, sizeof off, "%+.0f%%", 100.0 * (took - estimate_s_) / estimate_s_);
  return "estimated " + common::duration_text(estimate_s_) + ", took " +
         common::duration_text(took) + " (" + off + ")";
}

}  // namespace gatebench::macro
