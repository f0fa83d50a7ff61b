#include "tests/macro/load/test_server.hpp"

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <stdexcept>
#include <string_view>

namespace gatebench::load::testing {

bool send_all(int fd, std::string_view data) {
  while (!data.empty()) {
    const ssize_t n = send(fd, data.data(), data.size(), MSG_NOSIGNAL);
    if (n <= 0) return false;
    data.remove_prefix(static_cast<std::size_t>(n));
  }
  return true;
}

namespace {

void reset_close(int fd) {
  linger l{1, 0};
  setsockopt(fd, SOL_SOCKET, SO_LINGER, &l, sizeof l);
  close(fd);
}

std::size_t content_length(std::string_view head) {
  std::string lower(head);
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  const std::size_t at = lower.find("\r\ncontent-length:");
  if (at == std::string::npos) return 0;
  return std::strtoul(lower.c_str() + at + 17, nullptr, 10);
}

int listen_loopback(std::uint16_t& port) {
  const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  const int one = 1;
  setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 || listen(fd, 512) != 0)
    throw std::runtime_error("test server: cannot listen on loopback");
  socklen_t len = sizeof addr;
  getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  port = ntohs(addr.sin_port);
  return fd;
}

}  // namespace

std::uint16_t closed_port() {
  std::uint16_t port = 0;
  close(listen_loopback(port));
  return port;
}

Acceptor::Acceptor(std::function<void(int fd)> serve) : serve_(std::move(serve)) {
  listen_fd_ = listen_loopback(port_);
  thread_ = std::thread([this] { accept_loop(); });
}

void Acceptor::stop() {
  if (stopping_.exchange(true)) return;
  thread_.join();
  close(listen_fd_);
  std::lock_guard lock(mutex_);
  for (auto& t : workers_) t.join();
  workers_.clear();
}

void Acceptor::accept_loop() {
  while (!stopping_.load()) {
    pollfd p{listen_fd_, POLLIN, 0};
    if (poll(&p, 1, 20) <= 0) continue;
    const int fd = accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0) continue;
    connections_ += 1;
    std::lock_guard lock(mutex_);
    workers_.emplace_back([this, fd] { serve_(fd); });
  }
}

TestServer::TestServer(Behaviour behaviour)
    : behaviour_(behaviour), acceptor_([this](int fd) { serve(fd); }) {}

TestServer::~TestServer() {
  stop();
}

std::string TestServer::url(const std::string& path) const {
  return "http://127.0.0.1:" + std::to_string(acceptor_.port()) + path;
}

void TestServer::serve(int fd) {
  const int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  if (behaviour_ == Behaviour::kResetEarly) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    reset_close(fd);
    return;
  }
  std::string in;
  char buf[65536];
  for (;;) {
    // Wait for a complete request (headers and Content-Length body), checking for stop.
    std::size_t head_end;
    std::size_t need = 0;
    for (;;) {
      head_end = in.find("\r\n\r\n");
      if (head_end != std::string::npos) {
        need = head_end + 4 + content_length(std::string_view(in).substr(0, head_end + 2));
        if (in.size() >= need) break;
      }
      pollfd p{fd, POLLIN, 0};
      if (acceptor_.stopping()) {
        close(fd);
        return;
      }
      if (poll(&p, 1, 20) <= 0) continue;
      const ssize_t n = recv(fd, buf, sizeof buf, 0);
      if (n <= 0) {
        close(fd);
        return;
      }
      in.append(buf, static_cast<std::size_t>(n));
    }
    const std::string request = in.substr(0, head_end);
    in.erase(0, need);
    const std::uint64_t number = ++requests_;
    const std::size_t sp1 = request.find(' ');
    const std::string path = request.substr(sp1 + 1, request.find(' ', sp1 + 1) - sp1 - 1);
    const std::string_view ok = "HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nok\n";
    bool keep = true;
    switch (behaviour_) {
      case Behaviour::kOk:
        keep = send_all(fd, ok);
        break;
      case Behaviour::kPathDelay:
        if (path.starts_with("/d/"))
          std::this_thread::sleep_for(std::chrono::milliseconds(std::stoi(path.substr(3))));
        keep = send_all(fd, ok);
        break;
      case Behaviour::kStallOnce:
        if (number == stall_at_) std::this_thread::sleep_for(std::chrono::milliseconds(stall_ms_));
        keep = send_all(fd, ok);
        break;
      case Behaviour::kCloseEach:
        send_all(fd, "HTTP/1.1 200 OK\r\nContent-Length: 3\r\nConnection: close\r\n\r\nok\n");
        keep = false;
        break;
      case Behaviour::kGarbage:
        send_all(fd, "SSH-2.0-OpenSSH_9.2\r\n\r\n");
        keep = false;
        break;
      case Behaviour::kTruncated:
        send_all(fd, "HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n0123456789");
        keep = false;
        break;
      case Behaviour::kHang:
        while (!acceptor_.stopping()) std::this_thread::sleep_for(std::chrono::milliseconds(10));
        keep = false;
        break;
      case Behaviour::kReset:
        reset_close(fd);
        return;
      case Behaviour::kChunked:
        keep = send_all(fd,
                        "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
                        "5\r\nhello\r\n1;ext=1\r\n \r\n10\r\n0123456789abcdef\r\n"
                        "0\r\nX-Trailer: yes\r\n\r\n");
        break;
      case Behaviour::kLarge: {
        const std::string body(1 << 20, 'x');
        keep = send_all(fd, "HTTP/1.1 200 OK\r\nContent-Length: " + std::to_string(body.size()) +
                                "\r\n\r\n" + body);
        break;
      }
      case Behaviour::kNoLength:
        send_all(fd, "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\nuntil the close");
        keep = false;
        break;
      case Behaviour::kStatusByPath:
        keep = send_all(fd, path.starts_with("/admin")
                                ? "HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\n\r\n"
                                : ok);
        break;
      case Behaviour::kResetEarly:
        break;
    }
    if (!keep) {
      close(fd);
      return;
    }
  }
}

}  // namespace gatebench::load::testing
