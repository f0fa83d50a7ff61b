#include "macro/driver/measure/target_check.hpp"

#include <strings.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>

#include "macro/common/command_line.hpp"
#include "macro/common/stop_signal.hpp"
#include "macro/common/usage_error.hpp"
#include "macro/driver/measure/prepare.hpp"
#include "macro/driver/plan/plan.hpp"
#include "macro/driver/plan/targets.hpp"
#include "macro/driver/results/run_support.hpp"
#include "macro/driver/runtime/services.hpp"
#include "macro/driver/system/children.hpp"
#include "macro/driver/system/env_info.hpp"
#include "macro/driver/system/net_probe.hpp"

namespace gatebench::macro {
namespace fs = std::filesystem;

std::string target_help_text() {
  return R"(usage: gatebench-macro target check FILE|NAME [options]   (also: gatebench target check)

Validates a target file (docs/targets.md) as a run would, then starts the target once per
feature it offers, with the shipped backend, and sends one request of the feature's first
workload through it (curl; HTTP/2 for an HTTP/2 workload): prints the status and the headers.

  --out DIR             run directories (default target-check)
  --port-offset N       add N to every port
  --bin-dir DIR         where gatebench-* executables are (default: the build tree)
  --runtime R           process (default), podman or docker: the services in containers, as
                        in a run (a target with "image" needs podman or docker)

Exit status: 0 every feature answered 2xx (or the status its request mix expects); 1 one did
not or could not start; 2 bad target file or option (nothing started).
)";
}

namespace {

// The one request: curl prints the response head on stdout; the body is discarded.
struct Answer {
  bool ok = false;
  std::string text;  // status line and headers, or why there are none
};

// The request sent: the load's, or the first of its request mix (path, query, headers), whose
// expected status is the answer wanted (unknown-host's is 421); 0: any 2xx.
struct Request {
  std::string url;
  std::vector<std::string> headers;
  int expect_status = 0;
};

Request request_of(const LoadPlan& load) {
  Request r{load.url, load.headers, 0};
  if (load.requests_content.empty()) return r;
  const auto mix = nlohmann::json::parse(load.requests_content, nullptr, false);
  if (!mix.is_object() || !mix.contains("requests") || !mix["requests"].is_array() ||
      mix["requests"].empty())
    return r;
  const auto& first = mix["requests"][0];
  const auto authority = r.url.find("//");
  const auto path = r.url.find('/', authority == std::string::npos ? 0 : authority + 2);
  if (first.contains("path") && first["path"].is_string() && path != std::string::npos) {
    r.url = r.url.substr(0, path) + first["path"].get<std::string>();
    if (first.contains("query") && first["query"].is_string())
      r.url += "?" + first["query"].get<std::string>();
  }
  if (first.contains("headers") && first["headers"].is_object())
    for (const auto& [name, value] : first["headers"].items())
      if (value.is_string()) r.headers.push_back(name + ": " + value.get<std::string>());
  if (first.contains("expect_status") && first["expect_status"].is_number_integer())
    r.expect_status = first["expect_status"].get<int>();
  return r;
}

Answer ask(const LoadPlan& load, const Request& request) {
  std::vector<std::string> args = {"-sS", "-k", "-o", "/dev/null", "-D", "-", "--max-time", "10"};
  args.push_back(load.http2 ? "--http2" : "--http1.1");
  if (load.close) args.insert(args.end(), {"-H", "Connection: close"});
  // No User-Agent of curl's own: the load generator and the cookie flows send none, and a
  // cookie bound to the client (the gateway's queue admission) must see the same request.
  const bool has_agent = std::any_of(
      request.headers.begin(), request.headers.end(),
      [](const std::string& h) { return strncasecmp(h.c_str(), "User-Agent:", 11) == 0; });
  if (!has_agent) args.insert(args.end(), {"-H", "User-Agent:"});
  for (const auto& h : request.headers) args.insert(args.end(), {"-H", h});
  args.push_back(request.url);
  const CaptureResult r = run_capture("curl", args, std::chrono::seconds(15));
  Answer a;
  std::istringstream lines(r.output);
  std::string line;
  while (std::getline(lines, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty()) continue;
    // The date says nothing about the target; every other header may.
    if (line.rfind("Date:", 0) == 0 || line.rfind("date:", 0) == 0) continue;
    if (a.text.empty() && line.rfind("HTTP/", 0) == 0) {
      const auto space = line.find(' ');
      a.ok = space != std::string::npos &&
             (request.expect_status == 0
                  ? line.compare(space + 1, 1, "2") == 0
                  : line.compare(space + 1, 3, std::to_string(request.expect_status)) == 0);
    }
    a.text += "    " + line + "\n";
  }
  if (r.timed_out) a.text += "    (no answer within 10 s)\n";
  return a;
}

// Starts the plan's services, asks once, stops them. False when it did not answer as expected.
bool check_feature(const ScenarioPlan& plan, const RunContext& context) {
  if (!plan.skip_reason.empty()) {
    std::printf("  cannot start: %s\n", plan.skip_reason.c_str());
    return false;
  }
  for (const auto& service : plan.services)
    if (!service.image.empty())
      std::printf("  image %s: id %s, digest %s\n", service.image.c_str(), service.image_id.c_str(),
                  service.image_digest.empty() ? "-" : service.image_digest.c_str());
  context.progress.begin(plan.scenario.name);
  Services services(plan, context);
  try {
    for (const auto& [name, port] : plan.ports)
      if (!port_free(port))
        throw Outcome{Status::skipped, "port " + std::to_string(port) + " (" + name + ") is busy"};
    fs::create_directories(plan.run_dir);
    prepare_tls(plan, context.progress);
    write_service_inputs(plan);
    for (const auto& service : plan.services) services.start(service);
    LoadPlan load = plan.load;
    prepare_cookies(plan, context.progress, load);
    const Request request = request_of(load);
    const Answer answer = ask(load, request);
    std::string sent;
    for (const auto& h : request.headers) sent += " [" + h + "]";
    if (request.expect_status != 0)
      sent += " (the request mix expects " + std::to_string(request.expect_status) + ")";
    std::printf("  GET %s%s%s\n%s", request.url.c_str(), load.http2 ? " (HTTP/2)" : "",
                sent.c_str(), answer.text.empty() ? "    no answer\n" : answer.text.c_str());
    services.stop_all();
    return answer.ok;
  } catch (const Outcome& outcome) {
    std::printf("  %s: %s\n", std::string(status_name(outcome.status)).c_str(),
                outcome.reason.c_str());
  } catch (const Interrupted&) {
    std::printf("  interrupted\n");
  }
  try {
    services.stop_all();
  } catch (const Outcome& outcome) {
    std::printf("  %s\n", outcome.reason.c_str());
  }
  return false;
}

}  // namespace

