#include "macro/driver/system/net_probe.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string_view>

namespace gatebench::macro {
namespace {

struct Socket {
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  ~Socket() {
    if (fd >= 0) close(fd);
  }
};

sockaddr_in loopback(int port) {
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  return addr;
}

// The address as the hosts file gives it: an IPv4 address, or a name resolved to its first IPv4
// address; nothing when it does not resolve.
std::optional<sockaddr_in> ipv4(const std::string& address, int port) {
  sockaddr_in addr = loopback(port);
  in_addr parsed{};
  if (inet_pton(AF_INET, address.c_str(), &parsed) == 1) {
    addr.sin_addr = parsed;
    return addr;
  }
  addrinfo hints{};
  hints.ai_family = AF_INET;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  if (getaddrinfo(address.c_str(), nullptr, &hints, &found) != 0 || found == nullptr)
    return std::nullopt;
  addr.sin_addr = reinterpret_cast<const sockaddr_in*>(found->ai_addr)->sin_addr;
  freeaddrinfo(found);
  return addr;
}

int remaining_ms(std::chrono::steady_clock::time_point deadline) {
  auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
      deadline - std::chrono::steady_clock::now());
  return left.count() > 0 ? static_cast<int>(left.count()) : 0;
}

bool wait_for(int fd, short events, std::chrono::steady_clock::time_point deadline) {
  pollfd p{fd, events, 0};
  for (;;) {
    int n = poll(&p, 1, remaining_ms(deadline));
    if (n > 0) return true;
    if (n == 0 || errno != EINTR) return false;
  }
}

bool connect_until(const Socket& s, const std::string& address, int port,
                   std::chrono::steady_clock::time_point deadline) {
  const std::optional<sockaddr_in> to = ipv4(address, port);
  if (s.fd < 0 || !to) return false;
  sockaddr_in addr = *to;
  if (connect(s.fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0) return true;
  if (errno != EINPROGRESS) return false;
  if (!wait_for(s.fd, POLLOUT, deadline)) return false;
  int error = 0;
  socklen_t len = sizeof error;
  getsockopt(s.fd, SOL_SOCKET, SO_ERROR, &error, &len);
  return error == 0;
}

}  // namespace

bool port_free(int port) {
  Socket s;
  if (s.fd < 0) return false;
  // SO_REUSEADDR as the services use it: a TIME_WAIT left by the previous scenario is not "busy".
  int one = 1;
  setsockopt(s.fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  sockaddr_in addr = loopback(port);
  return bind(s.fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0;
}

bool tcp_connects(int port, std::chrono::milliseconds timeout, const std::string& address) {
  Socket s;
  return connect_until(s, address, port, std::chrono::steady_clock::now() + timeout);
}

std::optional<HttpReply> http_get(int port, const std::string& path,
                                  const std::vector<std::string>& headers,
                                  std::chrono::milliseconds timeout, const std::string& address) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  Socket s;
  if (!connect_until(s, address, port, deadline)) return std::nullopt;
  std::string request = "GET " + path + " HTTP/1.1\r\n";
  bool has_host = false;
  for (const auto& h : headers) {
    has_host |= h.size() >= 5 && strncasecmp(h.c_str(), "host:", 5) == 0;
    request += h + "\r\n";
  }
  if (!has_host) request += "Host: " + address + ":" + std::to_string(port) + "\r\n";
  request += "Connection: close\r\n\r\n";
  size_t sent = 0;
  while (sent < request.size()) {
    ssize_t n = send(s.fd, request.data() + sent, request.size() - sent, MSG_NOSIGNAL);
    if (n > 0) {
      sent += static_cast<size_t>(n);
    } else if (n < 0 && (errno == EAGAIN || errno == EINTR)) {
      if (!wait_for(s.fd, POLLOUT, deadline)) return std::nullopt;
    } else {
      return std::nullopt;
    }
  }
  std::string head;
  char buffer[4096];
  while (head.find("\r\n\r\n") == std::string::npos && head.size() < 65536) {
    ssize_t n = recv(s.fd, buffer, sizeof buffer, 0);
    if (n > 0) {
      head.append(buffer, static_cast<size_t>(n));
    } else if (n < 0 && (errno == EAGAIN || errno == EINTR)) {
      if (!wait_for(s.fd, POLLIN, deadline)) return std::nullopt;
    } else {
      break;
    }
  }
  size_t end = head.find("\r\n\r\n");
  if (end == std::string::npos) return std::nullopt;
  head.resize(end + 2);
  // "HTTP/1.1 200 OK"
  if (head.size() < 12 || head.compare(0, 5, "HTTP/") != 0) return std::nullopt;
  size_t space = head.find(' ');
  if (space == std::string::npos || space + 4 > head.size()) return std::nullopt;
  HttpReply reply;
  for (size_t i = space + 1; i < space + 4; ++i) {
    if (head[i] < '0' || head[i] > '9') return std::nullopt;
    reply.status = reply.status * 10 + (head[i] - '0');
  }
  size_t line = head.find("\r\n") + 2;
  while (line < head.size()) {
    size_t next = head.find("\r\n", line);
    std::string_view field(head.data() + line, next - line);
    size_t colon = field.find(':');
    if (colon != std::string_view::npos) {
      std::string_view value = field.substr(colon + 1);
      while (!value.empty() && (value.front() == ' ' || value.front() == '\t'))
        value.remove_prefix(1);
      reply.headers.emplace_back(std::string(field.substr(0, colon)), std::string(value));
    }
    line = next + 2;
  }
  return reply;
}

std::optional<int> http_status(int port, const std::string& path, std::chrono::milliseconds timeout,
                               const std::string& address) {
  auto reply = http_get(port, path, {}, timeout, address);
  if (!reply) return std::nullopt;
  return reply->status;
}

}  // namespace gatebench::macro
