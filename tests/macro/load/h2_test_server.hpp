// A small in-process HTTP/2 server (h2c with prior knowledge) for the load generator's tests: one
// thread per connection, a blocking socket and nghttp2's server session. Every request is
// answered 200 "ok\n"; the Nth of the server (set_stall) only after a pause, which holds the
// whole connection as a busy server would. It counts the requests it answered.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>

#include "tests/macro/load/test_server.hpp"

namespace gatebench::load::testing {

class H2TestServer {
 public:
  H2TestServer();
  H2TestServer(const H2TestServer&) = delete;
  H2TestServer& operator=(const H2TestServer&) = delete;

  std::string url() const;
  std::uint64_t requests() const { return requests_.load(); }
  // Request number `at` (counting from 1 over the server) is answered after `ms` milliseconds.
  void set_stall(std::uint64_t at, int ms) {
    stall_at_ = at;
    stall_ms_ = ms;
  }
  // Called by nghttp2 (through the session's user data) when a request is complete.
  void answer(void* session, std::int32_t stream_id);

 private:
  void serve(int fd);

  std::atomic<std::uint64_t> requests_{0};
  std::uint64_t stall_at_ = 0;
  int stall_ms_ = 0;
  Acceptor acceptor_;  // last: its threads use the members above
};

}  // namespace gatebench::load::testing
