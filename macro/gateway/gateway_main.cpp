// gatebench-gateway: the reference HTTP/1.1 gateway (docs/gateway.md).
#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "macro/common/command_line.hpp"
#include "macro/common/usage_error.hpp"
#include "macro/gateway/calibrate.hpp"
#include "macro/gateway/config.hpp"
#include "macro/gateway/response_cache.hpp"
#include "macro/gateway/shared_state.hpp"
#include "macro/gateway/tls_context.hpp"
#include "macro/gateway/worker.hpp"

namespace common = gatebench::common;
namespace gw = gatebench::gateway;

namespace {

constexpr const char* kUsage =
    "usage: gatebench-gateway --config FILE [--check]\n"
    "       gatebench-gateway --time-calibration\n"
    "\n"
    "The gatebench reference gateway: an HTTP/1.1 reverse proxy with per-host protection\n"
    "features (IP lists, rules, exploit patterns, rate limit, queue, challenge, security\n"
    "headers). Configuration format: docs/gateway.md.\n"
    "\n"
    "  --config FILE  JSON configuration (required)\n"
    "  --check        validate the configuration (and TLS files) and exit\n"
    "  --time-calibration\n"
    "                 print the CPU time of one calibration mix on this machine and exit\n"
    "  --help         this text\n"
    "\n"
    "Environment: GATEBENCH_GATEWAY_CALIBRATE_MIXES=N (0..100000000, default 0 = off) adds\n"
    "a chain of N integer mixes of CPU work to every parsed request (docs/gateway.md).\n"
    "GATEBENCH_GATEWAY_STUDY_INJECT=alloc,write,copy (any subset; study only) adds one heap\n"
    "allocation, one write system call or one copy of the request head per request.\n"
    "\n"
    "Signals: SIGHUP reloads the configuration (an invalid one is refused and the old one\n"
    "kept); SIGTERM / SIGINT stop gracefully (in-flight requests finish, at most 5 s).\n"
    "Exit status: 0 after a clean stop, 2 on a bad command line or configuration, 1 on a\n"
    "runtime failure (e.g. a port already in use).\n";

// `running`: the configuration a reload replaces, whose current token key the new one keeps as
// its previous key, so that cookies minted before a key rotation still verify (docs/tokens.md).
std::shared_ptr<const gw::Published> build(const std::string& path, std::uint64_t generation,
                                           const gw::Config* running = nullptr) {
  auto pub = std::make_shared<gw::Published>();
  pub->config = gw::load_config(path);
  if (running != nullptr) {
    auto config = std::make_shared<gw::Config>(*pub->config);
    config->tokens = gw::carry_token_keys(running->tokens.get(), config->tokens, path);
    pub->config = std::move(config);
  }
  pub->tls = gw::make_server_tls(*pub->config);
  pub->generation = generation;
  return pub;
}

// Settings that live in the workers' sockets and threads cannot change on a reload: the JSON
// pointer of the first that did, or empty.
std::string restart_only_change(const gw::Config& a, const gw::Config& b) {
  if (a.workers != b.workers) return "/workers";
  if (a.listeners.size() != b.listeners.size()) return "/listeners";
  for (std::size_t i = 0; i < a.listeners.size(); ++i) {
    if (a.listeners[i].address != b.listeners[i].address ||
        a.listeners[i].port != b.listeners[i].port ||
        a.listeners[i].https != b.listeners[i].https) {
      return "/listeners/" + std::to_string(i);
    }
  }
  if (a.access_log_enabled != b.access_log_enabled ||
      std::memcmp(&a.access_log_addr, &b.access_log_addr, sizeof a.access_log_addr) != 0 ||
      a.access_log_flush_ms != b.access_log_flush_ms) {
    return "/access_log";
  }
  if (a.max_header_bytes != b.max_header_bytes) return "/limits/max_header_bytes";
  return {};
}

// Raises the soft open-file limit to the hard one (the common default soft limit, 1,024, is far
// below what a gateway holds) and returns the client connections per worker the limit leaves
// room for: each may hold an upstream connection too, and a reserve covers listeners, epoll,
// Redis, the access log and pooled upstream connections beyond that. Past this cap a worker
// answers 503 instead of failing accept() for want of descriptors.
std::uint32_t raise_descriptor_limit(const gw::Config& config) {
  rlimit lim{};
  if (getrlimit(RLIMIT_NOFILE, &lim) != 0) return UINT32_MAX;
  const rlim_t was = lim.rlim_cur;
  if (lim.rlim_cur != lim.rlim_max) {
    lim.rlim_cur = lim.rlim_max;
    if (setrlimit(RLIMIT_NOFILE, &lim) != 0) lim.rlim_cur = was;
  }
  if (lim.rlim_cur == RLIM_INFINITY) return UINT32_MAX;
  const rlim_t reserve = 32 + rlim_t{config.workers} * (config.listeners.size() + 16);
  const rlim_t per_worker =
      lim.rlim_cur > reserve ? (lim.rlim_cur - reserve) / (2 * rlim_t{config.workers}) : 0;
  const auto cap = static_cast<std::uint32_t>(std::clamp<rlim_t>(per_worker, 1, UINT32_MAX));
  if (was != lim.rlim_cur || cap < config.max_connections_per_worker) {
    std::fprintf(stderr,
                 "gatebench-gateway: open files: %llu (soft limit was %llu); at most %u "
                 "connections per worker\n",
                 static_cast<unsigned long long>(lim.rlim_cur),
                 static_cast<unsigned long long>(was),
                 std::min(cap, config.max_connections_per_worker));
  }
  return cap;
}

struct Invocation {
  bool help = false;
  bool time_calibration = false;
  bool check_only = false;
  std::string config_path;
};

// Throws common::UsageError.
Invocation parse_command_line(const std::vector<std::string>& args) {
  using common::flag_option;
  using common::value_option;
  const common::CommandLine line(args, {value_option("config"), flag_option("check"),
                                        flag_option("time-calibration"), flag_option("help", 'h')});
  line.expect_no_positionals();
  Invocation inv;
  inv.help = line.flag("help");
  if (inv.help) return inv;
  inv.time_calibration = line.flag("time-calibration");
  inv.check_only = line.flag("check");
  inv.config_path = line.value_or("config", "");
  if (!inv.time_calibration && inv.config_path.empty()) {
    throw common::UsageError("--config FILE is required");
  }
  return inv;
}

}  // namespace

