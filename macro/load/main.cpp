// gatebench-load: command line, signals and exit codes around run_load (runner.hpp).
#include <signal.h>
#include <sys/resource.h>

#include <atomic>
#include <cstdio>
#include <exception>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "macro/common/usage_error.hpp"
#include "macro/load/options.hpp"
#include "macro/load/report.hpp"
#include "macro/load/request_set.hpp"
#include "macro/load/runner.hpp"
#include "macro/load/url.hpp"

namespace {

std::atomic<bool> g_stop{false};

extern "C" void on_signal(int) {
  g_stop.store(true);
}

// Each connection is a descriptor; the default soft limit (1024) is too small for -c 2000.
void raise_fd_limit() {
  rlimit lim{};
  if (getrlimit(RLIMIT_NOFILE, &lim) == 0 && lim.rlim_cur < lim.rlim_max) {
    lim.rlim_cur = lim.rlim_max;
    setrlimit(RLIMIT_NOFILE, &lim);
  }
}

}  // namespace

int main(int argc, char** argv) {
  using namespace gatebench::load;
  Options options;
  Target target;
  RequestSet requests;
  try {
    const auto parsed = parse_options(std::vector<std::string>(argv + 1, argv + argc));
    if (!parsed) {
      std::cout << help_text();
      return 0;
    }
    options = *parsed;
    if (options.capabilities) {
      std::cout << gatebench::common::load_capabilities_json(load_capabilities());
      return 0;
    }
    target = parse_url(options.url);
    resolve(target);
    requests =
        options.requests_path.empty()
            ? RequestSet::single(target, options.headers, options.close)
            : RequestSet::load(options.requests_path, target, options.headers, options.close);
    raise_fd_limit();
    rlimit lim{};
    getrlimit(RLIMIT_NOFILE, &lim);
    if (static_cast<rlim_t>(options.connections) + 64 > lim.rlim_cur)
      throw gatebench::common::UsageError("--connections " + std::to_string(options.connections) +
                                          " exceeds the open-file limit (" +
                                          std::to_string(lim.rlim_cur) + ")");
  } catch (const gatebench::common::UsageError& e) {
    std::cerr << "gatebench-load: " << e.what() << "\n";
    return gatebench::common::kUsageExit;
  }

  struct sigaction sa {};
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
  signal(SIGPIPE, SIG_IGN);

  try {
    const RunResult result = run_load(options, target, requests, g_stop);
    if (!options.quiet) std::cout << console_summary(options, requests, result) << std::flush;
    if (!options.json_path.empty()) {
      std::ofstream out(options.json_path);
      out << gatebench::common::to_json(load_report(options, requests, result)).dump(2) << "\n";
      if (!out) {
        std::cerr << "gatebench-load: cannot write " << options.json_path << "\n";
        return 1;
      }
    }
    // A server that cannot speak HTTP/2 to an --h2 run is a failure, not a measurement.
    if (!result.stats.h2.not_h2.empty()) {
      std::cerr << "gatebench-load: " << options.url << ": " << result.stats.h2.not_h2 << "\n";
      return 1;
    }
  } catch (const std::exception& e) {
    std::cerr << "gatebench-load: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
