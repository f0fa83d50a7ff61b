// gatebench-micro --input access_log.combined on a log written by a real nginx: Debian's
// /usr/sbin/nginx (the load tests' NginxProcess, logging `combined`), 200 requests over sockets,
// the log it writes then benchmarked. Skips when nginx is not installed.
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <string>

#include "tests/macro/load/nginx_process.hpp"
#include "tests/micro/bench/micro_run.hpp"

namespace gatebench::bench::test {
namespace {

constexpr const char* kNginx = "/usr/sbin/nginx";
constexpr int kRequests = 200;

// One request on its own connection; returns the response's bytes (read until nginx closes).
std::string exchange(std::uint16_t port, const std::string& request) {
  const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  timeval timeout{2, 0};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = htons(port);
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

TEST(InputNginx, CombinedLogWrittenByNginx) {
  if (access(kNginx, X_OK) != 0) GTEST_SKIP() << kNginx << " not installed";
  const auto dir = scratch_dir("nginx");
  std::size_t ok_responses = 0;
  {
    load::testing::NginxProcess nginx("combined");
    ASSERT_TRUE(nginx.available()) << nginx.reason();
    for (int i = 0; i < kRequests; ++i) {
      // Paths, queries, referers and agents vary, some with bytes nginx escapes in the log.
      const std::string path =
          i % 10 == 0 ? "/missing/" + std::to_string(i) : "/api/v1/items/" + std::to_string(i % 37);
      const std::string query = i % 3 == 0 ? "?q=a%20b&page=" + std::to_string(i) : "";
      const std::string agent =
          i % 7 == 0 ? "curl/7.88 \"quoted\"" : "Mozilla/5.0 (X11; Linux x86_64) gatebench";
      const std::string method = i % 5 == 0 ? "HEAD" : "GET";
      const std::string response =
          exchange(nginx.http_port(), method + " " + path + query +
                                          " HTTP/1.1\r\nHost: localhost\r\nUser-Agent: " + agent +
                                          "\r\nReferer: http://example.test/r" + std::to_string(i) +
                                          "\r\nConnection: close\r\n\r\n");
      ok_responses += response.starts_with("HTTP/1.1 ");
    }
    nginx.stop();
    std::filesystem::copy_file(nginx.access_log_path(), dir / "access.log");
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
  // The seeded cases stay registered beside the input's.
  EXPECT_NE(list_micro(dir, "--input access_log.combined=" + (dir / "access.log").string())
                .find("access_log/gatecore/combined\n"),
            std::string::npos);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace gatebench::bench::test
