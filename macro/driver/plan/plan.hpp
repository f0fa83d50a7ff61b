#pragma once
// A scenario made concrete for one run: resolved executables, rendered configs and arguments,
// ports after the offset, CPU sets. Built for every selected scenario before anything starts, so
// a template error is reported up front, and printed as is by --dry-run.
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "macro/driver/plan/hosts.hpp"
#include "macro/driver/plan/options.hpp"
#include "macro/driver/plan/scenario.hpp"
#include "macro/driver/plan/template.hpp"
#include "macro/driver/system/cpu_layout.hpp"
#include "macro/driver/system/toolbox.hpp"

namespace gatebench::macro {

struct ServicePlan {
  std::string name;
  Role role = Role::backend;
  bool sample = false;
  std::string binary;
  std::string exe;  // empty when the tool is missing (the scenario is skipped)
  // A local image under test (docs/targets.md, "Your gateway as an image"): run by its ID with
  // the run directory also at `mount` (read-only) when given; `binary` is then the image's name.
  std::string image, image_id, image_digest, mount;
  std::vector<std::string> args;
  std::map<std::string, std::string> env;
  std::vector<std::pair<std::string, std::string>> configs;  // absolute path, rendered content
  std::vector<std::string> dirs;                             // absolute
  std::vector<std::string> discard;                          // absolute
  int ready_port = 0;
  std::string ready_http;
  double ready_timeout_s = 10;
  CpuSet cpus;
  std::string stdout_path, stderr_path;
  // --place put it on an ssh host (docs/multi-host.md): `host` names it, `address` is where the
  // controller probes it, `remote_dir` its run directory there (its configs and arguments are
  // rendered with that directory); `exe` is then the local binary copied there when
  // `copy_binary`, else `binary` is looked up on the host. Empty `host`: here, probed on loopback.
  // On a container engine host (`host_kind` podman) it runs in a container there, with this
  // machine's paths and its files copied in (engine_service.hpp): `remote_dir` stays empty.
  std::string host;
  HostKind host_kind = HostKind::local;
  std::string address = "127.0.0.1";
  std::string remote_dir;
  bool copy_binary = false;

  // This service's path on its host for a path under the local run directory.
  std::string remote_path(const std::string& local, const std::string& run_dir) const;
};

// The budget of load mode `search` (measure/search.cpp): its measured load runs, the capacity
// run and then the attempts of the offered rates. A search spends all of them (unless the
// capacity itself meets the objective), so the run's estimate counts what it takes. 12 keeps
// the bracket within 5% of its top for a limit down to 30% of the capacity with every failing
// rate measured twice, as the earlier stop rule did (8 rates, 5%: 8 to 17 runs). It is part of
// the plan because a scenario's container timeout is sized from it (engine_service.cpp).
inline constexpr int kSearchRuns = 12;
inline constexpr int kSearchAttempts = 2;  // runs of one rate at most

struct LoadPlan {
  std::string tool;  // "wrk" or "gatebench-load"
  std::string exe;
  std::string url;
  std::vector<std::string> headers;           // rendered; cookies still placeholders
  std::vector<std::string> header_templates;  // as written, rendered again after prepare
  bool close = false;
  bool tls_resume = true;
  LoadMode mode = LoadMode::closed;
  double rate = 0;
  double slo_p99_us = 0;
  std::string requests_path;  // absolute, rendered into the run directory
  std::string requests_content;
  std::string requests_template;  // as read, rendered again after prepare
  int connections = 64;
  int threads = 1;
  bool http2 = false;  // gatebench-load --h2
  int streams = 1;     // --streams
  // gatebench-load --requests-total of the measured run (LoadSpec::requests_total); 0: none.
  uint64_t requests_total = 0;
  // gatebench-load --count-header: the scenario's cache status header; empty: none.
  std::string count_header;
  CpuSet cpus;
  // The run spreads over the load hosts of --place (load_fanout.hpp) instead of one local
  // generator; `url` then names the target's host address from the hosts file.
  bool fanout = false;

  // Arguments of one run. `json_path` (gatebench-load) and `script_path` (wrk) are artifacts.
  // `measured`: the measured run, which alone sends `requests_total` (a warm-up is timed).
  std::vector<std::string> args(double duration_s, std::optional<double> rate,
                                const std::string& json_path, const std::string& script_path,
                                bool measured = true) const;
};

struct ScenarioPlan {
  Scenario scenario;
  std::string run_dir;  // absolute
  std::map<std::string, int> ports;
  std::vector<ServicePlan> services;
  std::vector<PrepareStep> prepare;  // paths made absolute, headers rendered
  Variables vars;                    // for what is rendered again after prepare
  LoadPlan load;
  std::string skip_reason;  // non-empty: known before start that it cannot run
  int target_cpus = 1;      // CPUs of the measured role, for req/s per CPU
};

// Scenarios named on the command line (a group name selects its expansions), in file order;
// every scenario when `names` is empty. Throws common::UsageError for an unknown name.
std::vector<Scenario> select_scenarios(const std::vector<Scenario>& all,
                                       const std::vector<std::string>& names);

// Throws ScenarioError (a template missing or using an unknown variable) naming file and field.
// `placement` (--hosts/--place) decides the addresses services listen on and are reached at
// (${listen.<role>}, ${address.<role>}), which services run on ssh hosts and whether the load
// fans out; null: all on this host. A service on an ssh host gets the run directory
// <workdir>/<session_name()>/<out_dir's name>/<scenario> there, and ${configs} is
// <workdir>/<session_name()>/configs (RemoteHosts copies the configs directory there).
std::vector<ScenarioPlan> make_plans(const std::vector<Scenario>& selected, const Options& options,
                                     const CpuLayout& layout, const Toolbox& tools,
                                     const std::string& configs_dir, const std::string& out_dir,
                                     const Placement* placement = nullptr);

// Why h2load cannot run a scenario (an open-loop rate, a request mix, a new connection per
// request, a cache's hit ratio), or "" when it can: over HTTP/2, and over HTTP/1.1 with --h1.
std::string h2load_cannot(const Scenario& s);

// The session directory's name on every ssh host, the same for the whole driver run.
const std::string& session_name();
// The project's own binaries, copied to an ssh host that runs them (others must be installed).
bool own_binary(const std::string& binary);

// Human-readable plan: commands, pinning, ports, configs, load runs.
std::string describe_plan(const ScenarioPlan& plan, const Options& options);

// The --place role a service runs as: "control" for the service named control (the gateway's
// control plane), its scenario role otherwise.
std::string place_role(const ServiceSpec& service);

// A command line as a shell would need it typed.
std::string shell_join(const std::string& exe, const std::vector<std::string>& args);

// --gateway-wrapper: each gateway-role service of this machine (no image, its tool found) runs as
// wrapper... exe args, with {scenario} and {service} replaced in every wrapper word.
void wrap_gateway_services(ScenarioPlan& plan, const std::vector<std::string>& wrapper);

}  // namespace gatebench::macro
