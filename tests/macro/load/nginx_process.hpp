// Starts Debian's nginx for a test: a temporary prefix directory with its own config (HTTP and
// HTTPS on free loopback ports, optionally h2c and h2 on two more, `return 200 "ok\n"`, `/missing`
// answered 404, `/cache?s=V` answered with `X-Cache-Status: V`), logs and a fresh self-signed
// certificate; stopped and cleaned up by the destructor. When nginx or openssl is missing,
// available() is false and reason() says why (tests then GTEST_SKIP with it).
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "macro/common/child_process.hpp"

namespace gatebench::load::testing {

struct NginxConfig {
  // The access log's format, "gb" (see access_log()) or one nginx knows ("combined").
  std::string log_format = "gb";
  // Also listen with HTTP/2: h2c (prior knowledge) on h2c_port(), TLS with ALPN h2 on h2_port().
  bool h2 = false;
  int max_concurrent_streams = 0;       // http2_max_concurrent_streams; 0: nginx's default
  long keepalive_requests = 1'000'000;  // per connection, HTTP/2 streams included
};

class NginxProcess {
 public:
  explicit NginxProcess(const std::string& log_format = "gb");
  explicit NginxProcess(const NginxConfig& config);
  ~NginxProcess();
  NginxProcess(const NginxProcess&) = delete;
  NginxProcess& operator=(const NginxProcess&) = delete;

  bool available() const { return nginx_.pid() > 0; }
  const std::string& reason() const { return reason_; }
  std::uint16_t http_port() const { return http_port_; }
  std::uint16_t https_port() const { return https_port_; }
  std::uint16_t h2c_port() const { return h2c_port_; }
  std::uint16_t h2_port() const { return h2_port_; }
  // One line per request: "<connection serial> <ssl_session_reused: r or .> <status> <uri>".
  std::vector<std::string> access_log() const;
  std::string access_log_path() const { return dir_ + "/access.log"; }
  // Stops nginx; its access log is complete afterwards (the worker flushes it on exit).
  void stop();

 private:
  // One start on fresh ports; sets reason_ when nginx does not come up.
  void start(const NginxConfig& config);

  std::string dir_;
  std::string reason_;
  common::ChildProcess nginx_;  // in its own group; stopped by stop() or its destructor
  std::uint16_t http_port_ = 0;
  std::uint16_t https_port_ = 0;
  std::uint16_t h2c_port_ = 0;
  std::uint16_t h2_port_ = 0;
};

// An access log in the "gb" format, summed up.
struct AccessLogSummary {
  std::size_t lines = 0;
  std::size_t ok = 0;         // status 200
  std::size_t not_found = 0;  // status 404
  std::size_t reused = 0;     // TLS sessions resumed ("r")
  std::set<std::string> connections;
};
AccessLogSummary summarise_access_log(const std::vector<std::string>& lines);

// A unique temporary directory (removed by the caller); throws when it cannot be made.
std::string make_temp_dir();
// Writes a self-signed EC certificate and key for CN=localhost; false with a reason on failure.
bool make_self_signed(const std::string& dir, std::string& reason);

}  // namespace gatebench::load::testing
