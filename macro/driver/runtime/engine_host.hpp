#pragma once
// One host whose services run through a container engine's remote API (hosts file kind
// "podman", docs/multi-host.md): `podman --remote` from this machine, so the engine host needs
// nothing of gatebench. Images are built here from this machine's binaries (as --runtime podman
// builds them), saved, and loaded there once per driver run; each service is a container created
// there with host networking and the engine's --timeout, its files copied in with `podman cp`, and
// an attached `start -a` client as the driver's child. In a dry run every command is recorded and
// nothing is contacted.
#include <chrono>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "macro/driver/plan/hosts.hpp"
#include "macro/driver/runtime/container.hpp"
#include "macro/driver/system/children.hpp"
#include "macro/driver/system/env_info.hpp"

namespace gatebench::macro {

class EngineHost {
 public:
  // `builder`: the engine here that builds the images, which go to `image_dir`. `dry_log`
  // non-null: a dry run.
  EngineHost(Host host, ContainerEngine builder, std::string image_dir,
             std::vector<std::string>* dry_log = nullptr);
  EngineHost(const EngineHost&) = delete;
  EngineHost& operator=(const EngineHost&) = delete;

  const Host& host() const { return host_; }
  // The remote engine: the local client with the host's connection as global arguments.
  const ContainerEngine& engine() const { return engine_; }
  bool dry_run() const { return dry_log_ != nullptr; }

  // Asks the engine for its machine (`info`); once, and again after a failure. Throws
  // RemoteError naming the host and the engine's last line.
  void connect();
  const HostEnv& env() const { return env_; }

  // The tag of the image holding `exe` there. Throws RemoteError.
  std::string image(const std::string& exe);
  // Creates `run` there (run.volumes and run.cpus must be empty: nothing of this machine is
  // there), copies `paths` (absolute, files or directories of this machine) to the same paths in
  // it, and starts the attached client with the container's stdout and stderr into local files.
  // Throws RemoteError; a container it created is removed again first.
  ChildProcess start(const ContainerRun& run, const std::vector<std::string>& paths,
                     const std::string& stdout_path, const std::string& stderr_path);
  // --runtime kube: plays the Pod `manifest` there stopped, copies `paths` into its container
  // `container`, starts the Pod and follows the container's output with the attached client
  // (`logs -f`). Throws RemoteError; a Pod it played is removed again first.
  ChildProcess play(const std::string& manifest, const std::string& pod,
                    const std::string& container, const std::vector<std::string>& paths,
                    const std::string& stdout_path, const std::string& stderr_path);
  // Stops (3 s grace) and removes the container; true when the engine no longer lists it.
  // False also when the engine cannot be reached. Never throws.
  bool remove(const std::string& name) { return stop_and_remove(false, name); }
  // The same for a Pod and its containers.
  bool remove_pod(const std::string& pod) { return stop_and_remove(true, pod); }
  // Removes the Pods and containers whose name starts with `prefix` (a driver's left-overs);
  // their names.
  std::vector<std::string> sweep(const std::string& prefix);

  // `podman --remote ...` with the host's connection, for messages and the dry run.
  std::vector<std::string> remote_args() const;

 private:
  // The engine client with `args` (the remote one unless `here`); recorded in a dry run, where
  // it returns success and no output. `in`: a file as its stdin. Not `interruptible`: a clean-up,
  // run to its end or its timeout even after a stop signal.
  CaptureResult run(const std::vector<std::string>& args, std::chrono::milliseconds timeout,
                    bool here = false, const std::string& in = "", bool interruptible = true);
  // remove (`pod` false) or remove_pod.
  bool stop_and_remove(bool pod, const std::string& name);
  // Copies `paths` (absolute, of this machine) into the container at the same paths, as one tar.
  void copy_in(const std::string& container, const std::vector<std::string>& paths);
  // The engine client with `args` as the driver's child, its output into the files.
  ChildProcess attach(const std::vector<std::string>& args, const std::string& stdout_path,
                      const std::string& stderr_path);
  // Names of the containers (Pods) there matching ^`pattern`; when the engine does not answer,
  // just `failed_marker` (if given). Never throws RemoteError.
  std::vector<std::string> names_with(const std::string& pattern, const std::string* failed_marker);
  std::vector<std::string> pod_names_with(const std::string& pattern,
                                          const std::string* failed_marker);
  // The names a `ps`-like listing prints one per line.
  std::vector<std::string> listed(const std::vector<std::string>& ps_args,
                                  const std::string* failed_marker);
  // Throws RemoteError "<host>: podman <what> failed: <last line>" unless `r` succeeded.
  void check(const CaptureResult& r, const std::string& what) const;

  Host host_;
  ContainerEngine builder_, engine_;
  std::string image_dir_;
  std::vector<std::string>* dry_log_;
  bool connected_ = false;
  HostEnv env_;
  std::set<std::string> loaded_;  // tags loaded there this driver run
};

// The machine `podman info --format json` describes: kernel ("Linux <host.kernel>"), CPU count
// (host.cpus); the engine does not report the CPU model. Throws RemoteError on other text.
HostEnv parse_engine_info(const std::string& json, const std::string& host);

}  // namespace gatebench::macro
