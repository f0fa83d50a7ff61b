// gatebench.load/1 (docs/load.md): what one gatebench-load run measured, as one type. The load
// generator fills it and writes it (macro/load/report.cpp); the driver reads it back
// (macro/driver/results/load_json.cpp) and merges the files of several hosts into one
// (load_merge.cpp). The conversion to and from JSON is here and nowhere else.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace gatebench::common {

inline constexpr std::string_view kLoadSchema = "gatebench.load/1";

// Named counts in the order their names first came (status codes, error classes, HTTP/2 error
// codes, the values of a counted header).
using Counts = std::vector<std::pair<std::string, std::uint64_t>>;
// Named latencies in microseconds, in a fixed order ("p50", ..., "max").
using Latencies = std::vector<std::pair<std::string, double>>;

// Adds `n` to `name`'s count, appending the name when it is new.
void add_count(Counts& counts, std::string_view name, std::uint64_t n);
// Adds every count of `other` to `counts`.
void add_counts(Counts& counts, const Counts& other);
std::uint64_t count_of(const Counts& counts, std::string_view name);

struct LoadConfig {
  std::string url;
  int threads = 0;
  int connections = 0;
  double duration_s = 0;
  double warmup_s = 0;
  std::string mode = "closed";  // closed | open
  std::optional<double> rate;   // open loop: requests per second
  std::optional<std::uint64_t> requests_total;
  bool close = false;  // a new connection per request
  double timeout_s = 0;
  bool tls = false;
  std::string protocol = "http/1.1";  // http/1.1 | h2 | h2c
  int streams = 1;
  bool tls_resume = true;
  std::string io;
  double spin_us = 0;
  bool spin_auto = false;
  std::string sched;
  bool sched_auto = false;
  std::vector<std::string> headers;
  std::optional<std::string> requests_file;
  std::optional<std::int64_t> start_at_unix_ms;
};

struct LatencySummary {  // microseconds
  double min = 0, mean = 0, stdev = 0, max = 0;
  Latencies percentiles;  // p50, p75, p90, p99, p999, p9999
  std::optional<double> percentile(std::string_view key) const;
};

struct HistogramBucket {
  std::uint64_t lower_ns = 0;
  std::uint64_t upper_ns = 0;  // exclusive
  std::uint64_t count = 0;
};

struct LatencyHistogram {
  int sub_bucket_bits = 0;
  std::uint64_t count = 0;
  std::vector<HistogramBucket> buckets;  // the non-empty ones, by lower bound
};

// The measured interval on the generator's CLOCK_MONOTONIC.
struct LoadWindow {
  std::uint64_t start_ns = 0;
  std::uint64_t end_ns = 0;
};

struct OpenLoopReport {  // present in open loop (a fixed rate) only
  double offered_rate = 0;
  double achieved_rate = 0;
  double max_send_lag_us = 0;
  Latencies send_lag_us;      // p50, p99, max
  Latencies service_time_us;  // p50, p90, p99, p999, max
};

struct SecondReport {  // one second of the measured interval
  std::uint64_t t = 0;
  std::uint64_t requests = 0;
  double rps = 0;
  std::optional<double> p99_us;  // absent in a file that leaves it out
  std::uint64_t errors = 0;
  std::uint64_t handshakes = 0;
};

struct TemplateReport {  // one request template of --requests
  std::string name;
  double weight = 1;
  std::string method;
  std::string target;
  std::optional<int> expect_status;
  std::uint64_t responses = 0, as_expected = 0, unexpected = 0, errors = 0;
  Counts status;
};

struct H2Report {
  int streams_per_connection = 1;
  std::optional<std::uint64_t> server_max_concurrent_streams;
  std::uint64_t max_concurrent_streams = 0;
  std::uint64_t streams = 0;
  std::uint64_t retried = 0;
  Counts rst_stream, goaway;
  std::uint64_t nghttp2_allocations = 0;
  double nghttp2_allocations_per_stream = 0;
  std::optional<std::string> not_h2;  // why a server did not speak HTTP/2
};

struct HandshakeCounts {  // TLS handshakes completed in the window
  std::uint64_t full = 0, resumed = 0;
  double per_s = 0;
};

struct MergedHost {  // one part of a result merged from several hosts
  std::string host;
  std::uint64_t requests = 0;
  double requests_per_s = 0;
  double elapsed_s = 0;
  bool valid = true;
};

struct LoadReport {
  std::string tool_name = "gatebench-load";
  std::string tool_version;
  LoadConfig config;
  bool valid = true;
  std::vector<std::string> invalid_reasons;
  double elapsed_s = 0;              // the measured interval
  std::optional<LoadWindow> window;  // absent in a merge: each host has its own clock
  std::uint64_t requests = 0;        // responses in the window
  std::uint64_t issued = 0;
  double requests_per_s = 0;
  std::uint64_t missed = 0;  // open loop: requests whose time came but were never sent
  std::optional<OpenLoopReport> open_loop;
  std::uint64_t bytes_read = 0, bytes_written = 0;
  double bytes_read_per_s = 0;
  std::uint64_t connections_opened = 0;
  std::optional<HandshakeCounts> handshakes;  // absent only in files of older generators
  LatencySummary latency_us;
  LatencyHistogram latency_histogram;
  Counts status;
  Counts errors;  // by class
  std::uint64_t errors_total = 0;
  std::vector<SecondReport> series;
  std::vector<TemplateReport> templates;
  std::optional<H2Report> h2;
  std::vector<std::pair<std::string, Counts>> header_counts;  // --count-header
  std::vector<MergedHost> merged_from;                        // empty unless merged
};

nlohmann::ordered_json to_json(const LoadReport& report);
// Throws UsageError naming `source` and the JSON pointer of the first field that is wrong.
LoadReport load_report_from_json(const nlohmann::ordered_json& doc, const std::string& source);
LoadReport parse_load_report(const std::string& text, const std::string& source);

}  // namespace gatebench::common
