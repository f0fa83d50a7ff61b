// The cache tests' pieces: an origin where each request target gets the response the test
// scripted for it (status, header lines, body; or a closed connection) and which counts the
// requests reaching it, which is how a test tells a hit from a miss; and a fixture running the
// real gateway in front of it with one proxy host (a.test, b.test) and a "cache" section.
#pragma once

#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "tests/macro/gateway/gateway_testkit.hpp"

namespace gwtest {

class CacheOrigin {
 public:
  CacheOrigin() {
    lfd_ = listen_loopback(128, port_);
    acceptor_ = std::thread([this] { accept_loop(); });
  }
  ~CacheOrigin() {
    stop_ = true;
    acceptor_.join();
    {
      std::lock_guard<std::mutex> lock(mu_);
      for (int fd : fds_) shutdown(fd, SHUT_RDWR);
    }
    for (auto& t : threads_) t.join();
    for (int fd : fds_) ::close(fd);
    ::close(lfd_);
  }
  CacheOrigin(const CacheOrigin&) = delete;
  CacheOrigin& operator=(const CacheOrigin&) = delete;

  int port() const { return port_; }

  // The answer to `target` (path and query as requested): `lines` are whole CRLF-terminated
  // header lines; Content-Length is added. An unscripted target gets 404 with no-store.
  void set(const std::string& target, const std::string& lines, const std::string& body,
           int status = 200) {
    std::lock_guard<std::mutex> lock(mu_);
    script_[target] = {status, lines, body, false};
  }
  // Requests for `target` are read and the connection closed without an answer (a 502 upstream).
  void set_close(const std::string& target) {
    std::lock_guard<std::mutex> lock(mu_);
    script_[target].close = true;
  }
  int count(const std::string& target) {
    std::lock_guard<std::mutex> lock(mu_);
    return seen_[target];
  }

 private:
  struct Answer {
    int status = 404;
    std::string lines = "Cache-Control: no-store\r\n";
    std::string body = "not scripted\n";
    bool close = false;
  };

  void accept_loop() {
    while (!stop_) {
      pollfd p{lfd_, POLLIN, 0};
      if (poll(&p, 1, 50) <= 0) continue;
      int fd = accept(lfd_, nullptr, nullptr);
      if (fd < 0) continue;
      std::lock_guard<std::mutex> lock(mu_);
      fds_.push_back(fd);
      threads_.emplace_back([this, fd] { serve(fd); });
    }
  }

  // A request body is read (Content-Length only, as the gateway forwards a POST) and dropped.
  void serve(int fd) {
    std::string buf;
    char tmp[16384];
    for (;;) {
      std::size_t end;
      while ((end = buf.find("\r\n\r\n")) == std::string::npos) {
        ssize_t n = ::recv(fd, tmp, sizeof tmp, 0);
        if (n <= 0) return;
        buf.append(tmp, static_cast<std::size_t>(n));
      }
      const std::string head = buf.substr(0, end + 4);
      buf.erase(0, end + 4);
      std::size_t body_len = 0;
      const std::size_t cl = head.find("Content-Length: ");
      if (cl != std::string::npos) body_len = std::stoul(head.substr(cl + 16));
      while (buf.size() < body_len) {
        ssize_t n = ::recv(fd, tmp, sizeof tmp, 0);
        if (n <= 0) return;
        buf.append(tmp, static_cast<std::size_t>(n));
      }
      buf.erase(0, body_len);
      const std::string method = head.substr(0, head.find(' '));
      std::string target = head.substr(head.find(' ') + 1);
      target = target.substr(0, target.find(' '));
      Answer a;
      {
        std::lock_guard<std::mutex> lock(mu_);
        ++seen_[target];
        auto it = script_.find(target);
        if (it != script_.end()) a = it->second;
      }
      if (a.close) {
        ::shutdown(fd, SHUT_RDWR);
        return;
      }
      std::string resp = "HTTP/1.1 " + std::to_string(a.status) + " X\r\n" + a.lines +
                         "Content-Length: " + std::to_string(a.body.size()) + "\r\n\r\n";
      if (method != "HEAD") resp += a.body;
      std::size_t off = 0;
      while (off < resp.size()) {
        ssize_t n = ::send(fd, resp.data() + off, resp.size() - off, MSG_NOSIGNAL);
        if (n <= 0) return;
        off += static_cast<std::size_t>(n);
      }
    }
  }

  int lfd_ = -1;
  int port_ = 0;
  std::atomic<bool> stop_{false};
  std::thread acceptor_;
  std::mutex mu_;
  std::vector<std::thread> threads_;
  std::vector<int> fds_;
  std::map<std::string, Answer> script_;
  std::map<std::string, int> seen_;
};

class CacheGatewayTest : public ::testing::Test {
 protected:
  // `cache`: the host's "cache" object; `features`: more host fields (", \"ip_lists\": ...").
  void start_gateway(int workers, const std::string& cache, const std::string& features = "") {
    port_ = free_port();
    dir_.file("gw.json", R"({"workers": )" + std::to_string(workers) +
                             R"(, "listeners": [{"port": )" + std::to_string(port_) +
                             R"(}], "hosts": [{"names": ["a.test", "b.test"], )" +
                             R"("upstream": "127.0.0.1:)" + std::to_string(origin_.port()) +
                             R"(", "cache": )" + cache + features + "}]}");
    gateway_ =
        std::make_unique<Process>(std::vector<std::string>{GATEBENCH_GATEWAY_EXE, "--config",
                                                           (dir_.path() / "gw.json").string()},
                                  (dir_.path() / "gateway.log").string());
    ASSERT_TRUE(wait_port(port_)) << gateway_->output();
  }
  Response get(const std::string& path, const std::string& extra = "",
               const std::string& host = "a.test", const char* source = nullptr) {
    return fetch(port_, get_request(host, path, extra), source);
  }
  Response head(const std::string& path) {
    Conn c(connect_to(port_));
    if (!c.send("HEAD " + path + " HTTP/1.1\r\nHost: a.test\r\n\r\n")) return {};
    return c.read_response(true);
  }
  // Stops the gateway and returns the counters line it printed ("cache: hits=...").
  std::string stop_and_counters() {
    EXPECT_EQ(gateway_->stop(), 0);
    const std::string out = gateway_->output();
    const std::size_t at = out.find("cache: ");
    return at == std::string::npos ? out : out.substr(at, out.find('\n', at) - at);
  }
  // One counter of that line (-1 when absent).
  static long counter(const std::string& line, const std::string& name) {
    const std::size_t at = line.find(" " + name + "=");  // every name follows a space
    if (at == std::string::npos) return -1;
    return std::stol(line.substr(at + name.size() + 2));
  }
  void TearDown() override {
    if (gateway_) {
      EXPECT_EQ(gateway_->stop(), 0) << gateway_->output();
    }
  }

  TempDir dir_;
  CacheOrigin origin_;
  std::unique_ptr<Process> gateway_;
  int port_ = 0;
};

}  // namespace gwtest
