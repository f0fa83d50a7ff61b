// The check issue #24 asks of every hot path: a gatecore row slower than a naive peer of the same
// hotpath/case in the same run is shown as such (MicroRow::slower_than_naive, filled by
// build_report_model: a report.json field, a marker in report.md and report.html), so a
// regression below the naive way cannot hide among the ratios.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "tools/src/report/report_model.hpp"

namespace gatebench::tools {

// For a gatecore row (impl "gatecore" or "gatecore_*"), the naive peers (impl "naive", or
// "linear": cidr's scan of every prefix) of its hotpath/case whose median time per op is lower,
// in suite order. None when there is nothing to compare: not a gatecore row, no samples, or no
// naive peer with samples in that hotpath/case.
std::optional<std::vector<std::string>> faster_naive_peers(const std::vector<MicroRow>& rows,
                                                           const MicroRow& row);

// "slower than naive" / "slower than naive, linear": the marker the Markdown and HTML show.
// Empty when none is faster.
std::string slower_than_naive_note(const std::optional<std::vector<std::string>>& peers);

}  // namespace gatebench::tools
