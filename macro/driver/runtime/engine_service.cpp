#include "macro/driver/runtime/engine_service.hpp"

#include <sys/wait.h>

#include <algorithm>
#include <chrono>
#include <filesystem>

#include "macro/driver/results/run_support.hpp"
#include "macro/driver/runtime/run_context.hpp"
#include "macro/driver/runtime/service_pod.hpp"

namespace gatebench::macro {
namespace fs = std::filesystem;
using namespace std::chrono_literals;

std::string service_container_name(const ScenarioPlan& plan, const ServicePlan& service) {
  std::string scenario = plan.scenario.name;
  std::replace(scenario.begin(), scenario.end(), '/', '_');
  return container_prefix() + scenario + "-" + service.name;
}

int scenario_container_timeout_s(const ScenarioPlan& plan, double warmup_s, double duration_s) {
  double ready_s = 0;
  for (const auto& s : plan.services) ready_s += s.ready_timeout_s;
  return container_timeout_s(ready_s, plan.services.size(), warmup_s, duration_s,
                             plan.load.mode == LoadMode::search ? kSearchRuns : 1);
}

ChildProcess start_engine_service(RemoteHosts& remote, const ScenarioPlan& plan,
                                  const ServicePlan& service, int timeout_s) {
  EngineHost& engine = remote.engine(remote.placement().hosts.at(service.host));
  ContainerRun run;
  run.image = engine.image(service.exe);
  run.name = service_container_name(plan, service);
  run.exe = service.exe;
  run.args = service.args;
  run.env = service.env;
  run.timeout_s = timeout_s;
  if (!engine.dry_run())
    write_text(plan.run_dir + "/" + service.name + ".cmd",
               "on " + service.host + ": " + shell_join(run.exe, run.args) + "\n");
  // The whole run directory (rendered configs, prepared certificates, the services' dirs) and
  // ${configs}: a few hundred KB.
  return engine.start(run, {plan.run_dir, plan.vars.at("configs")}, service.stdout_path,
                      service.stderr_path);
}

ChildProcess start_engine_pod(RemoteHosts& remote, const ScenarioPlan& plan,
                              const ServicePlan& service, int timeout_s) {
  EngineHost& engine = remote.engine(remote.placement().hosts.at(service.host));
  const KubePod pod = service_pod(plan, service, engine.image(service.exe), timeout_s);
  const std::string manifest = service_pod_manifest_path(plan, service);
  // A dry run writes nothing; its manifest is described by the commands.
  if (!engine.dry_run()) {
    fs::create_directories(fs::path(manifest).parent_path());
    write_text(manifest, pod_manifest(pod));
    write_text(plan.run_dir + "/" + service.name + ".cmd",
               "on " + service.host + ": " + shell_join(pod.exe, pod.args) + "\n");
  }
  return engine.play(manifest, pod.name, played_container_name(pod.name, pod.container),
                     {plan.run_dir, plan.vars.at("configs")}, service.stdout_path,
                     service.stderr_path);
}

std::string engine_service_failure(const ServicePlan& service, int status,
                                   const std::string& when) {
  return service.name + " on " + service.host + " " + describe_wait_status(status) + " " + when +
         ": " + last_line(read_text(service.stderr_path));
}

bool stop_engine_service(RemoteHosts& remote, const ScenarioPlan& plan, const ServicePlan& service,
                         ChildProcess& client, bool pod) {
  EngineHost& engine = remote.engine_unconnected(remote.placement().hosts.at(service.host));
  const bool gone = pod ? engine.remove_pod(service_pod_name(plan, service))
                        : engine.remove(service_container_name(plan, service));
  // The client ends with its container; it is stopped in any case (a lost engine connection
  // leaves it waiting).
  if (client.pid() > 0) client.stop(2000ms);
  return gone;
}

}  // namespace gatebench::macro
