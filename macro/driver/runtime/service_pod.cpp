#include "macro/driver/runtime/service_pod.hpp"

#include <unistd.h>

#include <filesystem>

#include "macro/driver/runtime/engine_service.hpp"

namespace gatebench::macro {
namespace fs = std::filesystem;

std::string service_pod_name(const ScenarioPlan& plan, const ServicePlan& service) {
  return kube_name(service_container_name(plan, service));
}

std::string service_pod_container(const ScenarioPlan& plan, const ServicePlan& service) {
  return played_container_name(service_pod_name(plan, service), kube_name(service.name));
}

std::string service_pod_manifest_path(const ScenarioPlan& plan, const ServicePlan& service) {
  return (fs::path(plan.run_dir) / "kube" / (service.name + ".yaml")).string();
}

KubePod service_pod(const ScenarioPlan& plan, const ServicePlan& service, std::string image,
                    int deadline_s) {
  KubePod pod;
  pod.image = std::move(image);
  pod.name = service_pod_name(plan, service);
  pod.container = kube_name(service.name);
  pod.exe = service.exe;
  pod.args = service.args;
  pod.env = service.env;
  pod.labels = {{kDriverLabel, std::to_string(getpid())},
                {"app.kubernetes.io/part-of", "gatebench"},
                {"gatebench.dev/scenario", kube_name(plan.scenario.name)},
                {"gatebench.dev/role", std::string(role_name(service.role))}};
  // A node of the hosts file has none of this machine's directories: they are copied in.
  if (service.host.empty())
    pod.host_paths = {plan.run_dir, plan.vars.at("configs")};
  else
    pod.node = service.host;
  pod.deadline_s = deadline_s;
  return pod;
}

}  // namespace gatebench::macro
