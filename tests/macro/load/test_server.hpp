// A small in-process HTTP/1.1 server for the load generator's tests: one thread per connection,
// blocking sockets, and a behaviour chosen per server (answer, delay, misbehave). It counts what
// it saw so tests compare the generator's figures with the server's.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <string_view>
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

// A loopback listener that serves each accepted connection on a thread of its own (`serve`
// gets the socket and closes it) until stop(), which waits for every one of them.
class Acceptor {
 public:
  explicit Acceptor(std::function<void(int fd)> serve);
  ~Acceptor() { stop(); }
  Acceptor(const Acceptor&) = delete;
  Acceptor& operator=(const Acceptor&) = delete;

  std::uint16_t port() const { return port_; }
  std::uint64_t connections() const { return connections_.load(); }
  // Serving threads check this and end their connection.
  bool stopping() const { return stopping_.load(); }
  void stop();

 private:
  void accept_loop();

  std::function<void(int fd)> serve_;
  int listen_fd_ = -1;
  std::uint16_t port_ = 0;
  std::atomic<bool> stopping_{false};
  std::atomic<std::uint64_t> connections_{0};
  std::thread thread_;
  std::mutex mutex_;
  std::vector<std::thread> workers_;
};

class TestServer {
 public:
  explicit TestServer(Behaviour behaviour);
  ~TestServer();
  TestServer(const TestServer&) = delete;
  TestServer& operator=(const TestServer&) = delete;

  std::uint16_t port() const { return acceptor_.port(); }
  std::string url(const std::string& path = "/") const;
  std::uint64_t requests() const { return requests_.load(); }
  std::uint64_t connections() const { return acceptor_.connections(); }
  void set_stall(std::uint64_t at, int ms) {
    stall_at_ = at;
    stall_ms_ = ms;
  }
  void stop() { acceptor_.stop(); }

 private:
  void serve(int fd);

  Behaviour behaviour_;
  std::atomic<std::uint64_t> requests_{0};
  std::uint64_t stall_at_ = 0;
  int stall_ms_ = 0;
  Acceptor acceptor_;  // last: its threads use the members above
};

// A loopback port nothing listens on (bound then closed).
std::uint16_t closed_port();
// Sends all of `data` on a blocking socket; false when the peer is gone.
bool send_all(int fd, std::string_view data);

}  // namespace gatebench::load::testing
