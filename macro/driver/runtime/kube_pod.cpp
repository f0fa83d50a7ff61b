#include "macro/driver/runtime/kube_pod.hpp"

#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <nlohmann/json.hpp>
#include <sstream>

#include "macro/driver/results/run_support.hpp"
#include "macro/driver/system/children.hpp"

namespace gatebench::macro {
using namespace std::chrono_literals;

namespace {

// A YAML double-quoted scalar: JSON's string syntax is YAML's.
std::string q(const std::string& s) {
  return nlohmann::json(s).dump();
}

std::vector<std::string> pod_names(const ContainerEngine& engine, const std::string& name) {
  const CaptureResult r = run_capture(
      engine.exe,
      engine_args(engine,
                  {"pod", "ps", "--filter", "name=^" + name + "$", "--format", "{{.Name}}"}),
      15s);
  std::vector<std::string> out;
  if (!r.succeeded()) return {"(the engine did not answer)"};
  std::istringstream in(r.output);
  for (std::string n; in >> n;) out.push_back(n);
  return out;
}

}  // namespace

std::string kube_name(const std::string& text) {
  std::string out;
  for (char c : text) {
    const char l = (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
    out += ((l >= 'a' && l <= 'z') || (l >= '0' && l <= '9')) ? l : '-';
  }
  if (out.size() > 63) out.resize(63);
  const auto first = out.find_first_not_of('-');
  if (first == std::string::npos) return "x";
  out = out.substr(first);
  out.erase(out.find_last_not_of('-') + 1);
  return out;
}

std::string pod_manifest(const KubePod& pod) {
  std::ostringstream y;
  y << "apiVersion: v1\nkind: Pod\nmetadata:\n  name: " << q(pod.name) << "\n";
  if (!pod.labels.empty()) {
    y << "  labels:\n";
    for (const auto& [k, v] : pod.labels) y << "    " << q(k) << ": " << q(v) << "\n";
  }
  y << "spec:\n  hostNetwork: true\n  restartPolicy: Never\n";
  if (pod.deadline_s > 0) y << "  activeDeadlineSeconds: " << pod.deadline_s << "\n";
  if (!pod.node.empty())
    y << "  nodeSelector:\n    \"kubernetes.io/hostname\": " << q(pod.node) << "\n";
  y << "  containers:\n  - name: " << q(pod.container) << "\n    image: " << q(pod.image)
    << "\n    imagePullPolicy: IfNotPresent\n    command: [" << q(pod.exe) << "]\n";
  if (!pod.args.empty()) {
    y << "    args:\n";
    for (const auto& a : pod.args) y << "    - " << q(a) << "\n";
  }
  if (!pod.env.empty()) {
    y << "    env:\n";
    for (const auto& [k, v] : pod.env)
      y << "    - name: " << q(k) << "\n      value: " << q(v) << "\n";
  }
  if (!pod.host_paths.empty()) {
    y << "    volumeMounts:\n";
    for (std::size_t i = 0; i < pod.host_paths.size(); ++i)
      y << "    - name: \"v" << i << "\"\n      mountPath: " << q(pod.host_paths[i]) << "\n";
    y << "  volumes:\n";
    for (std::size_t i = 0; i < pod.host_paths.size(); ++i)
      y << "  - name: \"v" << i << "\"\n    hostPath:\n      path: " << q(pod.host_paths[i])
        << "\n      type: Directory\n";
  }
  return y.str();
}

void play_pod(const ContainerEngine& engine, const std::string& manifest) {
  CaptureResult r;
  try {
    r = run_capture(engine.exe, engine_args(engine, {"kube", "play", manifest}), 60s);
  } catch (const SpawnError& e) {
    throw ContainerError(e.what());
  }
  if (!r.succeeded())
    throw ContainerError("podman kube play " + manifest + " " +
                         (r.timed_out ? std::string("timed out") : describe_wait_status(r.status)) +
                         ": " + last_line(r.output));
}

bool remove_pod(const ContainerEngine& engine, const std::string& name) {
  try {
    run_capture(engine.exe, engine_args(engine, {"pod", "stop", "-t", "3", name}), 30s);
    run_capture(engine.exe, engine_args(engine, {"pod", "rm", "-f", name}), 30s);
    return pod_names(engine, name).empty();
  } catch (const SpawnError&) {
    return false;
  }
}

std::vector<std::string> remove_orphan_pods(const ContainerEngine& engine) {
  std::vector<std::string> removed;
  try {
    const CaptureResult r =
        run_capture(engine.exe,
                    engine_args(engine, {"pod", "ps", "--filter",
                                         std::string("label=") + kDriverLabel, "--format", "json"}),
                    15s);
    if (!r.succeeded()) return removed;
    const auto pods = nlohmann::json::parse(r.output, nullptr, false);
    if (!pods.is_array()) return removed;
    for (const auto& pod : pods) {
      const std::string name = pod.value("Name", "");
      const auto labels = pod.find("Labels");
      if (labels == pod.end() || !labels->is_object()) continue;
      const std::string pid_text = labels->value(kDriverLabel, "");
      const long pid = std::strtol(pid_text.c_str(), nullptr, 10);
      if (name.empty() || pid <= 0 || pid == getpid()) continue;
      if (::kill(static_cast<pid_t>(pid), 0) == 0 || errno != ESRCH) continue;
      run_capture(engine.exe, engine_args(engine, {"pod", "rm", "-f", name}), 30s);
      removed.push_back(name);
    }
  } catch (const SpawnError&) {
  }
  return removed;
}

}  // namespace gatebench::macro
