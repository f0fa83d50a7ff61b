#pragma once
// Checks around service start: is a port free here, is a service accepting / answering (over
// loopback, or at the IPv4 address of the host it runs on).
#include <chrono>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace gatebench::macro {

// True when nothing listens on 127.0.0.1:port (a bind succeeds).
bool port_free(int port);

// True when a TCP connection to address:port is accepted within `timeout`.
bool tcp_connects(int port, std::chrono::milliseconds timeout,
                  const std::string& address = "127.0.0.1");

// Sends "GET path HTTP/1.1" to address:port and returns the response status code, or nothing
// when there is no complete status line within `timeout`.
std::optional<int> http_status(int port, const std::string& path, std::chrono::milliseconds timeout,
                               const std::string& address = "127.0.0.1");

struct HttpReply {
  int status = 0;
  std::vector<std::pair<std::string, std::string>> headers;  // in order, names as sent
};

// One GET over a fresh connection (Connection: close) with extra "Name: value" headers; the reply
// head only. Nothing on connection failure, timeout or a malformed head.
std::optional<HttpReply> http_get(int port, const std::string& path,
                                  const std::vector<std::string>& headers,
                                  std::chrono::milliseconds timeout,
                                  const std::string& address = "127.0.0.1");

}  // namespace gatebench::macro
