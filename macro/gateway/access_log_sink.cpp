#include "macro/gateway/access_log_sink.hpp"

#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include <charconv>
#include <cstdio>
#include <span>

#include "micro/core/access_log/write.hpp"

namespace gatebench::gateway {
namespace {

// A longer record has its longest string fields cut (access_log::write_tsv).
constexpr std::size_t kMaxRecord = 8192;

}  // namespace

AccessLogSink::AccessLogSink(std::uint32_t worker_id, const sockaddr_in& control,
                             std::uint32_t flush_ms)
    : worker_id_(worker_id),
      control_(control),
      flush_ms_(flush_ms),
      buf_(std::make_unique<char[]>(kDatagramCapacity)) {
  fd_ = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  int size = 4 << 20;
  setsockopt(fd_, SOL_SOCKET, SO_SNDBUF, &size, sizeof size);
}

AccessLogSink::~AccessLogSink() {
  if (fd_ >= 0) ::close(fd_);
}

void AccessLogSink::add(const access_log::AccessLogRecord& r, std::string_view method,
                        std::uint64_t now_ms) {
  if (len_ + kMaxRecord > kDatagramCapacity) flush();
  if (records_ == 0) first_record_ms_ = now_ms;
  access_log::TsvWriteOptions options;
  options.other_method = method;
  len_ += access_log::write_tsv(std::span<char>(buf_.get() + len_, kMaxRecord), r, options);
  if (++records_ >= kRecordsPerDatagram) flush();
}

void AccessLogSink::tick(std::uint64_t now_ms) {
  if (records_ > 0 && now_ms - first_record_ms_ >= flush_ms_) flush();
}

void AccessLogSink::flush() {
  if (records_ == 0) return;
  char head[96];
  int hl = std::snprintf(head, sizeof head, "#gatebench-log v1 %u %llu %zu\n", worker_id_,
                         static_cast<unsigned long long>(sequence_), records_);
  iovec iov[2] = {{head, static_cast<std::size_t>(hl)}, {buf_.get(), len_}};
  msghdr msg{};
  msg.msg_name = &control_;
  msg.msg_namelen = sizeof control_;
  msg.msg_iov = iov;
  msg.msg_iovlen = 2;
  // A lost datagram shows up as a sequence gap at the control plane; no retry here.
  if (sendmsg(fd_, &msg, MSG_DONTWAIT) < 0) ++send_failures_;
  ++sequence_;
  len_ = 0;
  records_ = 0;
}

bool parse_datagram_header(std::string_view d, DatagramHeader& out) {
  static constexpr std::string_view kMagic = "#gatebench-log v1 ";
  if (d.substr(0, kMagic.size()) != kMagic) return false;
  std::size_t nl = d.find('\n');
  if (nl == std::string_view::npos) return false;
  const char* p = d.data() + kMagic.size();
  const char* e = d.data() + nl;
  auto num = [&](std::uint64_t& v) {
    auto r = std::from_chars(p, e, v);
    if (r.ec != std::errc() || r.ptr == p) return false;
    p = r.ptr;
    return true;
  };
  std::uint64_t worker = 0, seq = 0, records = 0;
  if (!num(worker) || p == e || *p++ != ' ' || !num(seq) || p == e || *p++ != ' ' ||
      !num(records) || p != e || worker > 0xffffffffu || records > 0xffffffffu) {
    return false;
  }
  out.worker = static_cast<std::uint32_t>(worker);
  out.sequence = seq;
  out.records = static_cast<std::uint32_t>(records);
  out.length = nl + 1;
  return true;
}

}  // namespace gatebench::gateway
