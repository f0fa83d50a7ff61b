// gatebench-control: collects the gateway's access-log datagrams and serves counters
// (docs/gateway.md, "Control plane").
#include <arpa/inet.h>
#include <signal.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "macro/common/command_line.hpp"
#include "macro/common/usage_error.hpp"
#include "macro/gateway/control_stats.hpp"

namespace {

namespace common = gatebench::common;

constexpr const char* kUsage =
    "usage: gatebench-control [--udp HOST:PORT] [--http HOST:PORT] [--duration D]\n"
    "\n"
    "Receives gatebench-gateway access-log datagrams (UDP) and serves counters per host,\n"
    "status, rule and action plus a latency histogram over HTTP:\n"
    "  GET /metrics  Prometheus text format\n"
    "  GET /stats    JSON\n"
    "\n"
    "  --udp HOST:PORT     where the gateway sends its log (default 127.0.0.1:9101)\n"
    "  --http HOST:PORT    where the counters are served (default 127.0.0.1:9102)\n"
    "  --duration D        stop by itself after this long: 30s, 500ms, 2m, 1h, bare = s\n"
    "                      (default: run until SIGTERM/SIGINT)\n"
    "  --help              this text\n"
    "Exit status: 0 after a clean stop, 2 on a bad command line, 1 when a socket cannot be\n"
    "opened.\n";

// IPv4:PORT; port 0 lets the kernel choose. Throws common::UsageError naming `option`.
sockaddr_in parse_endpoint(const std::string& text, const std::string& option) {
  const auto bad = [&] {
    return common::UsageError(option + ": expected IPv4:PORT, got '" + text + "'");
  };
  const std::size_t colon = text.rfind(':');
  if (colon == std::string::npos) throw bad();
  sockaddr_in out{};
  out.sin_family = AF_INET;
  if (inet_pton(AF_INET, text.substr(0, colon).c_str(), &out.sin_addr) != 1) throw bad();
  const long port =
      common::parse_integer(std::string_view(text).substr(colon + 1), option + " port", 0, 65535);
  out.sin_port = htons(static_cast<std::uint16_t>(port));
  return out;
}

struct Invocation {
  bool help = false;
  std::string udp_text = "127.0.0.1:9101";
  std::string http_text = "127.0.0.1:9102";
  sockaddr_in udp_addr{};
  sockaddr_in http_addr{};
  double duration_s = 0;  // 0: until a signal
};

// Throws common::UsageError.
Invocation parse_command_line(const std::vector<std::string>& args) {
  using common::flag_option;
  using common::value_option;
  const common::CommandLine line(args, {value_option("udp"), value_option("http"),
                                        value_option("duration"), flag_option("help", 'h')});
  line.expect_no_positionals();
  Invocation inv;
  inv.help = line.flag("help");
  if (inv.help) return inv;
  inv.udp_text = line.value_or("udp", inv.udp_text);
  inv.http_text = line.value_or("http", inv.http_text);
  inv.udp_addr = parse_endpoint(inv.udp_text, "--udp");
  inv.http_addr = parse_endpoint(inv.http_text, "--http");
  if (auto d = line.duration_s("duration")) {
    if (*d <= 0) throw common::UsageError("--duration: must be longer than 0");
    inv.duration_s = *d;
  }
  return inv;
}

std::string http_response(int status, const char* type, const std::string& body) {
  std::string r = "HTTP/1.1 " + std::to_string(status) + (status == 200 ? " OK" : " Not Found") +
                  "\r\nContent-Type: " + type +
                  "\r\nContent-Length: " + std::to_string(body.size()) +
                  "\r\nConnection: close\r\n\r\n";
  return r + body;
}

void send_all(int fd, const std::string& data) {
  std::size_t off = 0;
  while (off < data.size()) {
    ssize_t n = ::send(fd, data.data() + off, data.size() - off, MSG_NOSIGNAL);
    if (n <= 0) return;
    off += static_cast<std::size_t>(n);
  }
}

}  // namespace

