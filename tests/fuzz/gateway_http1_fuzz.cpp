// The gateway worker's HTTP/1.1 path (request_flow.cpp, proxy.cpp) on an arbitrary client byte
// stream: one real worker loop runs in the process on loopback sockets, in front of an upstream
// thread that reads what it forwards with gatecore's strict parsers. Each input is one client
// connection: pipelined requests, bodies (Content-Length, chunked, inspected by the rules or
// streamed), and the client's end at any byte (a half close, or an abrupt close).
//
// Input: byte 0 picks the mode: bits 0-3 the size of each write (1 + 37 n bytes), bit 4 an
// abrupt close (no response is read) instead of a half close after the last byte. The rest is
// what the client sends; the Host header picks the gateway host: `waf.test` (rules, body_limit
// 256, reject), `prefix.test` (rules, body_limit 64, scan_prefix), any other the streaming host.
// The upstream answers by the target: `/chunked`, `/close` (until close), `/big` (40,000 bytes
// through the 16 KiB window), else 2 bytes.
//
// Besides the sanitizers' checks (in the worker thread too):
// - every request the gateway forwards is one the upstream's parser reads (a valid head, a
//   chunked body it decodes): gateway and upstream never disagree on where a request ends;
// - what the client reads until the gateway's close is whole responses (unless a HEAD request
//   makes its framing the client's guess);
// - after each input the gateway still answers a new connection's request with the upstream's
//   200, within 3 s (no hung or dead worker).
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <string_view>
#include <thread>

#include "macro/gateway/config.hpp"
#include "macro/gateway/shared_state.hpp"
#include "macro/gateway/worker.hpp"
#include "micro/core/http1/chunked.hpp"
#include "micro/core/http1/request_head.hpp"
#include "micro/core/http1/response_head.hpp"

namespace {

namespace gw = gatebench::gateway;
namespace http1 = gatebench::http1;

constexpr int kClientWaitMs = 3000;
constexpr std::size_t kMaxRead = 1 << 22;

[[noreturn]] void fail(const char* why) {
  std::fprintf(stderr, "gateway_http1_fuzz: %s\n", why);
  std::abort();
}

std::int64_t now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

int listen_loopback(int& port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof a;
  if (fd < 0 || ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 ||
      ::listen(fd, 256) != 0 || ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) != 0)
    fail("cannot listen on loopback");
  port = ntohs(a.sin_port);
  return fd;
}

bool send_all(int fd, std::string_view s) {
  while (!s.empty()) {
    const ssize_t n = ::send(fd, s.data(), s.size(), MSG_NOSIGNAL);
    if (n <= 0) return false;
    s.remove_prefix(static_cast<std::size_t>(n));
  }
  return true;
}

// The upstream's side of one gateway connection: requests read with the strict parsers, each
// answered as its target asks; ends when the gateway closes.
void serve_upstream(int fd) {
  std::string buf;
  char chunk[16384];
  auto req = std::make_unique<http1::RequestHead>();
  auto more = [&] {
    const ssize_t n = ::recv(fd, chunk, sizeof chunk, 0);
    if (n <= 0) return false;
    buf.append(chunk, static_cast<std::size_t>(n));
    return true;
  };
  for (;;) {
    http1::HeadStatus st;
    while ((st = http1::parse_request_head(buf, 65536, *req)) == http1::HeadStatus::kIncomplete) {
      if (!more()) {
        ::close(fd);
        return;
      }
    }
    if (st != http1::HeadStatus::kComplete) fail("the gateway forwarded a head its parser rejects");
    const std::string target(req->target);
    const bool head = req->is_head;
    std::size_t used = req->head_len;
    if (req->body == http1::BodyKind::kLength) {
      while (buf.size() - used < req->content_length) {
        if (!more()) {
          ::close(fd);  // the client left in its body: the gateway closes this connection
          return;
        }
      }
      used += req->content_length;
    } else if (req->body == http1::BodyKind::kChunked) {
      http1::ChunkedDecoder dec;
      for (;;) {
        used += dec.feed(std::string_view(buf).substr(used));
        if (dec.error()) fail("the gateway forwarded a chunked body the upstream cannot decode");
        if (dec.done()) break;
        if (!more()) {
          ::close(fd);
          return;
        }
      }
    }
    buf.erase(0, used);
    std::string resp;
    bool close_after = false;
    if (target.find("/chunked") != std::string::npos) {
      resp = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n";
      if (!head) resp += "5;a=b\r\nhello\r\n0\r\nX-T: 1\r\n\r\n";
    } else if (target.find("/close") != std::string::npos) {
      resp = "HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n";
      if (!head) resp += "until close";
      close_after = true;
    } else if (target.find("/big") != std::string::npos) {
      resp = "HTTP/1.1 200 OK\r\nContent-Length: 40000\r\n\r\n";
      if (!head) resp.append(40000, 'b');
    } else {
      resp = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n";
      if (!head) resp += "ok";
    }
    if (!send_all(fd, resp) || close_after) {
      ::close(fd);
      return;
    }
  }
}

