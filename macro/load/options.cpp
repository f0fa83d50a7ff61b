#include "macro/load/options.hpp"

#include <sched.h>

#include <algorithm>
#include <string>
#include <vector>

#include "macro/common/command_line.hpp"
#include "macro/common/usage_error.hpp"
#include "macro/load/header_count.hpp"

namespace gatebench::load {
namespace {

// Every option of the command line; --capabilities lists these names, so what the driver is told
// is what the parser accepts.
const std::vector<common::OptionSpec>& option_specs() {
  using common::flag_option;
  using common::value_option;
  static const std::vector<common::OptionSpec> specs{
      value_option("threads", 't'),  value_option("connections", 'c'),
      value_option("duration", 'd'), value_option("warmup"),
      value_option("rate", 'R'),     value_option("requests-total"),
      value_option("spin"),          value_option("io"),
      value_option("sched"),         flag_option("h2"),
      value_option("streams"),       flag_option("close"),
      value_option("timeout"),       flag_option("tls-resume"),
      flag_option("no-tls-resume"),  value_option("header", 'H'),
      value_option("requests"),      value_option("json"),
      value_option("start-at"),      flag_option("no-progress"),
      flag_option("quiet", 'q'),     flag_option("help", 'h'),
      value_option("count-header"),  flag_option("capabilities"),
      flag_option("rebase-pace")};
  return specs;
}

}  // namespace

common::LoadCapabilities load_capabilities() {
  common::LoadCapabilities caps;
  for (const auto& spec : option_specs()) caps.options.push_back(spec.name);
  std::sort(caps.options.begin(), caps.options.end());
  return caps;
}

std::uint64_t effective_spin_ns(const Options& options, int cpus) {
  if (!options.spin_auto) return options.spin_ns;
  return options.threads < cpus ? kAutoSpinNs : 0;
}

bool effective_sched_batch(const Options& options) {
  if (options.sched == "auto") return options.rate == 0;
  return options.sched == "batch";
}

int usable_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) != 0) return 1;
  return CPU_COUNT(&set);
}

std::string help_text() {
  return R"(Usage: gatebench-load [options] URL

HTTP/1.1 and HTTP/2 load generator for gatebench (wrk-compatible options where wrk has them).

  -t, --threads N          threads, each with its own event loop (default 2)
  -c, --connections N      connections over all threads, >= threads (default 10)
  -d, --duration D         measured duration (default 10s); D: 10s, 500ms, 2m, 1h, bare = s
      --warmup D           traffic before the measured window, excluded from results (default 0)
  -R, --rate R             open loop: R requests/s over all connections, latency measured from
                           each request's intended send time (default: closed loop)
      --requests-total N   measured request budget: stop after exactly N requests (then -d is
                           only an upper bound and defaults to 1h)
      --rebase-pace        with --rate and --requests-total: start the schedule again one
                           interval after the first response (each thread its own), so
                           requests that fell due while the first connection was set up are
                           not sent back to back (HTTP/1.1 and HTTP/2)
      --spin D|auto        open loop: poll instead of sleeping for the last D before a
                           due send, as timer wake-ups come tens of microseconds late
                           (0: always sleep); auto (default): 50us when there are fewer
                           threads than usable CPUs, else 0
      --io auto|uring|epoll
                           how plain-HTTP connections send and receive (default auto:
                           io_uring where the kernel allows it, else epoll; TLS uses epoll)
      --sched auto|batch|normal
                           scheduling policy of the threads (default auto: batch in closed
                           loop, so that a woken thread does not preempt the server under
                           test; normal in open loop, where a late wake-up is a late send)
      --h2                 HTTP/2: https:// URLs negotiate h2 by ALPN (an error when the
                           server does not select it), http:// URLs speak h2c with prior
                           knowledge
      --streams N          HTTP/2: concurrent streams per connection (default 1, as h2load's
                           -m; fewer when the server allows fewer)
      --close              new connection per request (sends Connection: close)
      --timeout D          per-request timeout, also bounds connect and TLS handshake (default 2s)
      --tls-resume         resume TLS sessions on new connections (default)
      --no-tls-resume      full handshake on every new connection
  -H, --header 'N: v'      add a header to every request (repeatable)
      --count-header NAME  count the values of this response header (any case; e.g. a
                           cache's X-Cache-Status): "header_counts" in the JSON
      --requests FILE      weighted mix of request templates (JSON, see docs/load.md)
      --json FILE          write the results as JSON (schema gatebench.load/1)
      --start-at MS        start the run (warm-up, then the window) at this wall-clock time,
                           Unix milliseconds: generators on several hosts start together; a
                           run that starts more than 50ms late is invalid
      --no-progress        no progress line on a terminal
  -q, --quiet              no console summary
      --capabilities       print the options this build accepts as JSON (schema
                           gatebench.load_capabilities/1) and exit; the driver reads it
  -h, --help               this text

Exit status: 0 done (see "valid" in the JSON), 1 failure, 2 bad command line or input file.
)";
}

