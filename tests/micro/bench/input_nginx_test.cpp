// gatebench-micro --input access_log.combined on a log written by a real nginx: Debian's
// /usr/sbin/nginx on a loopback port of its own, 200 requests over sockets, the `combined` log
// it writes then benchmarked. Skips when nginx is not installed.
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <string>
#include <thread>

#include "tests/micro/bench/micro_run.hpp"

namespace gatebench::bench::test {
namespace {

constexpr const char* kNginx = "/usr/sbin/nginx";
constexpr int kRequests = 200;

sockaddr_in loopback(std::uint16_t port) {
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = htons(port);
  return addr;
}

// A port the kernel just handed out and nobody listens on (bind to 0, read it back, close).
std::uint16_t free_port() {
  const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in addr = loopback(0);
  socklen_t len = sizeof addr;
  bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
  getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  close(fd);
  return ntohs(addr.sin_port);
}

// One request on its own connection; returns the response's bytes (read until nginx closes).
std::string exchange(std::uint16_t port, const std::string& request) {
  const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  timeval timeout{2, 0};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
  sockaddr_in addr = loopback(port);
  std::string response;
  if (connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0 &&
      send(fd, request.data(), request.size(), MSG_NOSIGNAL) ==
          static_cast<ssize_t>(request.size())) {
    char buf[4096];
    for (ssize_t n; (n = recv(fd, buf, sizeof buf, 0)) > 0;) response.append(buf, n);
  }
  close(fd);
  return response;
}

class Nginx {
 public:
  explicit Nginx(const std::filesystem::path& dir) : dir_(dir), port_(free_port()) {
    for (const char* sub : {"body", "proxy", "fastcgi", "uwsgi", "scgi"})
      std::filesystem::create_directory(dir_ / sub);
    const std::string d = dir_.string();
    write_text(dir_ / "nginx.conf",
               "daemon off;\nmaster_process off;\nworker_processes 1;\npid " + d +
                   "/nginx.pid;\nerror_log " + d +
                   "/error.log warn;\nevents { worker_connections 64; }\nhttp {\n"
                   "  access_log " +
                   d + "/access.log combined;\n  client_body_temp_path " + d +
                   "/body;\n  proxy_temp_path " + d + "/proxy;\n  fastcgi_temp_path " + d +
                   "/fastcgi;\n  uwsgi_temp_path " + d + "/uwsgi;\n  scgi_temp_path " + d +
                   "/scgi;\n  server {\n    listen 127.0.0.1:" + std::to_string(port_) +
                   ";\n    location / { return 200 \"ok\\n\"; }\n    location /missing {"
                   " return 404; }\n  }\n}\n");
    pid_ = fork();
    if (pid_ == 0) {
      const std::string conf = d + "/nginx.conf";
      const std::string err = d + "/error.log";
      execl(kNginx, "nginx", "-p", d.c_str(), "-c", conf.c_str(), "-e", err.c_str(),
            static_cast<char*>(nullptr));
      _exit(127);
    }
  }
  ~Nginx() { stop(); }
  Nginx(const Nginx&) = delete;
  Nginx& operator=(const Nginx&) = delete;

  // Waits up to 5 s for the port to accept.
  bool ready() const {
    const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(5);
    while (std::chrono::steady_clock::now() < give_up) {
      if (waitpid(pid_, nullptr, WNOHANG) == pid_) return false;
      const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
      sockaddr_in addr = loopback(port_);
      const bool ok = connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0;
      close(fd);
      if (ok) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return false;
  }

  void stop() {
    if (pid_ <= 0) return;
    kill(pid_, SIGTERM);
    waitpid(pid_, nullptr, 0);
    pid_ = -1;
  }

  std::uint16_t port() const { return port_; }
  std::filesystem::path log() const { return dir_ / "access.log"; }

 private:
  std::filesystem::path dir_;
  std::uint16_t port_;
  pid_t pid_ = -1;
};

TEST(InputNginx, CombinedLogWrittenByNginx) {
  if (access(kNginx, X_OK) != 0) GTEST_SKIP() << kNginx << " not installed";
  const auto dir = scratch_dir("nginx");
  std::size_t ok_responses = 0;
  {
    Nginx nginx(dir);
    ASSERT_TRUE(nginx.ready()) << read_text(dir / "error.log");
    for (int i = 0; i < kRequests; ++i) {
      // Paths, queries, referers and agents vary, some with bytes nginx escapes in the log.
      const std::string path =
          i % 10 == 0 ? "/missing/" + std::to_string(i) : "/api/v1/items/" + std::to_string(i % 37);
      const std::string query = i % 3 == 0 ? "?q=a%20b&page=" + std::to_string(i) : "";
      const std::string agent =
          i % 7 == 0 ? "curl/7.88 \"quoted\"" : "Mozilla/5.0 (X11; Linux x86_64) gatebench";
      const std::string method = i % 5 == 0 ? "HEAD" : "GET";
      const std::string response =
          exchange(nginx.port(), method + " " + path + query +
                                     " HTTP/1.1\r\nHost: localhost\r\nUser-Agent: " + agent +
                                     "\r\nReferer: http://example.test/r" + std::to_string(i) +
                                     "\r\nConnection: close\r\n\r\n");
      ok_responses += response.starts_with("HTTP/1.1 ");
    }
    nginx.stop();  // the log is complete once the worker has exited
  }
  ASSERT_EQ(ok_responses, static_cast<std::size_t>(kRequests));
  const std::string log = read_text(dir / "access.log");
  ASSERT_EQ(std::count(log.begin(), log.end(), '\n'), kRequests) << log.substr(0, 400);

  const MicroRun run =
      run_micro(dir, "--input access_log.combined=" + (dir / "access.log").string());
  ASSERT_EQ(run.exit_code, 0) << run.stderr_text;
  const auto& context = run.json.at("context");
  EXPECT_EQ(context.at("gatebench_input_access_log.combined_path"), (dir / "access.log").string());
  EXPECT_EQ(context.at("gatebench_input_access_log.combined_size"), std::to_string(log.size()));
  EXPECT_EQ(context.at("gatebench_input_access_log.combined_sha256"), sha256_hex(log));
  for (const char* impl : {"gatecore", "re2", "limit"}) {
    const auto r = row(run.json, std::string("access_log/") + impl + "/combined_input");
    ASSERT_FALSE(r.is_null()) << impl;
    EXPECT_FALSE(r.contains("error_occurred")) << r.dump();
    EXPECT_EQ(r.at("records"), kRequests) << impl;
    EXPECT_GT(r.at("items_per_second").get<double>(), 0) << impl;
  }
  // Only the input's rows ran: the filter names them, the seeded cases are not touched.
  EXPECT_TRUE(row(run.json, "access_log/gatecore/combined").is_null());
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace gatebench::bench::test
