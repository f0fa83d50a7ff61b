#pragma once
// Loopback checks around service start: is a port free, is a service accepting / answering.
#include <chrono>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace gatebench::macro {

// True when nothing listens on 127.0.0.1:port (a bind succeeds).
bool port_free(int port);

// True when a TCP connection to 127.0.0.1:port is accepted within `timeout`.
bool tcp_connects(int port, std::chrono::milliseconds timeout);

// Sends "GET path HTTP/1.1" to 127.0.0.1:port and returns the response status code, or nothing
// when there is no complete status line within `timeout`.
std::optional<int> http_status(int port, const std::string& path,
                               std::chrono::milliseconds timeout);

struct HttpReply {
  int status = 0;
  std::vector<std::pair<std::string, std::string>> headers;  // in order, names as sent
};

// One GET over a fresh connection (Connection: close) with extra "Name: value" headers; the reply
// head only. Nothing on connection failure, timeout or a malformed head.
std::optional<HttpReply> http_get(int port, const std::string& path,
                                  const std::vector<std::string>& headers,
                                  std::chrono::milliseconds timeout);

}  // namespace gatebench::macro
