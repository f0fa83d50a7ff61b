#include "tests/macro/load/load_run.hpp"

#include <atomic>
#include <chrono>
#include <cstdlib>

#include "macro/load/request_set.hpp"
#include "macro/load/url.hpp"

namespace gatebench::load::testing {

LoadRun run_against(const std::string& url, Options options, const std::string& requests_json) {
  options.url = url;
  if (const char* io = std::getenv("GATEBENCH_LOAD_IO"); io != nullptr && options.io == "auto")
    options.io = io;
  options.quiet = true;
  options.progress = false;
  Target target = parse_url(url);
  resolve(target);
  const RequestSet requests =
      requests_json.empty()
          ? RequestSet::single(target, options.headers, options.close)
          : RequestSet::parse(requests_json, "test", target, options.headers, options.close);
  std::atomic<bool> stop{false};
  const auto t0 = std::chrono::steady_clock::now();
  LoadRun run;
  run.result = run_load(options, target, requests, stop);
  run.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return run;
}

}  // namespace gatebench::load::testing