int main(int argc, char** argv) {
  Invocation inv;
  try {
    inv = parse_command_line(std::vector<std::string>(argv + 1, argv + argc));
  } catch (const common::UsageError& e) {
    std::fprintf(stderr, "gatebench-control: %s\n%s", e.what(), kUsage);
    return common::kUsageExit;
  }
  if (inv.help) {
    std::fputs(kUsage, stdout);
    return 0;
  }
  const std::string& udp_text = inv.udp_text;
  const std::string& http_text = inv.http_text;
  sockaddr_in udp_addr = inv.udp_addr;
  sockaddr_in http_addr = inv.http_addr;
  const double duration = inv.duration_s;

  int udp = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  int rcvbuf = 16 << 20;
  setsockopt(udp, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof rcvbuf);
  int http = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  int one = 1;
  setsockopt(http, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  if (bind(udp, reinterpret_cast<sockaddr*>(&udp_addr), sizeof udp_addr) != 0) {
    std::fprintf(stderr, "gatebench-control: cannot bind UDP %s: %s\n", udp_text.c_str(),
                 strerror(errno));
    return 1;
  }
  if (bind(http, reinterpret_cast<sockaddr*>(&http_addr), sizeof http_addr) != 0 ||
      listen(http, 64) != 0) {
    std::fprintf(stderr, "gatebench-control: cannot listen on %s: %s\n", http_text.c_str(),
                 strerror(errno));
    return 1;
  }

  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGINT);
  sigprocmask(SIG_BLOCK, &set, nullptr);
  int sfd = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);

  int ep = epoll_create1(EPOLL_CLOEXEC);
  auto add = [&](int fd) {
    epoll_event ev{};
    ev.events = EPOLLIN;
    ev.data.fd = fd;
    epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev);
  };
  add(udp);
  add(http);
  add(sfd);
  std::fprintf(stderr, "gatebench-control: udp %s, http %s\n", udp_text.c_str(), http_text.c_str());

  gatebench::gateway::ControlStats stats;
  std::map<int, std::string> conns;  // HTTP clients still sending their request head
  static char datagram[65536];
  auto deadline = std::chrono::steady_clock::now() +
                  std::chrono::milliseconds(static_cast<long>(duration * 1000));
  bool running = true;
  while (running) {
    int timeout = 200;
    epoll_event evs[64];
    int n = epoll_wait(ep, evs, 64, timeout);
    for (int i = 0; i < n; ++i) {
      int fd = evs[i].data.fd;
      if (fd == sfd) {
        running = false;
      } else if (fd == udp) {
        for (;;) {
          ssize_t len = recv(udp, datagram, sizeof datagram, 0);
          if (len < 0) break;
          stats.ingest_datagram(std::string_view(datagram, static_cast<std::size_t>(len)));
        }
      } else if (fd == http) {
        for (;;) {
          int c = accept4(http, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
          if (c < 0) break;
          conns[c];
          add(c);
        }
      } else {
        // Drain pending datagrams first so a /stats read right after traffic sees all of it.
        for (;;) {
          ssize_t len = recv(udp, datagram, sizeof datagram, 0);
          if (len < 0) break;
          stats.ingest_datagram(std::string_view(datagram, static_cast<std::size_t>(len)));
        }
        std::string& buf = conns[fd];
        char tmp[4096];
        ssize_t r = ::read(fd, tmp, sizeof tmp);
        bool done = r <= 0;
        if (r > 0) buf.append(tmp, static_cast<std::size_t>(r));
        if (!done && (buf.find("\r\n\r\n") != std::string::npos || buf.size() > 8192)) {
          std::string target;
          std::size_t sp1 = buf.find(' ');
          std::size_t sp2 = sp1 == std::string::npos ? sp1 : buf.find(' ', sp1 + 1);
          if (sp2 != std::string::npos) target = buf.substr(sp1 + 1, sp2 - sp1 - 1);
          if (target == "/metrics") {
            send_all(fd, http_response(200, "text/plain; version=0.0.4", stats.metrics_text()));
          } else if (target == "/stats") {
            send_all(fd, http_response(200, "application/json", stats.stats_json()));
          } else {
            send_all(fd, http_response(404, "text/plain", "try /metrics or /stats\n"));
          }
          done = true;
        }
        if (done) {
          conns.erase(fd);
          ::close(fd);
        }
      }
    }
    if (duration > 0 && std::chrono::steady_clock::now() >= deadline) running = false;
  }
  for (auto& [fd, buf] : conns) ::close(fd);
  std::fprintf(stderr,
               "gatebench-control: %llu datagrams (%llu malformed, %llu lost), %llu records\n",
               static_cast<unsigned long long>(stats.datagrams()),
               static_cast<unsigned long long>(stats.malformed_datagrams()),
               static_cast<unsigned long long>(stats.lost_datagrams()),
               static_cast<unsigned long long>(stats.records()));
  return 0;
}
