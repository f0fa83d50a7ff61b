#include "macro/load/url.hpp"

#include <arpa/inet.h>
#include <netdb.h>

#include <charconv>
#include <cstring>
#include <memory>

#include "macro/common/usage_error.hpp"

namespace gatebench::load {

Target parse_url(const std::string& url) {
  Target t;
  std::string_view rest = url;
  if (rest.starts_with("http://")) {
    rest.remove_prefix(7);
  } else if (rest.starts_with("https://")) {
    t.tls = true;
    rest.remove_prefix(8);
  } else {
    throw common::UsageError("URL '" + url + "': must start with http:// or https://");
  }
  const std::size_t slash = rest.find_first_of("/?");
  std::string_view authority = rest.substr(0, slash);
  std::string path = slash == std::string_view::npos ? "/" : std::string(rest.substr(slash));
  if (path.front() == '?') path.insert(0, "/");
  const std::size_t hash = path.find('#');
  if (hash != std::string::npos) path.resize(hash);
  if (authority.find('@') != std::string_view::npos)
    throw common::UsageError("URL '" + url + "': user information is not supported");
  std::string_view port_text;
  if (authority.starts_with("[")) {
    const std::size_t close = authority.find(']');
    if (close == std::string_view::npos)
      throw common::UsageError("URL '" + url + "': unterminated IPv6 address");
    t.host = std::string(authority.substr(1, close - 1));
    std::string_view after = authority.substr(close + 1);
    if (!after.empty()) {
      if (after.front() != ':')
        throw common::UsageError("URL '" + url + "': bad text after IPv6 address");
      port_text = after.substr(1);
    }
  } else {
    const std::size_t colon = authority.rfind(':');
    t.host = std::string(authority.substr(0, colon));
    if (colon != std::string_view::npos) port_text = authority.substr(colon + 1);
  }
  if (t.host.empty()) throw common::UsageError("URL '" + url + "': missing host");
  t.port = t.tls ? 443 : 80;
  if (!port_text.empty() || authority.ends_with(":")) {
    unsigned value = 0;
    const auto [p, ec] =
        std::from_chars(port_text.data(), port_text.data() + port_text.size(), value);
    if (ec != std::errc() || p != port_text.data() + port_text.size() || value == 0 ||
        value > 65535)
      throw common::UsageError("URL '" + url + "': port must be a number from 1 to 65535");
    t.port = static_cast<std::uint16_t>(value);
  }
  t.path = path;
  in6_addr a6{};
  in_addr a4{};
  t.host_is_ip =
      inet_pton(AF_INET, t.host.c_str(), &a4) == 1 || inet_pton(AF_INET6, t.host.c_str(), &a6) == 1;
  const bool v6 = t.host.find(':') != std::string::npos;
  t.host_header = v6 ? "[" + t.host + "]" : t.host;
  const bool default_port = t.port == (t.tls ? 443 : 80);
  if (!default_port) t.host_header += ":" + std::to_string(t.port);
  return t;
}

void resolve(Target& target) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  const std::string port = std::to_string(target.port);
  const int rc = getaddrinfo(target.host.c_str(), port.c_str(), &hints, &found);
  if (rc != 0 || found == nullptr)
    throw common::UsageError("cannot resolve host '" + target.host + "': " + gai_strerror(rc));
  std::unique_ptr<addrinfo, decltype(&freeaddrinfo)> guard(found, freeaddrinfo);
  std::memcpy(&target.addr, found->ai_addr, found->ai_addrlen);
  target.addr_len = found->ai_addrlen;
}

}  // namespace gatebench::load
