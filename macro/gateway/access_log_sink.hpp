// Per-worker access-log buffer: writes one TSV record per request (access_log::write_tsv) and
// sends them to gatebench-control over UDP on loopback, about 100 records per datagram, at least
// once per flush interval. Each datagram starts with a header line carrying the worker id and a
// per-worker sequence number so the control plane can count lost datagrams (docs/gateway.md).
#pragma once

#include <netinet/in.h>

#include <cstdint>
#include <memory>
#include <string_view>

#include "micro/core/access_log/record.hpp"

namespace gatebench::gateway {

class AccessLogSink {
 public:
  static constexpr std::size_t kRecordsPerDatagram = 100;
  // Datagrams stay below the loopback MTU-free UDP limit with room for long records.
  static constexpr std::size_t kDatagramCapacity = 60000;

  AccessLogSink(std::uint32_t worker_id, const sockaddr_in& control, std::uint32_t flush_ms);
  ~AccessLogSink();
  AccessLogSink(const AccessLogSink&) = delete;
  AccessLogSink& operator=(const AccessLogSink&) = delete;

  // `method` is the request's method token, written when the record's method is other.
  void add(const access_log::AccessLogRecord& r, std::string_view method, std::uint64_t now_ms);
  // Sends the pending records if the flush interval has passed (call from the loop's tick).
  void tick(std::uint64_t now_ms);
  void flush();

  std::uint64_t datagrams_sent() const { return sequence_; }
  std::uint64_t send_failures() const { return send_failures_; }

 private:
  void start_datagram();

  int fd_ = -1;
  std::uint32_t worker_id_;
  sockaddr_in control_;
  std::uint32_t flush_ms_;
  std::unique_ptr<char[]> buf_;
  std::size_t len_ = 0;
  std::size_t header_len_ = 0;
  std::size_t records_ = 0;
  std::uint64_t sequence_ = 0;
  std::uint64_t send_failures_ = 0;
  std::uint64_t first_record_ms_ = 0;
};

// Datagram header line: "#gatebench-log v1 <worker> <sequence> <records>\n" followed by the
// records. Parsed by the control plane with parse_datagram_header().
struct DatagramHeader {
  std::uint32_t worker = 0;
  std::uint64_t sequence = 0;
  std::uint32_t records = 0;
  std::size_t length = 0;  // bytes of the header line including '\n'
};
bool parse_datagram_header(std::string_view datagram, DatagramHeader& out);

}  // namespace gatebench::gateway
