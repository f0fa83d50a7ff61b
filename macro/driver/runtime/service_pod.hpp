#pragma once
// A scenario service as a Kubernetes Pod (--runtime kube): its name, where its manifest is
// written, and the Pod itself, here (the run and configs directories as hostPath volumes) or on a
// podman host (a node: selected by name, the files copied into the container before it starts).
#include <string>

#include "macro/driver/plan/plan.hpp"
#include "macro/driver/runtime/kube_pod.hpp"

namespace gatebench::macro {

// kube_name of the service's container name (service_container_name).
std::string service_pod_name(const ScenarioPlan& plan, const ServicePlan& service);
// The name the engine gives the Pod's one container.
std::string service_pod_container(const ScenarioPlan& plan, const ServicePlan& service);
// <run_dir>/kube/<service>.yaml
std::string service_pod_manifest_path(const ScenarioPlan& plan, const ServicePlan& service);
// `deadline_s`: the Pod's activeDeadlineSeconds (scenario_container_timeout_s).
KubePod service_pod(const ScenarioPlan& plan, const ServicePlan& service, std::string image,
                    int deadline_s);

}  // namespace gatebench::macro