int target_command(const std::vector<std::string>& args) {
  const common::CommandLine line(args, {"out", "port-offset", "bin-dir", "runtime"}, {"help"});
  if (line.flag("help")) {
    std::printf("%s", target_help_text().c_str());
    return 0;
  }
  const auto& words = line.positionals();
  if (words.size() != 2 || words[0] != "check")
    throw common::UsageError("target: expected 'target check FILE|NAME'");
  Options options;
  options.port_offset = static_cast<int>(line.integer("port-offset", -60000, 60000).value_or(0));
  options.bin_dir = line.value_or("bin-dir", "");
  options.out_dir = line.value_or("out", "target-check");
  options.runtime = line.choice("runtime", {"process", "podman", "docker"}).value_or("process");
  options.duration_s = 1;
  options.warmup_s = 0;
  const std::string scenario_dir = (fs::path(source_dir()) / "macro" / "scenarios").string();
  const std::string file = target_file(words[1]);
  const std::vector<Workload> workloads = load_workloads(shipped_workloads_dir());
  const Target target = load_target(file, workloads, scenario_dir);
  // Every feature's plan before anything starts: a template error is exit 2 as in a run.
  const CpuLayout layout = make_cpu_layout(online_cpus(), {});
  const Toolbox tools(options.bin_dir);
  std::vector<std::pair<std::string, ScenarioPlan>> checks;
  for (const auto& [feature, offer] : target.offers) {
    for (const auto& w : workloads) {
      if (w.feature != feature) continue;
      auto plans = make_plans({expand(target, w)}, options, layout, tools,
                              (fs::path(scenario_dir) / "configs").string(), options.out_dir);
      checks.emplace_back(feature + " (workload " + w.name + ")", std::move(plans.front()));
      break;
    }
  }

  common::install_stop_handlers();
  become_subreaper();
  Progress progress(stderr, false);
  RunContext context{options, progress, fs::absolute(options.out_dir).lexically_normal().string()};
  ContainerEngine engine;
  if (options.runtime != "process") {
    engine = local_engine(options.runtime);
    // Nothing can start without an engine: said once, not as every feature's failure.
    if (const std::string why = engine_unreachable(engine.name, engine.exe); !why.empty()) {
      std::printf("target %s (%s): %s\n", target.name.c_str(), file.c_str(), why.c_str());
      return 1;
    }
    context.engine = &engine;
  }
  std::printf("target %s (%s): %zu feature(s)\n", target.name.c_str(), file.c_str(), checks.size());
  int failed = 0;
  for (const auto& [what, plan] : checks) {
    std::printf("feature %s\n", what.c_str());
    if (!check_feature(plan, context)) ++failed;
    if (common::stop_requested()) return 128 + common::stop_signal();
  }
  if (failed > 0) {
    std::printf("%d of %zu feature(s) did not answer 2xx (artifacts in %s)\n", failed,
                checks.size(), options.out_dir.c_str());
    return 1;
  }
  std::printf("every feature answered 2xx\n");
  return 0;
}

}  // namespace gatebench::macro
