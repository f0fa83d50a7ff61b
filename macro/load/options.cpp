#include "macro/load/options.hpp"

#include <sched.h>

#include <charconv>
#include <cmath>
#include <string>

#include "macro/load/usage_error.hpp"

namespace gatebench::load {
namespace {

double parse_number(std::string_view text, std::string_view what) {
  double value = 0;
  const auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || p != text.data() + text.size() || !std::isfinite(value))
    throw UsageError(std::string(what) + ": '" + std::string(text) + "' is not a number");
  return value;
}

long parse_count(std::string_view text, std::string_view what, long lo, long hi) {
  long value = 0;
  const auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || p != text.data() + text.size())
    throw UsageError(std::string(what) + ": '" + std::string(text) + "' is not a whole number");
  if (value < lo || value > hi)
    throw UsageError(std::string(what) + ": " + std::string(text) + " is out of range [" +
                     std::to_string(lo) + ", " + std::to_string(hi) + "]");
  return value;
}

}  // namespace

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

std::uint64_t parse_duration_ns(std::string_view text, std::string_view what) {
  std::size_t unit_at = text.size();
  while (unit_at > 0 && ((text[unit_at - 1] >= 'a' && text[unit_at - 1] <= 'z') ||
                         (text[unit_at - 1] >= 'A' && text[unit_at - 1] <= 'Z')))
    --unit_at;
  const std::string_view unit = text.substr(unit_at);
  double scale = 0;
  if (unit.empty() || unit == "s")
    scale = 1e9;
  else if (unit == "ms")
    scale = 1e6;
  else if (unit == "us")
    scale = 1e3;
  else if (unit == "m")
    scale = 60e9;
  else if (unit == "h")
    scale = 3600e9;
  else
    throw UsageError(std::string(what) + ": unknown unit '" + std::string(unit) + "' in '" +
                     std::string(text) + "' (use us, ms, s, m or h)");
  const double value = parse_number(text.substr(0, unit_at), what);
  if (value < 0) throw UsageError(std::string(what) + ": '" + std::string(text) + "' is negative");
  const double ns = value * scale;
  if (ns > 30.0 * 24 * 3600e9)
    throw UsageError(std::string(what) + ": '" + std::string(text) + "' is longer than 30 days");
  return static_cast<std::uint64_t>(std::llround(ns));
}

std::string help_text() {
  return R"(Usage: gatebench-load [options] URL

HTTP/1.1 load generator for gatebench (wrk-compatible options where wrk has them).

  -t, --threads N          threads, each with its own event loop (default 2)
  -c, --connections N      connections over all threads, >= threads (default 10)
  -d, --duration D         measured duration (default 10s); D: 10s, 500ms, 2m, 1h, bare = s
      --warmup D           traffic before the measured window, excluded from results (default 0)
  -R, --rate R             open loop: R requests/s over all connections, latency measured from
                           each request's intended send time (default: closed loop)
      --requests-total N   measured request budget: stop after exactly N requests (then -d is
                           only an upper bound and defaults to 1h)
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
      --close              new connection per request (sends Connection: close)
      --timeout D          per-request timeout, also bounds connect and TLS handshake (default 2s)
      --tls-resume         resume TLS sessions on new connections (default)
      --no-tls-resume      full handshake on every new connection
  -H, --header 'N: v'      add a header to every request (repeatable)
      --requests FILE      weighted mix of request templates (JSON, see docs/load.md)
      --json FILE          write the results as JSON (schema gatebench.load/1)
      --no-progress        no progress line on a terminal
  -q, --quiet              no console summary
  -h, --help               this text

Exit status: 0 done (see "valid" in the JSON), 1 failure, 2 bad command line or input file.
)";
}

