#include "tests/macro/load/nginx_process.hpp"

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "tests/macro/load/test_server.hpp"

namespace gatebench::load::testing {
namespace {

constexpr const char* kNginx = "/usr/sbin/nginx";

bool port_open(std::uint16_t port) {
  const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = htons(port);
  const bool ok = connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0;
  close(fd);
  return ok;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace

AccessLogSummary summarise_access_log(const std::vector<std::string>& lines) {
  AccessLogSummary s;
  for (const std::string& line : lines) {
    std::istringstream in(line);
    std::string conn, reused, status;
    in >> conn >> reused >> status;
    s.lines += 1;
    s.connections.insert(conn);
    if (status == "200") s.ok += 1;
    if (status == "404") s.not_found += 1;
    if (reused == "r") s.reused += 1;
  }
  return s;
}

std::string make_temp_dir() {
  std::string templ = (std::filesystem::temp_directory_path() / "gatebench-load-XXXXXX").string();
  if (mkdtemp(templ.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
  return templ;
}

bool make_self_signed(const std::string& dir, std::string& reason) {
  if (access("/usr/bin/openssl", X_OK) != 0) {
    reason = "openssl command not installed (apt-get install openssl)";
    return false;
  }
  common::SpawnSpec spec;
  spec.exe = "/usr/bin/openssl";
  spec.args = {"req",
               "-x509",
               "-newkey",
               "ec",
               "-pkeyopt",
               "ec_paramgen_curve:prime256v1",
               "-nodes",
               "-days",
               "2",
               "-subj",
               "/CN=localhost",
               "-keyout",
               dir + "/key.pem",
               "-out",
               dir + "/cert.pem"};
  if (common::run_to_exit(spec) != 0) {
    reason = "openssl could not create a self-signed certificate";
    return false;
  }
  return true;
}

NginxProcess::NginxProcess(const std::string& log_format) : NginxProcess(NginxConfig{log_format}) {}

NginxProcess::NginxProcess(const NginxConfig& config) {
  if (access(kNginx, X_OK) != 0) {
    reason_ = std::string(kNginx) + " not installed (apt-get install nginx-light)";
    return;
  }
  dir_ = make_temp_dir();
  if (!make_self_signed(dir_, reason_)) return;
  // The ports are free when picked, but a test running beside this one can take one as a client
  // connection's local port before nginx binds it: a fresh set of ports then, not a skip.
  for (int attempt = 0; attempt < 5; ++attempt) {
    reason_.clear();
    start(config);
    if (available() || reason_.find("Address already in use") == std::string::npos) return;
  }
}

void NginxProcess::start(const NginxConfig& config) {
  http_port_ = closed_port();
  https_port_ = closed_port();
  if (config.h2) {
    h2c_port_ = closed_port();
    h2_port_ = closed_port();
  }
  for (const char* sub : {"body", "proxy", "fastcgi", "uwsgi", "scgi"})
    std::filesystem::create_directory(dir_ + "/" + sub);
  std::ofstream conf(dir_ + "/nginx.conf");
  conf << "daemon off;\nmaster_process off;\nworker_processes 1;\n"
       << "pid " << dir_ << "/nginx.pid;\nerror_log " << dir_ << "/error.log warn;\n"
       << "events { worker_connections 4096; }\n"
       << "http {\n"
       << "  log_format gb '$connection $ssl_session_reused $status $request_uri';\n"
       << "  access_log " << dir_ << "/access.log " << config.log_format << ";\n"
       << "  client_body_temp_path " << dir_ << "/body;\n"
       << "  proxy_temp_path " << dir_ << "/proxy;\n"
       << "  fastcgi_temp_path " << dir_ << "/fastcgi;\n"
       << "  uwsgi_temp_path " << dir_ << "/uwsgi;\n"
       << "  scgi_temp_path " << dir_ << "/scgi;\n"
       << "  keepalive_requests " << config.keepalive_requests << ";\n"
       << "  server {\n"
       << "    listen 127.0.0.1:" << http_port_ << ";\n"
       << "    listen 127.0.0.1:" << https_port_ << " ssl;\n";
  if (config.h2) {
    // nginx 1.22 syntax (the `http2 on;` directive came in 1.25.1); a plain listener with http2
    // speaks h2c with prior knowledge only.
    conf << "    listen 127.0.0.1:" << h2c_port_ << " http2;\n"
         << "    listen 127.0.0.1:" << h2_port_ << " ssl http2;\n";
    if (config.max_concurrent_streams > 0)
      conf << "    http2_max_concurrent_streams " << config.max_concurrent_streams << ";\n";
  }
  conf << "    ssl_certificate " << dir_ << "/cert.pem;\n"
       << "    ssl_certificate_key " << dir_ << "/key.pem;\n"
       << "    ssl_protocols TLSv1.2 TLSv1.3;\n"
       << "    ssl_session_cache shared:gb:1m;\n"
       << "    location / { return 200 \"ok\\n\"; }\n"
       << "    location /missing { return 404; }\n"
       // A cache-status header as a cache would send it, its value from ?s= (none without it:
       // nginx adds no header with an empty value).
       << "    location /cache { add_header X-Cache-Status $arg_s always; return 200 \"ok\\n\"; }\n"
       << "  }\n}\n";
  conf.close();
  common::SpawnSpec spec;
  spec.exe = kNginx;
  spec.args = {"-p", dir_, "-c", dir_ + "/nginx.conf", "-e", dir_ + "/error.log"};
  common::ChildProcess nginx;
  try {
    nginx = common::ChildProcess::spawn(spec);
  } catch (const common::SpawnError& e) {
    reason_ = e.what();
    return;
  }
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (std::chrono::steady_clock::now() < give_up) {
    if (nginx.exit_status()) {
      reason_ = "nginx exited at start: " + read_file(dir_ + "/error.log");
      return;
    }
    if (port_open(http_port_) && port_open(https_port_) &&
        (!config.h2 || (port_open(h2c_port_) && port_open(h2_port_)))) {
      nginx_ = std::move(nginx);
      // The readiness probes are connections too; the log has no line for them.
      return;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  reason_ = "nginx did not start listening within 5 s";
}

NginxProcess::~NginxProcess() {
  stop();
  if (!dir_.empty()) {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
}

void NginxProcess::stop() {
  // SIGTERM: the worker flushes its access log on the way out.
  nginx_.stop(std::chrono::seconds(10));
}

std::vector<std::string> NginxProcess::access_log() const {
  std::vector<std::string> lines;
  std::ifstream in(dir_ + "/access.log");
  for (std::string line; std::getline(in, line);)
    if (!line.empty()) lines.push_back(line);
  return lines;
}

}  // namespace gatebench::load::testing