// One gateway worker and its upstream for the whole run (libFuzzer never returns from main).
class Harness {
 public:
  Harness() {
    std::signal(SIGPIPE, SIG_IGN);  // as gatebench-gateway does
    up_fd_ = listen_loopback(up_port_);
    std::thread([fd = up_fd_] {
      for (;;) {
        const int c = ::accept4(fd, nullptr, nullptr, SOCK_CLOEXEC);
        if (c >= 0) std::thread(serve_upstream, c).detach();
      }
    }).detach();
    int probe = listen_loopback(port_);
    ::close(probe);  // the worker binds the port itself
    char tmpl[] = "/tmp/gateway-http1-fuzz-XXXXXX";
    if (::mkdtemp(tmpl) == nullptr) fail("mkdtemp");
    dir_ = tmpl;
    std::ofstream(dir_ / "rules.json")
        << R"({"exploit": {"mode": "block", "headers": true}, "rules": [
  {"id": "block-admin", "action": "block", "when": [{"field": "path", "op": "prefix", "value": "/admin"}]},
  {"id": "block-body-php", "action": "block", "when": [{"field": "body", "op": "contains", "value": "<?php"}]}]})";
    const std::string up = "\"127.0.0.1:" + std::to_string(up_port_) + "\"";
    const std::string json =
        R"({"workers": 1, "listeners": [{"port": )" + std::to_string(port_) +
        R"(}], "limits": {"max_header_bytes": 4096, "client_header_timeout_ms": 2000,
             "client_body_timeout_ms": 2000, "keepalive_timeout_ms": 2000, "send_timeout_ms": 2000},
           "hosts": [
             {"names": ["*"], "upstream": )" +
        up + R"(, "pool_size": 4, "read_timeout_ms": 2000},
             {"names": ["waf.test"], "upstream": )" +
        up + R"(, "rules": "rules.json", "body_limit": 256, "read_timeout_ms": 2000},
             {"names": ["prefix.test"], "upstream": )" +
        up +
        R"(, "rules": "rules.json", "body_limit": 64, "body_overflow": "scan_prefix",
              "read_timeout_ms": 2000}]})";
    auto pub = std::make_shared<gw::Published>();
    pub->config = gw::parse_config(json, (dir_ / "gw.json").string());
    pub->generation = 1;
    shared_.cache_counter_slots = 1;
    shared_.cache_counters = std::make_unique<gw::CacheCounters[]>(1);
    shared_.publish(pub);
    worker_ = std::make_unique<gw::Worker>(0, shared_);
    worker_->start();
    std::filesystem::remove_all(dir_);  // read at load time, not needed by the worker
  }
  int port() const { return port_; }

 private:
  int up_fd_ = -1;
  int up_port_ = 0;
  int port_ = 0;
  std::filesystem::path dir_;
  gw::SharedState shared_;
  std::unique_ptr<gw::Worker> worker_;
};

Harness& harness() {
  // Never destroyed: the worker thread runs until the process exits.
  static Harness& h = *std::make_unique<Harness>().release();
  return h;
}

