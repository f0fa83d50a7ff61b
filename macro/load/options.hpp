// Command-line options of gatebench-load, validated up front (wrk-compatible where wrk has them).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "macro/common/load_capabilities.hpp"

namespace gatebench::load {

struct Options {
  int threads = 2;
  int connections = 10;
  std::uint64_t duration_ns = 10'000'000'000ULL;
  bool duration_given = false;
  std::uint64_t warmup_ns = 0;
  double rate = 0;  // requests per second over all connections; 0: closed loop
  bool close = false;
  std::string json_path;
  std::string requests_path;
  std::vector<std::string> headers;  // "Name: value"
  // --count-header: the response header whose values are counted (header_count.hpp), lower
  // case; empty: none.
  std::string count_header;
  std::uint64_t timeout_ns = 2'000'000'000ULL;
  bool tls_resume = true;
  std::uint64_t requests_total = 0;  // 0: no budget, the duration decides
  // Open loop: the schedule starts again one interval after the first response, so the wait for
  // a slow first connection (a TLS handshake under valgrind) leaves no backlog of due requests.
  bool rebase_pace = false;
  // Open loop: stop sleeping this long before a due send and poll instead (0: always sleep).
  // spin_auto: not given on the command line; effective_spin_ns() decides (run_load asks it).
  std::uint64_t spin_ns = 0;
  bool spin_auto = true;
  // How plain-HTTP connections send and receive: "uring" (io_uring), "epoll", or "auto" (the
  // default: io_uring where the kernel allows it, else epoll). TLS connections always use epoll.
  std::string io = "auto";
  // Scheduling policy of the worker threads: "batch" (SCHED_BATCH), "normal", or "auto" (the
  // default: batch in closed loop, normal in open loop; see effective_sched_batch()).
  std::string sched = "auto";
  // HTTP/2 (h2_worker.hpp): over TLS with ALPN h2 for https:// URLs, cleartext with prior
  // knowledge (h2c) for http:// URLs; `streams` concurrent streams per connection at most (fewer
  // when the server's SETTINGS_MAX_CONCURRENT_STREAMS is lower).
  bool h2 = false;
  int streams = 1;
  // Wall-clock start of the run (Unix ms): load generators on several hosts begin together (the
  // hosts' clocks must agree, NTP). 0: start as soon as the threads are up.
  std::uint64_t start_at_unix_ms = 0;
  bool progress = true;
  bool quiet = false;
  // --capabilities: print load_capabilities() as JSON and exit; nothing else is set.
  bool capabilities = false;
  std::string url;
};

// Parses argv (without argv[0]). Returns nullopt when --help was asked (the text is printed by
// the caller through help_text()). Throws common::UsageError with a precise message otherwise;
// durations use the common syntax (macro/common/duration.hpp).
std::optional<Options> parse_options(const std::vector<std::string>& args);
std::string help_text();
// The long options parse_options accepts, for --capabilities (macro/common/load_capabilities.hpp).
common::LoadCapabilities load_capabilities();

// The open-loop polling window a run uses: the --spin value, or with `--spin auto` (the default)
// kAutoSpinNs when the threads leave at least one of the CPUs this process may run on free, so
// that polling never takes every CPU from the server under test, and 0 otherwise.
inline constexpr std::uint64_t kAutoSpinNs = 50'000;
std::uint64_t effective_spin_ns(const Options& options, int usable_cpus);
int usable_cpus();  // CPUs in this process's affinity mask

// Whether the worker threads run as SCHED_BATCH: with `--sched auto`, in closed loop only. A batch
// thread that wakes up does not preempt the thread running on its CPU, which on a machine shared
// with the server under test is usually that server: the server finishes its batch of responses
// instead of being switched out for every one (docs/load.md, "Scheduling"). Open loop keeps the
// normal policy because there a late wake-up is a late send.
bool effective_sched_batch(const Options& options);

}  // namespace gatebench::load
