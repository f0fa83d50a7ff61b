// A small in-process HTTP/1.1 server for the load generator's tests: one thread per connection,
// blocking sockets, and a behaviour chosen per server (answer, delay, misbehave). It counts what
// it saw so tests compare the generator's figures with the server's.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace gatebench::load::testing {

enum class Behaviour {
  kOk,           // 200 "ok\n" with Content-Length, keep-alive
  kPathDelay,    // like kOk, after sleeping the milliseconds in the path "/d/<ms>"
  kStallOnce,    // like kOk, but the Nth request (stall_at) is answered after stall_ms
  kCloseEach,    // 200 with Connection: close, then closes
  kGarbage,      // answers with bytes that are not HTTP
  kTruncated,    // promises 100 body bytes, sends 10, closes
  kHang,         // reads the request, never answers
  kReset,        // reads the request, closes with RST
  kResetEarly,   // accepts, waits 50 ms without reading, closes with RST
  kChunked,      // 200 with a chunked body (several chunks, an extension, a trailer)
  kLarge,        // 200 with a 1 MiB body
  kNoLength,     // 200 without Content-Length or chunked: the body ends at the close
  kStatusByPath  // 200 for most paths, 403 for paths starting with "/admin"
};

class TestServer {
 public:
  explicit TestServer(Behaviour behaviour);
  ~TestServer();
  TestServer(const TestServer&) = delete;
  TestServer& operator=(const TestServer&) = delete;

  std::uint16_t port() const { return port_; }
  std::string url(const std::string& path = "/") const;
  std::uint64_t requests() const { return requests_.load(); }
  std::uint64_t connections() const { return connections_.load(); }
  void set_stall(std::uint64_t at, int ms) {
    stall_at_ = at;
    stall_ms_ = ms;
  }
  void stop();

 private:
  void accept_loop();
  void serve(int fd);

  Behaviour behaviour_;
  int listen_fd_ = -1;
  std::uint16_t port_ = 0;
  std::atomic<bool> stopping_{false};
  std::atomic<std::uint64_t> requests_{0};
  std::atomic<std::uint64_t> connections_{0};
  std::uint64_t stall_at_ = 0;
  int stall_ms_ = 0;
  std::thread acceptor_;
  std::mutex mutex_;
  std::vector<std::thread> workers_;
};

// A loopback port nothing listens on (bound then closed).
std::uint16_t closed_port();

}  // namespace gatebench::load::testing
