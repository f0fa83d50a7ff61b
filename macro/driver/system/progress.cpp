#include "macro/driver/system/progress.hpp"

namespace gatebench::macro {

void Progress::begin(const std::string& scenario) {
  scenario_ = scenario;
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
  std::string text = "[" + scenario_ + "] " + summary;
  if (live_) {
    draw(text);
    std::fputc('\n', out_);
  } else {
    std::fprintf(out_, "%s\n", text.c_str());
  }
  std::fflush(out_);
}

}  // namespace gatebench::macro
