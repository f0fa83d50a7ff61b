#pragma once
// Max-throughput search (load mode `search`): the highest offered rate whose p99 stays within the
// objective, by bisection between 0 and the closed-loop capacity.
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "macro/driver/measure/measure.hpp"
#include "macro/driver/system/progress.hpp"

namespace gatebench::macro {

// One load run: `label` names its artifacts; no rate = closed loop.
using MeasureFn = std::function<Measurement(const std::string& label, std::optional<double> rate)>;

struct SearchOutcome {
  std::optional<Measurement> best;  // the passing step with the highest achieved rate
  nlohmann::json steps = nlohmann::json::array();
};

// A step passes when it has no errors, its p99 is within `slo_p99_us` and it achieved at least
// 95% of the offered rate. A failing step is measured once more before it bounds the search, so
// one stall of a shared machine does not cut the bracket; both runs are in `steps`. Measures
// exactly kSearchRuns load runs (plan.hpp), the capacity run included, so its time is known
// before it starts; only when the capacity itself passes does it stop after two. Throws Outcome
// failed when the closed-loop run completes nothing.
SearchOutcome search_max_throughput(const MeasureFn& measure, double slo_p99_us, Progress& progress,
                                    double step_s);

}  // namespace gatebench::macro