int connect_gateway(int port) {
  for (int attempt = 0; attempt < 300; ++attempt) {
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    a.sin_port = htons(static_cast<std::uint16_t>(port));
    if (::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0) {
      int one = 1;
      ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
      return fd;
    }
    ::close(fd);
    std::this_thread::sleep_for(std::chrono::milliseconds(10));  // the worker is starting
  }
  fail("cannot connect to the gateway");
}

// Sends `in` in writes of `step` bytes while reading what comes back, then half-closes (or
// closes) and reads until the gateway closes. False when the read did not end in a clean EOF.
bool exchange(int fd, std::string_view in, std::size_t step, bool abrupt, std::string& got) {
  std::size_t sent = 0;
  bool wr_closed = false;
  const std::int64_t deadline = now_ms() + kClientWaitMs;
  char buf[16384];
  for (;;) {
    if (sent == in.size() && !wr_closed) {
      if (abrupt) return false;
      ::shutdown(fd, SHUT_WR);
      wr_closed = true;
    }
    const std::int64_t left = deadline - now_ms();
    if (left <= 0) return false;
    pollfd p{fd, static_cast<short>(POLLIN | (wr_closed ? 0 : POLLOUT)), 0};
    if (::poll(&p, 1, static_cast<int>(left)) <= 0) continue;
    if ((p.revents & POLLOUT) != 0 && !wr_closed) {
      const std::size_t n = std::min(step, in.size() - sent);
      const ssize_t w = ::send(fd, in.data() + sent, n, MSG_NOSIGNAL | MSG_DONTWAIT);
      if (w > 0) {
        sent += static_cast<std::size_t>(w);
      } else if (w < 0 && errno != EAGAIN) {
        sent = in.size();  // the gateway closed: what it answered is still to be read
      }
    }
    if ((p.revents & (POLLIN | POLLHUP | POLLERR)) != 0) {
      const ssize_t r = ::recv(fd, buf, sizeof buf, MSG_DONTWAIT);
      if (r == 0) return wr_closed;
      if (r < 0 && errno != EAGAIN) return false;  // reset: bytes may be lost
      if (r > 0 && got.size() < kMaxRead) got.append(buf, static_cast<std::size_t>(r));
    }
  }
}

// What a client read until the gateway's clean close is whole responses.
void check_responses(std::string_view got) {
  auto rh = std::make_unique<http1::ResponseHead>();
  while (!got.empty()) {
    if (http1::parse_response_head(got, 65536, false, *rh) != http1::HeadStatus::kComplete)
      fail("the client read a response head that is not whole and valid");
    got.remove_prefix(rh->head_len);
    switch (rh->body) {
      case http1::BodyKind::kNone:
        break;
      case http1::BodyKind::kLength:
        if (got.size() < rh->content_length) fail("a response body ended before its length");
        got.remove_prefix(static_cast<std::size_t>(rh->content_length));
        break;
      case http1::BodyKind::kChunked: {
        http1::ChunkedDecoder dec;
        got.remove_prefix(dec.feed(got));
        if (!dec.done()) fail("a chunked response body is not whole");
        break;
      }
      case http1::BodyKind::kUntilClose:
        return;
    }
  }
}

void check_alive(int port) {
  const int fd = connect_gateway(port);
  std::string got;
  exchange(fd, "GET /health HTTP/1.1\r\nHost: health.test\r\nConnection: close\r\n\r\n", 4096,
           false, got);
  ::close(fd);
  if (!got.starts_with("HTTP/1.1 200 ")) fail("the gateway no longer answers a plain GET");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  // No bytes: the listener's deferred accept would hold the connection, not the worker.
  if (size < 2) return 0;
  const int port = harness().port();
  const std::uint8_t mode = data[0];
  const std::string_view in(reinterpret_cast<const char*>(data + 1), size - 1);
  const std::size_t step = 1 + (mode & 0x0F) * 37;
  const bool abrupt = (mode & 0x10) != 0;
  const int fd = connect_gateway(port);
  std::string got;
  const bool clean = exchange(fd, in, step, abrupt, got);
  ::close(fd);
  if (clean && in.find("HEAD") == std::string_view::npos) check_responses(got);
  check_alive(port);
  return 0;
}
