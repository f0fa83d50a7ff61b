// Helpers of the gateway's end-to-end tests: a temp directory, free loopback ports, a child
// process in its own process group (always stopped, common::ChildProcess), a small threaded
// HTTP/1.1 upstream with scripted behaviours, and a blocking HTTP client (plain or TLS) that reads
// one response.
#pragma once

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <openssl/ssl.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "macro/common/child_process.hpp"

namespace gwtest {

inline std::string read_text(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

class TempDir {
 public:
  TempDir() {
    static std::atomic<int> n{0};
    path_ = std::filesystem::temp_directory_path() /
            ("gw-e2e-" + std::to_string(::getpid()) + "-" + std::to_string(n++));
    std::filesystem::create_directories(path_);
  }
  ~TempDir() { std::filesystem::remove_all(path_); }
  const std::filesystem::path& path() const { return path_; }
  std::string file(const std::string& name, const std::string& text) const {
    std::ofstream(path_ / name) << text;
    return (path_ / name).string();
  }

 private:
  std::filesystem::path path_;
};

inline int free_port() {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a);
  socklen_t len = sizeof a;
  getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
  ::close(fd);
  return ntohs(a.sin_port);
}

inline int connect_to(int port, const char* source_ip = nullptr) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  if (source_ip != nullptr) {
    sockaddr_in s{};
    s.sin_family = AF_INET;
    inet_pton(AF_INET, source_ip, &s.sin_addr);
    bind(fd, reinterpret_cast<sockaddr*>(&s), sizeof s);
  }
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<std::uint16_t>(port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
    ::close(fd);
    return -1;
  }
  timeval tv{5, 0};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
  return fd;
}