int main(int argc, char** argv) {
  Invocation inv;
  try {
    inv = parse_command_line(std::vector<std::string>(argv + 1, argv + argc));
  } catch (const common::UsageError& e) {
    std::fprintf(stderr, "gatebench-gateway: %s\n%s", e.what(), kUsage);
    return common::kUsageExit;
  }
  if (inv.help) {
    std::fputs(kUsage, stdout);
    return 0;
  }
  if (inv.time_calibration) {
    constexpr std::uint32_t kMixes = 10'000'000;
    constexpr int kRuns = 21;
    gw::MixTiming t = gw::time_calibrate_mix(kMixes, kRuns);
    std::printf(
        "calibration mix: %.3f ns of CPU (median of %d runs of %u mixes; min %.3f, max %.3f)\n",
        t.median_ns, kRuns, kMixes, t.min_ns, t.max_ns);
    return 0;
  }
  const std::string& config_path = inv.config_path;
  std::uint32_t calibrate_mixes = 0;
  gw::StudyInjections study_inject;
  try {
    calibrate_mixes = gw::parse_calibrate_mixes(std::getenv(gw::kCalibrateMixesEnv));
    study_inject = gw::parse_study_injections(std::getenv(gw::kStudyInjectEnv));
  } catch (const gw::ConfigError& e) {
    std::fprintf(stderr, "gatebench-gateway: %s\n", e.what());
    return common::kUsageExit;
  }

  std::uint64_t generation = 1;
  std::shared_ptr<const gw::Published> pub;
  try {
    pub = build(config_path, generation);
  } catch (const gw::ConfigError& e) {
    std::fprintf(stderr, "gatebench-gateway: %s\n", e.what());
    return common::kUsageExit;
  }
  if (inv.check_only) {
    std::printf("%s: ok\n", config_path.c_str());
    return 0;
  }

  // Signals are taken synchronously by this thread only; workers inherit the blocked mask.
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGHUP);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGINT);
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
  signal(SIGPIPE, SIG_IGN);

  gw::SharedState shared;
  shared.calibrate_mixes = calibrate_mixes;
  shared.study_inject = study_inject;
  // Open for the whole run (closed at exit), only when the study's `write` injection is on.
  struct NullFd {
    int fd;
    ~NullFd() {
      if (fd >= 0) ::close(fd);
    }
  } const null_fd{study_inject.write ? ::open("/dev/null", O_WRONLY | O_CLOEXEC) : -1};
  shared.study_null_fd = null_fd.fd;
  shared.descriptor_connection_cap = raise_descriptor_limit(*pub->config);
  shared.cache_counter_slots = pub->config->workers;
  shared.cache_counters = std::make_unique<gw::CacheCounters[]>(pub->config->workers);
  shared.publish(pub);
  std::vector<std::unique_ptr<gw::Worker>> workers;
  try {
    for (unsigned i = 0; i < pub->config->workers; ++i) {
      workers.push_back(std::make_unique<gw::Worker>(static_cast<int>(i), shared));
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "gatebench-gateway: %s\n", e.what());
    return 1;
  }
  for (auto& w : workers) w->start();
  std::fprintf(stderr, "gatebench-gateway: %u workers, %zu hosts, config %s\n",
               pub->config->workers, pub->config->hosts.size(), config_path.c_str());
  if (calibrate_mixes != 0) {
    std::fprintf(stderr, "gatebench-gateway: calibration: %u mixes per request (%s)\n",
                 calibrate_mixes, gw::kCalibrateMixesEnv);
  }
  if (study_inject.any()) {
    std::fprintf(stderr, "gatebench-gateway: study injection:%s%s%s per request (%s)\n",
                 study_inject.alloc ? " alloc" : "", study_inject.write ? " write" : "",
                 study_inject.copy ? " copy" : "", gw::kStudyInjectEnv);
  }

  for (;;) {
    int sig = 0;
    if (sigwait(&set, &sig) != 0) continue;
    if (sig == SIGHUP) {
      try {
        auto next = build(config_path, generation + 1, shared.current()->config.get());
        std::string fixed = restart_only_change(*shared.current()->config, *next->config);
        if (!fixed.empty()) {
          throw gw::ConfigError(config_path + ": " + fixed +
                                ": cannot change on reload (restart the gateway)");
        }
        // Each worker's state (rate-limit tables, memory caches) is built here, before the
        // generation is published: memory that is not there refuses the reload, while the
        // running configuration keeps serving, instead of ending a worker thread.
        try {
          for (auto& w : workers) w->prepare(next);
        } catch (const std::exception& e) {
          for (auto& w : workers) w->discard_prepared();
          throw gw::ConfigError(config_path + ": cannot build the workers' state: " + e.what());
        }
        ++generation;
        shared.publish(std::move(next));
        for (auto& w : workers) w->wake();
        std::fprintf(stderr, "gatebench-gateway: reloaded %s (generation %llu)\n",
                     config_path.c_str(), static_cast<unsigned long long>(generation));
      } catch (const gw::ConfigError& e) {
        std::fprintf(stderr, "gatebench-gateway: reload refused, keeping the running config: %s\n",
                     e.what());
      }
      continue;
    }
    break;  // SIGTERM / SIGINT
  }
  shared.request_stop();
  for (auto& w : workers) w->wake();
  for (auto& w : workers) w->join();
  // The cache's counters, for the tests and the scenarios' logs (the hosts of the last reload).
  const auto& hosts = shared.current()->config->hosts;
  if (std::any_of(hosts.begin(), hosts.end(),
                  [](const gw::HostConfig& h) { return h.cache.has_value(); })) {
    char text[512];
    const std::string_view line = gw::format_cache_counters(
        std::span<const gw::CacheCounters>(shared.cache_counters.get(), shared.cache_counter_slots),
        text);
    std::fprintf(stderr, "gatebench-gateway: cache: %.*s\n", static_cast<int>(line.size()),
                 line.data());
  }
  if (shared.worker_failed()) {
    std::fprintf(stderr, "gatebench-gateway: stopped after a worker failed\n");
    return 1;
  }
  std::fprintf(stderr, "gatebench-gateway: stopped\n");
  return 0;
}