std::optional<Options> parse_options(const std::vector<std::string>& args) {
  Options o;
  bool have_url = false;
  bool have_connections = false;
  for (std::size_t i = 0; i < args.size(); ++i) {
    std::string arg = args[i];
    std::string inline_value;
    bool has_inline = false;
    if (arg.starts_with("--")) {
      const std::size_t eq = arg.find('=');
      if (eq != std::string::npos) {
        inline_value = arg.substr(eq + 1);
        arg.resize(eq);
        has_inline = true;
      }
    } else if (arg.size() > 2 && arg[0] == '-' && arg[1] != '-') {
      // wrk style "-t4" and "-c64".
      inline_value = arg.substr(2);
      arg.resize(2);
      has_inline = true;
    }
    auto value = [&]() -> std::string {
      if (has_inline) return inline_value;
      if (i + 1 >= args.size()) throw UsageError("option " + arg + " needs a value");
      return args[++i];
    };
    auto no_value = [&] {
      if (has_inline) throw UsageError("option " + arg + " takes no value");
    };
    if (arg == "-h" || arg == "--help") {
      return std::nullopt;
    } else if (arg == "-t" || arg == "--threads") {
      o.threads = static_cast<int>(parse_count(value(), "--threads", 1, 1024));
    } else if (arg == "-c" || arg == "--connections") {
      o.connections = static_cast<int>(parse_count(value(), "--connections", 1, 1'000'000));
      have_connections = true;
    } else if (arg == "-d" || arg == "--duration") {
      o.duration_ns = parse_duration_ns(value(), "--duration");
      if (o.duration_ns < 1'000'000) throw UsageError("--duration: must be at least 1ms");
      o.duration_given = true;
    } else if (arg == "--warmup") {
      o.warmup_ns = parse_duration_ns(value(), "--warmup");
    } else if (arg == "-R" || arg == "--rate") {
      const std::string v = value();
      o.rate = parse_number(v, "--rate");
      if (o.rate <= 0 || o.rate > 1e8) throw UsageError("--rate: must be in (0, 1e8] requests/s");
    } else if (arg == "--requests-total") {
      o.requests_total = static_cast<std::uint64_t>(
          parse_count(value(), "--requests-total", 1, 1'000'000'000'000L));
    } else if (arg == "--spin") {
      const std::string v = value();
      o.spin_auto = v == "auto";
      if (!o.spin_auto) {
        o.spin_ns = parse_duration_ns(v, "--spin");
        if (o.spin_ns > 10'000'000) throw UsageError("--spin: at most 10ms");
      }
    } else if (arg == "--io") {
      o.io = value();
      if (o.io != "auto" && o.io != "uring" && o.io != "epoll")
        throw UsageError("--io: expected auto, uring or epoll, got '" + o.io + "'");
    } else if (arg == "--sched") {
      o.sched = value();
      if (o.sched != "auto" && o.sched != "batch" && o.sched != "normal")
        throw UsageError("--sched: expected auto, batch or normal, got '" + o.sched + "'");
    } else if (arg == "--close") {
      no_value();
      o.close = true;
    } else if (arg == "--timeout") {
      o.timeout_ns = parse_duration_ns(value(), "--timeout");
      if (o.timeout_ns < 1'000'000) throw UsageError("--timeout: must be at least 1ms");
    } else if (arg == "--tls-resume") {
      no_value();
      o.tls_resume = true;
    } else if (arg == "--no-tls-resume") {
      no_value();
      o.tls_resume = false;
    } else if (arg == "-H" || arg == "--header") {
      const std::string h = value();
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
    } else if (arg == "--requests") {
      o.requests_path = value();
    } else if (arg == "--json") {
      o.json_path = value();
    } else if (arg == "--no-progress") {
      no_value();
      o.progress = false;
    } else if (arg == "-q" || arg == "--quiet") {
      no_value();
      o.quiet = true;
    } else if (arg.size() > 1 && arg[0] == '-') {
      throw UsageError("unknown option " + arg + " (see --help)");
    } else {
      if (have_url) throw UsageError("more than one URL: '" + o.url + "' and '" + arg + "'");
      o.url = arg;
      have_url = true;
    }
  }
  if (!have_url) throw UsageError("missing URL (see --help)");
  if (!have_connections && o.connections < o.threads) o.connections = o.threads;
  if (o.connections < o.threads)
    throw UsageError("--connections (" + std::to_string(o.connections) +
                     ") must be at least --threads (" + std::to_string(o.threads) + ")");
  if (o.requests_total > 0 && !o.duration_given) o.duration_ns = 3600'000'000'000ULL;
  return o;
}

}  // namespace gatebench::load
