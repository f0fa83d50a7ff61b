#include "macro/gateway/access_log_sink.hpp"

#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <cstring>

namespace gatebench::gateway {
namespace {

constexpr std::size_t kMaxRecord = 8192;  // a longer record is cut (fields are truncated)

class Writer {
 public:
  Writer(char* p, std::size_t cap) : p_(p), cap_(cap) {}
  std::size_t size() const { return len_; }
  bool room(std::size_t n) const { return len_ + n <= cap_; }
  void ch(char c) {
    if (room(1)) p_[len_++] = c;
  }
  void raw(std::string_view s) {
    std::size_t n = std::min(s.size(), cap_ - len_);
    for (std::size_t i = 0; i < n; ++i) p_[len_ + i] = s[i];
    len_ += n;
  }
  void u64(std::uint64_t v) {
    char tmp[24];
    auto r = std::to_chars(tmp, tmp + sizeof tmp, v);
    raw(std::string_view(tmp, static_cast<std::size_t>(r.ptr - tmp)));
  }
  // Seconds with six fraction digits, as docs/access-log.md writes times and durations.
  void seconds(std::int64_t us) {
    if (us < 0) us = 0;
    u64(static_cast<std::uint64_t>(us / 1000000));
    char frac[8];
    std::snprintf(frac, sizeof frac, ".%06u", static_cast<unsigned>(us % 1000000));
    raw(std::string_view(frac, 7));
  }
  void duration(std::int64_t us) {
    if (us < 0) {
      ch('-');
    } else {
      seconds(us);
    }
  }
  void ipv4(std::uint32_t ip) {
    u64(ip >> 24);
    ch('.');
    u64((ip >> 16) & 255);
    ch('.');
    u64((ip >> 8) & 255);
    ch('.');
    u64(ip & 255);
  }
  // A string field: "-" when empty; tab, newline, CR, backslash and other control bytes escaped.
  void text(std::string_view s) {
    if (s.empty()) {
      ch('-');
      return;
    }
    if (s == "-") {  // a bare "-" means empty in the format; the value itself is escaped
      raw("\\x2d");
      return;
    }
    static constexpr char kHex[] = "0123456789abcdef";
    for (char c : s) {
      unsigned char u = static_cast<unsigned char>(c);
      if (u >= 0x20 && u != 0x7f && c != '\\') {
        ch(c);
        continue;
      }
      if (!room(4)) return;
      switch (c) {
        case '\\':
          raw("\\\\");
          break;
        case '\t':
          raw("\\t");
          break;
        case '\n':
          raw("\\n");
          break;
        case '\r':
          raw("\\r");
          break;
        default: {
          char esc[4] = {'\\', 'x', kHex[u >> 4], kHex[u & 15]};
          raw(std::string_view(esc, 4));
        }
      }
    }
  }

 private:
  char* p_;
  std::size_t cap_;
  std::size_t len_ = 0;
};

bool valid_method(std::string_view m) {
  if (m.empty() || m.size() > 16) return false;
  for (char c : m) {
    if (c < 'A' || c > 'Z') return false;
  }
  return true;
}

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

void AccessLogSink::add(const LogFields& f, std::uint64_t now_ms) {
  if (len_ + kMaxRecord > kDatagramCapacity) flush();
  if (records_ == 0) first_record_ms_ = now_ms;
  Writer w(buf_.get() + len_, kMaxRecord);
  w.seconds(f.time_us);
  w.ch('\t');
  w.ipv4(f.client_ip);
  w.ch('\t');
  w.raw(valid_method(f.method) ? f.method : std::string_view("OTHER"));
  w.ch('\t');
  w.raw(f.https ? "https" : "http");
  w.ch('\t');
  w.text(f.host);
  w.ch('\t');
  w.text(f.path);
  w.ch('\t');
  w.text(f.query);
  w.ch('\t');
  w.u64(f.status);
  w.ch('\t');
  w.u64(f.bytes_sent);
  w.ch('\t');
  w.duration(f.request_time_us);
  w.ch('\t');
  w.duration(f.upstream_time_us);
  w.ch('\t');
  w.text(f.user_agent);
  w.ch('\t');
  w.text(f.referer);
  w.ch('\t');
  w.text(f.rule_id);
  w.ch('\t');
  w.raw(f.action.empty() ? std::string_view("-") : f.action);
  // The terminating newline always fits: a long field is cut short instead.
  std::size_t n = w.size();
  if (n == kMaxRecord) --n;
  buf_[len_ + n] = '\n';
  len_ += n + 1;
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
