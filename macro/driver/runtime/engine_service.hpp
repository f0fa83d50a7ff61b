#pragma once
// A service that --place put on a container engine host (kind podman, docs/multi-host.md): its
// image (this machine's binary) loaded there, a container created with host networking and the
// engine's --timeout, the scenario's run directory and configs directory copied into it at their
// paths here (so its arguments and configs are the ones rendered for this machine), and the
// attached `start -a` client as the local child: its exit status and output are the service's.
#include <string>

#include "macro/driver/plan/plan.hpp"
#include "macro/driver/runtime/remote_hosts.hpp"
#include "macro/driver/system/children.hpp"

namespace gatebench::macro {

// <container_prefix()><scenario>-<service>, the scenario's '/' as '_'.
std::string service_container_name(const ScenarioPlan& plan, const ServicePlan& service);

// The engine's --timeout for the containers of `plan`: container_timeout_s over its services'
// readiness, the warm-up and its runs (a search's every rate).
int scenario_container_timeout_s(const ScenarioPlan& plan, double warmup_s, double duration_s);

// `timeout_s`: the engine's --timeout (scenario_container_timeout_s). Throws RemoteError naming the
// host.
ChildProcess start_engine_service(RemoteHosts& remote, const ScenarioPlan& plan,
                                  const ServicePlan& service, int timeout_s);

// --runtime kube: the service as a Pod there (service_pod, its node the host), its manifest
// written to service_pod_manifest_path, played stopped, the same files copied in, then started;
// the attached client follows its container (service_pod_container). Throws RemoteError.
ChildProcess start_engine_pod(RemoteHosts& remote, const ScenarioPlan& plan,
                              const ServicePlan& service, int timeout_s);

// Why the attached client ended with `status` ("gateway on pod exited with status 1 during the
// run: <its last stderr line>"), `when` being "before it was ready" or "during the run".
std::string engine_service_failure(const ServicePlan& service, int status, const std::string& when);

// Stops and removes the container, then ends the client; false when the engine still lists it
// or could not be asked.
// `pod`: it runs as a Pod (start_engine_pod), removed with its containers.
bool stop_engine_service(RemoteHosts& remote, const ScenarioPlan& plan, const ServicePlan& service,
                         ChildProcess& client, bool pod = false);

}  // namespace gatebench::macro
