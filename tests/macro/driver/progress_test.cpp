#include "macro/driver/system/progress.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <memory>
#include <string>

namespace gatebench::macro {
namespace {

using namespace std::chrono_literals;

// A temporary file the progress lines go to, read back whole.
struct Captured {
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> file{std::tmpfile(), std::fclose};
  std::string text() const {
    std::fflush(file.get());
    std::rewind(file.get());
    std::string out;
    char buf[256];
    while (std::fgets(buf, sizeof buf, file.get()) != nullptr) out += buf;
    return out;
  }
};

TEST(ProgressEstimate, ARunCountsItsLoadRunsServicesAndSteps) {
  // Two services, a warm-up of 1 s and 2 s measured: 0.05 + 3 + 2 x 0.06 + 2 x 0.05.
  EXPECT_NEAR(estimated_run_s({2, 0, false, 1}, 1, 2), 3.27, 1e-9);
  // Without a warm-up its load run is not counted either.
  EXPECT_NEAR(estimated_run_s({2, 0, false, 1}, 0, 2), 2.21, 1e-9);
  // Three services and a TLS certificate.
  EXPECT_NEAR(estimated_run_s({3, 1, false, 1}, 1, 2), 3.34, 1e-9);
  // A search of 12 measured runs: 0.05 + 1 + 24 + 13 x 0.06 + 0.05.
  EXPECT_NEAR(estimated_run_s({1, 0, false, 12}, 1, 2), 25.88, 1e-9);
  // In containers every service costs 1.9 s more.
  EXPECT_NEAR(estimated_run_s({2, 0, true, 1}, 1, 2), 3.27 + 2 * 1.9, 1e-9);
}

TEST(ProgressEstimate, TheEndComparesTheEstimateWithTheTimeTaken) {
  Captured out;
  Progress progress(out.file.get(), false);
  EXPECT_EQ(progress.estimate_text(), "");  // no plan, nothing to compare
  progress.plan_run(100, std::chrono::steady_clock::now() - 110s);
  EXPECT_EQ(progress.estimate_text(), "estimated 1.7 min, took 1.8 min (+10%)");
}

TEST(ProgressEstimate, TheTimeLeftFollowsThePaceOfTheRunsDone) {
  Captured out;
  Progress progress(out.file.get(), false);
  progress.plan_run(100, std::chrono::steady_clock::now());
  progress.begin("a", 10);
  progress.phase("measure", 2);
  // Nothing done yet: the model's own figure.
  EXPECT_NE(out.text().find("[a, about 1.7 min left] measure (2.0s)"), std::string::npos)
      << out.text();
  progress.end("ok");
  // The first run's 10 s estimate took 20 s: the remaining 90 s are expected to take 180 s.
  progress.plan_run(100, std::chrono::steady_clock::now() - 20s);
  progress.begin("a", 10);
  progress.end("ok");
  progress.begin("b", 10);
  progress.phase("measure", 2);
  EXPECT_NE(out.text().find("[b, about 3.0 min left] measure (2.0s)"), std::string::npos)
      << out.text();
}

}  // namespace
}  // namespace gatebench::macro
