#pragma once
// One live line per scenario on a terminal (phase, elapsed, current req/s); plain lines otherwise.
#include <cstdio>
#include <optional>
#include <string>

namespace gatebench::macro {

class Progress {
 public:
  Progress(std::FILE* out, bool live) : out_(out), live_(live) {}

  void begin(const std::string& scenario);
  void phase(const std::string& phase, double planned_s = 0);
  // Live mode only: rewrites the line; plain mode stays quiet between phases.
  void tick(double elapsed_s, std::optional<double> rps);
  void end(const std::string& summary);

 private:
  void draw(const std::string& text);
  std::FILE* out_;
  bool live_;
  std::string scenario_;
  std::string phase_;
  double planned_s_ = 0;
};

}  // namespace gatebench::macro
