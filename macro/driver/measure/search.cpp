#include "macro/driver/measure/search.hpp"

#include "macro/driver/plan/plan.hpp"
#include "macro/driver/results/run_support.hpp"

namespace gatebench::macro {

using nlohmann::json;

namespace {

json optional_json(const std::optional<double>& v) {
  return v ? json(*v) : json(nullptr);
}

}  // namespace

SearchOutcome search_max_throughput(const MeasureFn& measure, double slo_p99_us, Progress& progress,
                                    double step_s) {
  SearchOutcome out;
  progress.phase("search: capacity", step_s);
  Measurement capacity = measure("search-capacity", std::nullopt);
  out.steps.push_back({{"offered", nullptr},
                       {"achieved", capacity.load.rps},
                       {"p99_us", optional_json(capacity.load.p99_us)}});
  if (capacity.load.rps <= 0) throw Outcome{Status::failed, "closed-loop run completed no request"};
  const auto passes = [&](const Measurement& m, double offered) {
    return m.load.errors == 0 && m.load.p99_us && *m.load.p99_us <= slo_p99_us &&
           m.load.rps >= 0.95 * offered;
  };
  double lo = 0, hi = capacity.load.rps, offered = capacity.load.rps;
  int runs_left = kSearchRuns - 1;
  for (int i = 1; runs_left > 0; ++i) {
    const std::string label = "search-" + std::to_string(i);
    bool pass = false;
    for (int attempt = 0; attempt < kSearchAttempts && !pass && runs_left > 0; ++attempt) {
      --runs_left;
      progress.phase("search: " + std::to_string(static_cast<long long>(offered)) + " req/s" +
                         (attempt > 0 ? " (again)" : ""),
                     step_s);
      Measurement m = measure(attempt == 0 ? label : label + "-again", offered);
      pass = passes(m, offered);
      out.steps.push_back({{"offered", offered},
                           {"achieved", m.load.rps},
                           {"p99_us", optional_json(m.load.p99_us)},
                           {"errors", m.load.errors},
                           {"pass", pass},
                           {"attempt", attempt + 1}});
      if (pass && (!out.best || m.load.rps > out.best->load.rps)) out.best = std::move(m);
    }
    if (pass) {
      lo = offered;
    } else {
      hi = offered;
    }
    if (pass && i == 1) break;  // the closed-loop capacity itself meets the objective
    offered = (lo + hi) / 2;
  }
  return out;
}

}  // namespace gatebench::macro
