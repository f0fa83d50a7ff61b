#pragma once
// Scenario files (macro/scenarios/*.json, format in docs/scenarios.md): the model and its loader.
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "macro/common/json_field.hpp"
#include "macro/common/usage_error.hpp"
#include "macro/driver/plan/cache_check.hpp"
#include "macro/driver/system/cpu_layout.hpp"

namespace gatebench::macro {

// "<file>: <JSON pointer>: <what was expected>"; the driver exits 2 on it before starting
// anything. The common bad-input type under the name the scenario code reads best with.
using ScenarioError = common::UsageError;

struct ConfigFile {
  std::string template_name;  // relative to the configs directory
  std::string output;         // relative to the scenario's run directory
  bool operator==(const ConfigFile&) const = default;
};

struct ReadyCheck {
  std::string port;       // a key of Scenario::ports
  std::string http_path;  // empty: a TCP connect is enough
  double timeout_s = 10;
  bool operator==(const ReadyCheck&) const = default;
};

struct ServiceSpec {
  std::string name;
  Role role = Role::backend;
  std::string binary;  // a tool name resolved by the driver (nginx, gatebench-gateway, ...)
  // Instead of `binary`: a local container image run as it is (container runtimes only; `args`
  // follow the image's entrypoint). `mount`: where the run directory (rendered configs) also
  // appears read-only inside it. `image_at`: the JSON pointer of `image`, for errors.
  std::string image;
  std::string mount;
  std::string image_at;
  std::vector<std::string> args;
  std::map<std::string, std::string> env;
  std::vector<ConfigFile> configs;
  std::vector<std::string> dirs;
  std::vector<std::string> discard;  // run-directory files deleted after the run (access logs)
  ReadyCheck ready;
  bool sample = false;  // part of the measured target (CPU%, memory)
  // Absolute directory of this service's config templates; empty: the scenario directory's
  // configs/. A target outside the checkout keeps its templates beside its file (targets.hpp).
  std::string templates;
  bool operator==(const ServiceSpec&) const = default;
};

struct PrepareStep {
  std::string step;                           // "tls-cert" or "cookies"
  std::map<std::string, std::string> params;  // tls-cert: cert, key (run-directory paths)
  // cookies: GET each path in turn on `port` with `headers` and the cookies received so far; the
  // value of cookie `cookie` becomes ${cookie.<name>} for the load's headers and request mix.
  std::string port;
  std::vector<std::string> get;
  std::vector<std::string> headers;
  std::string cookie;
  bool operator==(const PrepareStep&) const = default;
};

enum class LoadMode { closed, rate, search };

struct LoadSpec {
  std::string port;
  std::string scheme = "http";
  std::string host = "127.0.0.1";
  std::string path = "/";
  std::vector<std::string> headers;
  bool close = false;      // Connection: close, one connection (and TLS handshake) per request
  bool tls_resume = true;  // false: every handshake is a full one
  LoadMode mode = LoadMode::closed;
  double rate = 10000;    // req/s, mode rate
  std::string requests;   // request-mix template (configs dir), needs gatebench-load
  double slo_p99_us = 0;  // mode search
  int connections = 0;    // 0: the run's --connections
  // gatebench-load threads; 0: the run's --threads. A scenario whose client needs more CPU per
  // request than one thread gives (a full TLS handshake per request) names its own.
  int threads = 0;
  // HTTP/2 (gatebench-load --h2): over TLS with ALPN h2 for scheme https, h2c with prior
  // knowledge for http; `streams` concurrent streams per connection.
  bool http2 = false;
  int streams = 1;
  // > 0: the measured run is exactly this many requests over `connections` (the WAF method's
  // fixed counts at low concurrency), the run's duration only its upper bound; a round that
  // completes fewer fails. 0: the duration decides.
  uint64_t requests_total = 0;
  bool operator==(const LoadSpec&) const = default;
};

struct Scenario {
  std::string name;
  std::string description;
  std::string file;  // where it came from, for messages
  int order = 100;
  std::map<std::string, int> ports;
  // Tool names (looked up like the services' binaries) or absolute paths of files that must
  // exist (a module, a rule set); either missing skips the scenario with the reason.
  std::vector<std::string> requires_tools;
  std::vector<ServiceSpec> services;
  std::vector<PrepareStep> prepare;
  LoadSpec load;
  std::string baseline = "nginx-baseline";
  std::string latency_baseline;  // latency reported as deltas from this scenario (waf-mix)
  // Share of requests a round may answer otherwise than expected before it counts as failed,
  // when the scenario's answers are what it measures (a peer WAF's misses and false positives);
  // unset: --max-error-rate. The larger of the two applies.
  std::optional<double> max_error_rate;
  // A cache in front of the backend: each round's hit ratio is measured and checked.
  std::optional<CacheCheck> cache;
  std::string group;  // the file's name for scenarios expanded from "over"
  // Non-empty: known from the files alone that it cannot run (a target that does not offer the
  // workload's feature, targets.hpp); reported as skipped with this reason.
  std::string unavailable;

  // The role whose CPU and memory are reported: gateway when the scenario has one, else backend.
  Role target_role() const;
};

// Loads and validates every *.json in `dir`, expanding "over" files; sorted by (order, name).
std::vector<Scenario> load_scenarios(const std::string& dir);

// Parses one scenario object; `file` names it in errors. Exposed for tests.
Scenario parse_scenario(const std::string& text, const std::string& file);
// The same for a parsed object with its service blocks resolved (targets.cpp builds them).
Scenario parse_scenario_object(const nlohmann::json& object, const std::string& file);
// One service object; errors name `f`'s file and pointer. Each `ready.port` must be in `ports`.
ServiceSpec parse_service_spec(const common::JsonField& f, const std::map<std::string, int>& ports);

}  // namespace gatebench::macro
