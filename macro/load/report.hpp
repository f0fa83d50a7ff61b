// The results of a run: gatebench.load/1 (docs/load.md) and a console summary.
#pragma once

#include <string>
#include <vector>

#include "macro/common/load_report.hpp"
#include "macro/load/options.hpp"
#include "macro/load/request_set.hpp"
#include "macro/load/runner.hpp"
#include "macro/load/url.hpp"

namespace gatebench::load {

struct Verdict {
  bool valid = true;
  std::vector<std::string> reasons;  // why it is not valid
};

Verdict judge(const Options& options, const RunResult& result);
// What the run measured, as the one gatebench.load/1 type (common::to_json writes it).
common::LoadReport load_report(const Options& options, const RequestSet& requests,
                               const RunResult& result);
std::string console_summary(const Options& options, const RequestSet& requests,
                            const RunResult& result);

}  // namespace gatebench::load
