#pragma once
// Loopback checks around service start: is a port free, is a service accepting / answering.
#include <chrono>
#include <optional>
#include <string>

namespace gatebench::macro {

// True when nothing listens on 127.0.0.1:port (a bind succeeds).
bool port_free(int port);

// True when a TCP connection to 127.0.0.1:port is accepted within `timeout`.
bool tcp_connects(int port, std::chrono::milliseconds timeout);

// Sends "GET path HTTP/1.1" to 127.0.0.1:port and returns the response status code, or nothing
// when there is no complete status line within `timeout`.
std::optional<int> http_status(int port, const std::string& path,
                               std::chrono::milliseconds timeout);

}  // namespace gatebench::macro
