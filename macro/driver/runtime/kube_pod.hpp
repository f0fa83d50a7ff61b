#pragma once
// A service as a Kubernetes Pod (`--runtime kube`, docs/containers.md): the manifest a cluster
// takes with `kubectl apply -f`, and on this machine `podman kube play` of it, which runs the
// same manifest with the local engine. The images are the ones --runtime podman builds.
#include <map>
#include <string>
#include <vector>

#include "macro/driver/runtime/container.hpp"

namespace gatebench::macro {

struct KubePod {
  std::string name;       // the Pod's name (kube_name)
  std::string container;  // its one container's name (kube_name)
  std::string image;
  std::string exe;  // path inside the image (= on this machine)
  std::vector<std::string> args;
  std::map<std::string, std::string> env;
  std::map<std::string, std::string> labels;
  std::vector<std::string> host_paths;  // directories of the node mounted at the same path
  // The node the Pod must run on (nodeSelector kubernetes.io/hostname); empty: any.
  std::string node;
  // > 0: activeDeadlineSeconds, the cluster's bound on a Pod its driver can no longer stop.
  int deadline_s = 0;
};

// `text` as a Kubernetes object name (RFC 1123 label): lower case, every character other than
// a-z, 0-9 and '-' as '-', at most 63 characters, no '-' at either end.
std::string kube_name(const std::string& text);

// The Pod manifest (YAML; every scalar double-quoted): host networking, restartPolicy Never,
// imagePullPolicy IfNotPresent (the image is loaded on the node, not pulled), hostPath volumes,
// the node selector.
std::string pod_manifest(const KubePod& pod);

// `podman kube play FILE`. Throws ContainerError with the engine's last line.
void play_pod(const ContainerEngine& engine, const std::string& manifest);
// `pod stop -t 3` (`kube down` and `pod rm -f -t 3` wait out the whole grace even when every
// container stopped at once), then `pod rm -f`; true when the engine no longer lists the Pod
// `name`. Never throws.
bool remove_pod(const ContainerEngine& engine, const std::string& name);
// How podman names the container `container` of the Pod `pod` it plays.
inline std::string played_container_name(const std::string& pod, const std::string& container) {
  return pod + "-" + container;
}

// The label every Pod of a driver run carries: the driver's pid.
inline constexpr const char* kDriverLabel = "gatebench.dev/driver-pid";
// Removes the Pods that carry kDriverLabel of a driver no longer running (killed with SIGKILL);
// their names.
std::vector<std::string> remove_orphan_pods(const ContainerEngine& engine);

}  // namespace gatebench::macro
