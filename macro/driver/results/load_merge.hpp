#pragma once
// Several gatebench-load results of one synchronised run (one per load host) as one result of the
// same schema, gatebench.load/1 (docs/multi-host.md): counts summed, latency histograms merged
// bucket by bucket and the percentiles taken from the merged histogram (never averaged), the
// per-second series aligned by second.
#include <cstdint>
#include <string>
#include <vector>

#include "macro/common/load_report.hpp"

namespace gatebench::macro {

struct LoadPart {
  std::string host;  // names the part in messages and in merged_from
  common::LoadReport report;
};

// Throws LoadParseError naming the host when the parts' histograms do not share one layout or
// their request templates differ. The merged window is absent: each host's is on its own clock.
common::LoadReport merge_load_results(const std::vector<LoadPart>& parts);

// One histogram bucket of gatebench.load/1: the load report's own type.
using Bucket = common::HistogramBucket;

// The value at percentile p (0-100) as gatebench-load computes it: the midpoint of the bucket
// holding the ceil(p% * count)-th smallest value, clamped to [min_ns, max_ns]. Buckets sorted by
// lower bound; 0 when empty.
uint64_t histogram_percentile(const std::vector<Bucket>& buckets, double p, uint64_t min_ns,
                              uint64_t max_ns);

}  // namespace gatebench::macro