inline bool wait_port(int port, int ms = 5000) {
  for (int waited = 0; waited < ms; waited += 20) {
    int fd = connect_to(port);
    if (fd >= 0) {
      ::close(fd);
      return true;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return false;
}

// A child process in its own process group (common::ChildProcess) with stdout and stderr in one
// file; stop() (also run by the destructor) sends SIGTERM, waits up to 5 s, then kills the whole
// group. `env` ("NAME=value") is added to this process's environment for the child.
class Process {
 public:
  Process(std::vector<std::string> args, const std::string& output_path,
          std::vector<std::string> env = {})
      : output_path_(output_path) {
    gatebench::common::SpawnSpec spec;
    spec.exe = args.at(0);
    spec.args.assign(args.begin() + 1, args.end());
    for (const std::string& e : env) {
      const std::size_t eq = e.find('=');
      spec.env[e.substr(0, eq)] = eq == std::string::npos ? "" : e.substr(eq + 1);
    }
    spec.out = gatebench::common::Stream::to_file(output_path);
    spec.err = spec.out;
    child_ = gatebench::common::ChildProcess::spawn(spec);
    pid_ = child_.pid();
  }
  ~Process() { stop(); }
  pid_t pid() const { return pid_; }
  void signal(int sig) const {
    if (!exited_) ::kill(pid_, sig);
  }
  // Exit code (128 + N for signal N), or -1 if it did not exit within `ms` (then it is killed).
  int wait_exit(int ms) {
    if (exited_) return status_;
    const auto status = child_.wait_for(std::chrono::milliseconds(ms));
    status_ = status ? gatebench::common::exit_code(*status) : -1;
    child_.stop(std::chrono::milliseconds(0));
    exited_ = true;
    return status_;
  }
  int stop() {
    if (exited_) return status_;
    signal(SIGTERM);
    return wait_exit(5000);
  }
  std::string output() const { return read_text(output_path_); }

 private:
  gatebench::common::ChildProcess child_;
  pid_t pid_ = -1;
  std::string output_path_;
  bool exited_ = false;
  int status_ = -1;
};

struct Response {
  int status = 0;
  std::map<std::string, std::vector<std::string>> headers;  // lower-case names
  std::string body;
  bool ok = false;
  std::string header(const std::string& name) const {
    auto it = headers.find(name);
    return it == headers.end() || it->second.empty() ? std::string() : it->second.front();
  }
  bool has(const std::string& name) const { return headers.count(name) > 0; }
};

// Byte stream over a plain socket or a TLS session.
class Conn {
 public:
  Conn() = default;
  explicit Conn(int fd) : fd_(fd) {}
  Conn(Conn&& o) noexcept { *this = std::move(o); }
  Conn& operator=(Conn&& o) noexcept {
    std::swap(fd_, o.fd_);
    std::swap(ssl_, o.ssl_);
    std::swap(buf_, o.buf_);
    return *this;
  }
  ~Conn() {
    if (ssl_ != nullptr) {
      SSL_shutdown(ssl_);  // without close_notify OpenSSL marks the session not resumable
      SSL_free(ssl_);
    }
    if (fd_ >= 0) ::close(fd_);
  }
  void attach_tls(SSL* ssl) { ssl_ = ssl; }
  int fd() const { return fd_; }
  SSL* ssl() const { return ssl_; }
  bool valid() const { return fd_ >= 0; }
  bool send(const std::string& s) {
    std::size_t off = 0;
    while (off < s.size()) {
      ssize_t n = ssl_ ? SSL_write(ssl_, s.data() + off, static_cast<int>(s.size() - off))
                       : ::send(fd_, s.data() + off, s.size() - off, MSG_NOSIGNAL);
      if (n <= 0) return false;
      off += static_cast<std::size_t>(n);
    }
    return true;
  }
  // Reads more bytes into the buffer; false on EOF, error or timeout.
  bool fill() {
    char tmp[65536];
    ssize_t n = ssl_ ? SSL_read(ssl_, tmp, sizeof tmp) : ::recv(fd_, tmp, sizeof tmp, 0);
    if (n <= 0) return false;
    buf_.append(tmp, static_cast<std::size_t>(n));
    return true;
  }
  std::string& buffer() { return buf_; }

  Response read_response(bool head_request = false) {
    Response r;
    std::size_t end;
    while ((end = buf_.find("\r\n\r\n")) == std::string::npos) {
      if (!fill()) return r;
    }
    std::string head = buf_.substr(0, end + 2);
    buf_.erase(0, end + 4);
    std::istringstream in(head);
    std::string line;
    std::getline(in, line);
    if (line.size() < 12) return r;
    r.status = std::stoi(line.substr(9, 3));
    while (std::getline(in, line)) {
      if (!line.empty() && line.back() == '\r') line.pop_back();
      std::size_t colon = line.find(':');
      if (colon == std::string::npos) continue;
      std::string name = line.substr(0, colon);
      for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      std::string value = line.substr(colon + 1);
      while (!value.empty() && value.front() == ' ') value.erase(0, 1);
      r.headers[name].push_back(value);
    }
    if (head_request || r.status == 204 || r.status == 304) {
      r.ok = true;
      return r;
    }
    if (r.has("content-length")) {
      std::size_t n = std::stoul(r.header("content-length"));
      while (buf_.size() < n) {
        if (!fill()) return r;
      }
      r.body = buf_.substr(0, n);
      buf_.erase(0, n);
    } else if (r.header("transfer-encoding") == "chunked") {
      for (;;) {
        std::size_t crlf;
        while ((crlf = buf_.find("\r\n")) == std::string::npos) {
          if (!fill()) return r;
        }
        std::size_t size = std::stoul(buf_.substr(0, crlf), nullptr, 16);
        buf_.erase(0, crlf + 2);
        if (size == 0) {
          while ((crlf = buf_.find("\r\n")) == std::string::npos) {
            if (!fill()) return r;
          }
          buf_.erase(0, crlf + 2);  // no trailers in these tests
          break;
        }
        while (buf_.size() < size + 2) {
          if (!fill()) return r;
        }
        r.body += buf_.substr(0, size);
        buf_.erase(0, size + 2);
      }
    } else {
      while (fill()) {
      }
      r.body = buf_;
      buf_.clear();
    }
    r.ok = true;
    return r;
  }

 private:
  int fd_ = -1;
  SSL* ssl_ = nullptr;
  std::string buf_;
};

inline std::string get_request(const std::string& host, const std::string& path,
                               const std::string& extra = "") {
  return "GET " + path + " HTTP/1.1\r\nHost: " + host + "\r\n" + extra + "\r\n";
}

// One request on a new connection.
inline Response fetch(int port, const std::string& raw, const char* source_ip = nullptr) {
  Conn c(connect_to(port, source_ip));
  if (!c.valid() || !c.send(raw)) return {};
  return c.read_response();
}

// A UDP socket on 127.0.0.1 at a port the kernel picks: where the tests point the access log.
class UdpReceiver {
 public:
  explicit UdpReceiver(int timeout_ms = 2000) {
    fd_ = socket(AF_INET, SOCK_DGRAM, 0);
    addr_.sin_family = AF_INET;
    addr_.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    bind(fd_, reinterpret_cast<sockaddr*>(&addr_), sizeof addr_);
    socklen_t len = sizeof addr_;
    getsockname(fd_, reinterpret_cast<sockaddr*>(&addr_), &len);
    timeval tv{timeout_ms / 1000, (timeout_ms % 1000) * 1000};
    setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  }
  ~UdpReceiver() { ::close(fd_); }
  UdpReceiver(const UdpReceiver&) = delete;
  UdpReceiver& operator=(const UdpReceiver&) = delete;
  const sockaddr_in& addr() const { return addr_; }
  int port() const { return ntohs(addr_.sin_port); }
  // One datagram, or "" when none came within the timeout.
  std::string receive() {
    std::vector<char> buf(65536);
    const ssize_t n = recv(fd_, buf.data(), buf.size(), 0);
    return n > 0 ? std::string(buf.data(), static_cast<std::size_t>(n)) : std::string();
  }

 private:
  int fd_ = -1;
  sockaddr_in addr_{};
};

// ---- scripted upstream ------------------------------------------------------------------

struct SeenRequest {
  std::string head;
  std::string body;  // de-chunked
};

// A listening TCP socket on 127.0.0.1 at a port the kernel picks (written to `port`): the
// test servers' common start.
inline int listen_loopback(int backlog, int& port) {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  int one = 1;
  setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a);
  listen(fd, backlog);
  socklen_t len = sizeof a;
  getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
  port = ntohs(a.sin_port);
  return fd;
}

// Thread-per-connection HTTP/1.1 server. Paths: /chunked (chunked response), /big (1 MiB),
// /slow (answers after 1.5 s), /echo (body back), /hop (hop-by-hop and security headers in the
// response), anything else "ok\n". Every request is recorded.
class Upstream {
 public:
  Upstream() : port_(0) {
    lfd_ = listen_loopback(128, port_);
    acceptor_ = std::thread([this] { accept_loop(); });
  }
  ~Upstream() {
    stop_ = true;
    acceptor_.join();
    {
      std::lock_guard<std::mutex> lock(mu_);
      for (int fd : conn_fds_) shutdown(fd, SHUT_RDWR);
    }
    for (auto& t : workers_) t.join();
    for (int fd : conn_fds_) ::close(fd);
    ::close(lfd_);
  }
  int port() const { return port_; }
  std::vector<SeenRequest> requests() {
    std::lock_guard<std::mutex> lock(mu_);
    return seen_;
  }
  int connections() const { return accepted_.load(); }

 private:
  void accept_loop() {
    while (!stop_) {
      pollfd p{lfd_, POLLIN, 0};
      if (poll(&p, 1, 50) <= 0) continue;
      int fd = accept(lfd_, nullptr, nullptr);
      if (fd < 0) continue;
      ++accepted_;
      std::lock_guard<std::mutex> lock(mu_);
      conn_fds_.push_back(fd);
      workers_.emplace_back([this, fd] { serve(fd); });
    }
  }

  static bool read_more(int fd, std::string& buf) {
    char tmp[65536];
    ssize_t n = ::recv(fd, tmp, sizeof tmp, 0);
    if (n <= 0) return false;
    buf.append(tmp, static_cast<std::size_t>(n));
    return true;
  }

  void serve(int fd) {
    std::string buf;
    for (;;) {
      std::size_t end;
      while ((end = buf.find("\r\n\r\n")) == std::string::npos) {
        if (!read_more(fd, buf)) return finish(fd);
      }
      SeenRequest req;
      req.head = buf.substr(0, end + 4);
      buf.erase(0, end + 4);
      std::string lower = req.head;
      for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      std::size_t cl = lower.find("\r\ncontent-length: ");
      if (cl != std::string::npos) {
        std::size_t n = std::stoul(lower.substr(cl + 18));
        while (buf.size() < n) {
          if (!read_more(fd, buf)) return finish(fd);
        }
        req.body = buf.substr(0, n);
        buf.erase(0, n);
      } else if (lower.find("\r\ntransfer-encoding: chunked") != std::string::npos) {
        for (;;) {
          std::size_t crlf;
          while ((crlf = buf.find("\r\n")) == std::string::npos) {
            if (!read_more(fd, buf)) return finish(fd);
          }
          std::size_t size = std::stoul(buf.substr(0, crlf), nullptr, 16);
          buf.erase(0, crlf + 2);
          if (size == 0) {
            while ((crlf = buf.find("\r\n")) == std::string::npos) {
              if (!read_more(fd, buf)) return finish(fd);
            }
            buf.erase(0, crlf + 2);
            break;
          }
          while (buf.size() < size + 2) {
            if (!read_more(fd, buf)) return finish(fd);
          }
          req.body += buf.substr(0, size);
          buf.erase(0, size + 2);
        }
      }
      std::string path = req.head.substr(req.head.find(' ') + 1);
      path = path.substr(0, path.find(' '));
      {
        std::lock_guard<std::mutex> lock(mu_);
        seen_.push_back(req);
      }
      std::string resp;
      if (path == "/chunked") {
        resp =
            "HTTP/1.1 200 OK\r\nTransfer-Encoding: "
            "chunked\r\n\r\n3\r\nabc\r\n4\r\ndefg\r\n0\r\n\r\n";
      } else if (path == "/big") {
        resp = "HTTP/1.1 200 OK\r\nContent-Length: 1048576\r\n\r\n" + std::string(1048576, 'x');
      } else if (path == "/slow") {
        std::this_thread::sleep_for(std::chrono::milliseconds(1500));
        resp = "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nslow\n";
      } else if (path == "/echo") {
        resp = "HTTP/1.1 200 OK\r\nContent-Length: " + std::to_string(req.body.size()) +
               "\r\n\r\n" + req.body;
      } else if (path == "/hop") {
        resp =
            "HTTP/1.1 200 OK\r\nKeep-Alive: timeout=5\r\nConnection: keep-alive, X-Hop\r\n"
            "X-Hop: secret\r\nX-Frame-Options: ALLOWALL\r\nX-End: kept\r\nContent-Length: "
            "3\r\n\r\nok\n";
      } else {
        resp = "HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nok\n";
      }
      std::size_t off = 0;
      while (off < resp.size()) {
        ssize_t n = ::send(fd, resp.data() + off, resp.size() - off, MSG_NOSIGNAL);
        if (n <= 0) return finish(fd);
        off += static_cast<std::size_t>(n);
      }
      // Like an upstream whose keep-alive timeout fires right after the response.
      if (path == "/close-after") return finish(fd);
    }
  }
  void finish(int fd) { ::shutdown(fd, SHUT_RDWR); }

  int lfd_;
  int port_;
  std::atomic<bool> stop_{false};
  std::atomic<int> accepted_{0};
  std::thread acceptor_;
  std::mutex mu_;
  std::vector<std::thread> workers_;
  std::vector<int> conn_fds_;
  std::vector<SeenRequest> seen_;
};

// CPU time (user + system) of a process in clock ticks, from /proc/<pid>/stat.
inline long cpu_ticks(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string stat((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  // Fields after the command name (which may hold spaces) start after the last ')'.
  std::istringstream rest(stat.substr(stat.rfind(')') + 2));
  std::string field;
  long utime = 0;
  for (int i = 3; rest >> field; ++i) {
    if (i == 14) utime = std::stol(field);
    if (i == 15) return utime + std::stol(field);
  }
  return 0;
}

// A process's resident memory in KiB (VmRSS), 0 when unreadable.
inline long rss_kib(pid_t pid) {
  std::ifstream status("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(status, line))
    if (line.rfind("VmRSS:", 0) == 0) return std::stol(line.substr(6));
  return 0;
}

}  // namespace gwtest