std::optional<Options> parse_options(const std::vector<std::string>& args) {
  using common::UsageError;
  const common::CommandLine line(args, option_specs());
  if (line.flag("help")) return std::nullopt;
  Options o;
  // Asked by the driver before a run: no URL, nothing else is read.
  if (line.flag("capabilities")) {
    o.capabilities = true;
    return o;
  }
  o.threads = static_cast<int>(line.integer("threads", 1, 1024).value_or(o.threads));
  o.connections =
      static_cast<int>(line.integer("connections", 1, 1'000'000).value_or(o.connections));
  if (auto d = line.duration_ns("duration")) {
    if (*d < 1'000'000) throw UsageError("--duration: must be at least 1ms");
    o.duration_ns = *d;
    o.duration_given = true;
  }
  o.warmup_ns = line.duration_ns("warmup").value_or(o.warmup_ns);
  if (auto rate = line.number("rate")) {
    if (*rate <= 0 || *rate > 1e8) throw UsageError("--rate: must be in (0, 1e8] requests/s");
    o.rate = *rate;
  }
  // With a budget the run ends by count, so a schedule that moved needs no account of the slots
  // it moved out of the window.
  o.rebase_pace = line.flag("rebase-pace");
  if (o.rebase_pace && (!line.given("rate") || !line.given("requests-total")))
    throw UsageError("--rebase-pace: needs --rate and --requests-total");
  o.requests_total =
      static_cast<std::uint64_t>(line.integer("requests-total", 1, 1'000'000'000'000L).value_or(0));
  if (auto spin = line.value("spin"); spin && *spin != "auto") {
    o.spin_auto = false;
    o.spin_ns = *line.duration_ns("spin");
    if (o.spin_ns > 10'000'000) throw UsageError("--spin: at most 10ms");
  }
  o.io = line.choice("io", {"auto", "uring", "epoll"}).value_or(o.io);
  o.sched = line.choice("sched", {"auto", "batch", "normal"}).value_or(o.sched);
  o.close = line.flag("close");
  o.h2 = line.flag("h2");
  if (line.given("streams")) {
    if (!o.h2) throw UsageError("--streams: only with --h2 (HTTP/1.1 has one request in flight)");
    o.streams = static_cast<int>(*line.integer("streams", 1, 1000));
  }
  if (o.h2 && o.io == "uring")
    throw UsageError("--io uring: not with --h2 (HTTP/2 connections use epoll)");
  if (o.h2 && o.close)
    throw UsageError("--close: not with --h2 (HTTP/2 connections carry many requests)");
  if (auto timeout = line.duration_ns("timeout")) {
    if (*timeout < 1'000'000) throw UsageError("--timeout: must be at least 1ms");
    o.timeout_ns = *timeout;
  }
  o.tls_resume = line.last_of({"tls-resume", "no-tls-resume"}).value_or("") != "no-tls-resume";
  for (const std::string& h : line.values("header")) {
    const std::size_t colon = h.find(':');
    if (colon == 0 || colon == std::string::npos)
      throw UsageError("--header '" + h + "': expected 'Name: value'");
    for (std::size_t k = 0; k < colon; ++k) {
      const char c = h[k];
      if (c <= ' ' || c >= 127 ||
          std::string_view("()<>@,;:\\\"/[]?={}").find(c) != std::string_view::npos)
        throw UsageError("--header '" + h + "': invalid character in the header name");
    }
    if (h.find_first_of("\r\n") != std::string::npos)
      throw UsageError("--header: line breaks are not allowed");
    o.headers.push_back(h);
  }
  if (const auto names = line.values("count-header"); !names.empty()) {
    if (names.size() > 1) throw UsageError("--count-header: given more than once");
    o.count_header = count_header_name(names[0]);
  }
  o.requests_path = line.value_or("requests", "");
  o.json_path = line.value_or("json", "");
  o.start_at_unix_ms = static_cast<std::uint64_t>(
      line.integer("start-at", 1, 253'402'300'799'999L).value_or(0));  // up to year 9999
  o.progress = !line.flag("no-progress");
  o.quiet = line.flag("quiet");
  const auto& urls = line.positionals();
  if (urls.empty()) throw UsageError("missing URL (see --help)");
  if (urls.size() > 1)
    throw UsageError("more than one URL: '" + urls[0] + "' and '" + urls[1] + "'");
  o.url = urls[0];
  if (!line.given("connections") && o.connections < o.threads) o.connections = o.threads;
  if (o.connections < o.threads)
    throw UsageError("--connections (" + std::to_string(o.connections) +
                     ") must be at least --threads (" + std::to_string(o.threads) + ")");
  if (o.requests_total > 0 && !o.duration_given) o.duration_ns = 3600'000'000'000ULL;
  return o;
}

}  // namespace gatebench::load
