// The target URL and its resolved address (configuration time only).
#pragma once

#include <sys/socket.h>

#include <cstdint>
#include <string>

namespace gatebench::load {

struct Target {
  bool tls = false;
  std::string host;  // as written, without brackets for IPv6
  std::uint16_t port = 0;
  std::string path;         // path and query, at least "/"
  std::string host_header;  // host[:port] as the Host header wants it
  bool host_is_ip = false;  // SNI is sent only for names
  sockaddr_storage addr{};
  socklen_t addr_len = 0;
};

// Parses http(s)://host[:port][/path][?query]; throws common::UsageError naming what is wrong.
Target parse_url(const std::string& url);
// Resolves target.host (first address getaddrinfo returns); throws common::UsageError when it
// cannot.
void resolve(Target& target);

}  // namespace gatebench::load
