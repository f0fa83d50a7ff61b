// The control plane's counters: access-log datagrams from the gateway workers are parsed with
// gatecore's TSV batch parser and folded into counters per host and status, per rule and action,
// and a latency histogram. Rendered as Prometheus text (/metrics) or JSON (/stats).
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "micro/core/access_log/record.hpp"

namespace gatebench::gateway {

struct StringHash {
  using is_transparent = void;
  std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
};
using CounterMap = std::unordered_map<std::string, std::uint64_t, StringHash, std::equal_to<>>;

class ControlStats {
 public:
  // Upper bounds of the latency buckets, microseconds (the last bucket is +Inf).
  static constexpr std::array<std::int64_t, 16> kBucketsUs = {
      100,   250,    500,    1000,   2500,    5000,    10000,   25000,
      50000, 100000, 250000, 500000, 1000000, 2500000, 5000000, 10000000};

  ControlStats();

  // One UDP payload as sent by AccessLogSink: header line, then TSV records.
  void ingest_datagram(std::string_view datagram);

  std::string metrics_text() const;
  std::string stats_json() const;

  std::uint64_t datagrams() const { return datagrams_; }
  std::uint64_t malformed_datagrams() const { return malformed_; }
  std::uint64_t lost_datagrams() const { return lost_; }
  std::uint64_t records() const { return records_; }
  std::uint64_t record_errors() const { return record_errors_; }

 private:
  void count(const access_log::AccessLogRecord& r);

  std::uint64_t datagrams_ = 0;
  std::uint64_t malformed_ = 0;
  std::uint64_t lost_ = 0;
  std::uint64_t reordered_ = 0;
  std::uint64_t records_ = 0;
  std::uint64_t record_errors_ = 0;
  std::unordered_map<std::uint32_t, std::uint64_t> next_sequence_;  // per sending worker
  CounterMap by_host_status_;                                       // "host\tstatus"
  std::map<std::uint16_t, std::uint64_t> by_status_;
  CounterMap by_host_;
  CounterMap by_rule_action_;  // "rule\taction"
  std::array<std::uint64_t, 7> by_action_{};
  std::array<std::uint64_t, kBucketsUs.size() + 1> latency_{};
  std::int64_t latency_sum_us_ = 0;
  std::uint64_t latency_count_ = 0;
  std::vector<access_log::AccessLogRecord> records_buf_;
  std::vector<access_log::AccessLogError> errors_buf_;
  std::string key_;
};

}  // namespace gatebench::gateway
