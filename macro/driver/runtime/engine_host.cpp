#include "macro/driver/runtime/engine_host.hpp"

#include <sys/wait.h>

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>

#include "macro/common/stop_signal.hpp"
#include "macro/driver/plan/plan.hpp"
#include "macro/driver/results/run_support.hpp"
#include "macro/driver/runtime/ssh_host.hpp"
#include "macro/driver/system/toolbox.hpp"

namespace gatebench::macro {
namespace fs = std::filesystem;
using namespace std::chrono_literals;

namespace {

std::vector<std::string> connection_args(const Host& host) {
  std::vector<std::string> a = {"--remote"};
  if (!host.url.empty())
    a.insert(a.end(), {"--url", host.url});
  else
    a.insert(a.end(), {"--connection", host.connection});
  if (!host.key.empty()) a.insert(a.end(), {"--identity", host.key});
  return a;
}

}  // namespace

HostEnv parse_engine_info(const std::string& json, const std::string& host) {
  HostEnv env;
  try {
    const auto doc = nlohmann::json::parse(json.substr(std::min(json.find('{'), json.size())));
    const auto& h = doc.at("host");
    env.cpus = h.value("cpus", 0);
    if (const std::string kernel = h.value("kernel", ""); !kernel.empty())
      env.kernel = "Linux " + kernel;
  } catch (const nlohmann::json::exception& e) {
    throw RemoteError(host + ": podman info printed no machine description: " + e.what());
  }
  return env;
}

EngineHost::EngineHost(Host host, ContainerEngine builder, std::string image_dir,
                       std::vector<std::string>* dry_log)
    : host_(std::move(host)),
      builder_(std::move(builder)),
      image_dir_(std::move(image_dir)),
      dry_log_(dry_log) {
  engine_ = builder_;
  engine_.global_args = connection_args(host_);
}

std::vector<std::string> EngineHost::remote_args() const {
  return engine_.global_args;
}

CaptureResult EngineHost::run(const std::vector<std::string>& args,
                              std::chrono::milliseconds timeout, bool here, const std::string& in,
                              bool interruptible) {
  const std::vector<std::string> full = here ? args : engine_args(engine_, args);
  if (dry_log_ != nullptr) {
    dry_log_->push_back((here ? "here: " : "") + shell_join("podman", full) +
                        (in.empty() ? "" : " < " + in));
    return CaptureResult{};
  }
  SpawnSpec spec;
  spec.exe = engine_.exe;
  spec.args = full;
  if (!in.empty()) spec.in = Stream::to_file(in);
  common::CaptureOptions options;
  options.timeout = timeout;
  options.merge_errors = true;
  if (interruptible) options.interrupted = [] { return common::stop_requested(); };
  try {
    return common::capture(std::move(spec), options);
  } catch (const SpawnError& e) {
    throw RemoteError(host_.name + ": " + e.what());
  }
}

void EngineHost::check(const CaptureResult& r, const std::string& what) const {
  if (dry_run() || r.succeeded()) return;
  if (r.interrupted) throw Interrupted{};
  throw RemoteError(host_.name + ": podman " + what + " " +
                    (r.timed_out ? std::string("timed out") : describe_wait_status(r.status)) +
                    ": " + last_line(r.output));
}

void EngineHost::connect() {
  if (connected_) return;
  const CaptureResult r = run({"info", "--format", "json"}, 20s);
  check(r, "info (the remote API at " + (host_.url.empty() ? host_.connection : host_.url) + ")");
  if (!dry_run()) env_ = parse_engine_info(r.output, host_.name);
  connected_ = true;
}

std::string EngineHost::image(const std::string& exe) {
  connect();
  // One build and one saved archive per binary and image directory (a driver run), whatever
  // the number of hosts; a dry run's are kept apart, it saved nothing.
  static std::map<std::string, std::pair<std::string, std::string>> saved;  // -> tag, archive
  const std::string key = (dry_run() ? "dry:" : "") + image_dir_ + "\n" + exe;
  auto it = saved.find(key);
  if (it == saved.end()) {
    std::string tag;
    if (dry_run()) {
      tag = "localhost/gatebench-" + fs::path(exe).filename().string() + ":latest";
      dry_log_->push_back("here: podman build -q -t " + tag + " (" + exe + " and its libraries)");
    } else {
      try {
        tag = ensure_image(builder_, exe, image_dir_);
      } catch (const ContainerError& e) {
        throw RemoteError(host_.name + ": image for " + exe + ": " + e.what());
      }
    }
    const std::string archive =
        (fs::path(image_dir_) / (fs::path(exe).filename().string() + ".image.tar")).string();
    std::error_code ec;
    fs::remove(archive, ec);
    check(run({"save", "-q", "-o", archive, tag}, kImageBuildTimeout, true), "save of " + tag);
    it = saved.emplace(key, std::make_pair(tag, archive)).first;
  }
  const auto& [tag, archive] = it->second;
  if (!loaded_.contains(tag)) {
    check(run({"load", "-q", "-i", archive}, kImageBuildTimeout), "load of " + tag);
    loaded_.insert(tag);
  }
  return tag;
}

void EngineHost::copy_in(const std::string& container, const std::vector<std::string>& paths) {
  if (paths.empty()) return;
  // One archive of the files at their absolute paths: `cp -` unpacks it at / in the container,
  // making the parent directories an image built from scratch lacks.
  const auto tar = Toolbox().find("tar");
  if (!tar && !dry_run()) throw RemoteError(host_.name + ": tar not installed here");
  const std::string archive = (fs::path(image_dir_) / (container + ".files.tar")).string();
  std::vector<std::string> args = {"-C", "/", "-cf", archive};
  for (const auto& p : paths) args.push_back(fs::path(p).relative_path().string());
  if (dry_run()) {
    dry_log_->push_back("here: " + shell_join("tar", args));
  } else {
    const CaptureResult t = run_capture(*tar, args, 60s);
    if (!t.succeeded())
      throw RemoteError(host_.name + ": tar of the files for " + container + ": " +
                        last_line(t.output));
  }
  const CaptureResult r = run({"cp", "-", container + ":/"}, 60s, false, archive);
  std::error_code ec;
  fs::remove(archive, ec);
  check(r, "cp into " + container);
}

ChildProcess EngineHost::attach(const std::vector<std::string>& args,
                                const std::string& stdout_path, const std::string& stderr_path) {
  SpawnSpec spec;
  spec.exe = engine_.exe;
  spec.args = engine_args(engine_, args);
  spec.out = Stream::to_file(stdout_path);
  spec.err = Stream::to_file(stderr_path);
  if (dry_run()) {
    dry_log_->push_back(shell_join("podman", spec.args));
    return ChildProcess{};
  }
  try {
    return ChildProcess::spawn(spec);
  } catch (const SpawnError& e) {
    throw RemoteError(host_.name + ": " + e.what());
  }
}

ChildProcess EngineHost::start(const ContainerRun& run_spec, const std::vector<std::string>& paths,
                               const std::string& stdout_path, const std::string& stderr_path) {
  connect();
  check(run(container_run_args(engine_, run_spec, "create"), 30s), "create");
  try {
    copy_in(run_spec.name, paths);
    return attach({"start", "-a", run_spec.name}, stdout_path, stderr_path);
  } catch (...) {
    if (!dry_run()) remove(run_spec.name);
    throw;
  }
}

ChildProcess EngineHost::play(const std::string& manifest, const std::string& pod,
                              const std::string& container, const std::vector<std::string>& paths,
                              const std::string& stdout_path, const std::string& stderr_path) {
  connect();
  // Created stopped: the files must be in the container before its program reads them.
  check(run({"kube", "play", "--start=false", manifest}, 60s), "kube play of " + manifest);
  try {
    copy_in(container, paths);
    check(run({"pod", "start", pod}, 30s), "pod start " + pod);
    // Unlike `start -a`, `logs -f` ends with the container but not with its status.
    return attach({"logs", "-f", container}, stdout_path, stderr_path);
  } catch (...) {
    if (!dry_run()) remove_pod(pod);
    throw;
  }
}

bool EngineHost::stop_and_remove(bool pod, const std::string& name) {
  const auto command = [pod](std::vector<std::string> args) {
    if (pod) args.insert(args.begin(), "pod");
    return args;
  };
  try {
    // A container that exited is gone already (--rm); stop and rm then only report that. A Pod
    // is stopped first: `pod rm -f -t 3` waits out the whole grace even when every container
    // has stopped at once.
    run(command({"stop", "-t", "3", name}), 30s, false, "", false);
    run(command({"rm", "-f", name}), 30s, false, "", false);
    if (dry_run()) return true;
    return (pod ? pod_names_with(name + "$", &name) : names_with(name + "$", &name)).empty() &&
           connected_;
  } catch (const std::exception&) {
    return false;
  } catch (const Interrupted&) {
    return false;
  }
}

std::vector<std::string> EngineHost::listed(const std::vector<std::string>& ps_args,
                                            const std::string* failed_marker) {
  const CaptureResult r = run(ps_args, 15s, false, "", false);
  std::vector<std::string> out;
  if (!r.succeeded()) {
    // Not known: the caller cannot confirm that nothing is left.
    if (failed_marker != nullptr) out.push_back(*failed_marker);
    return out;
  }
  std::istringstream in(r.output);
  for (std::string name; in >> name;) out.push_back(name);
  return out;
}

std::vector<std::string> EngineHost::names_with(const std::string& pattern,
                                                const std::string* failed_marker) {
  return listed({"ps", "-a", "--filter", "name=^" + pattern, "--format", "{{.Names}}"},
                failed_marker);
}

std::vector<std::string> EngineHost::pod_names_with(const std::string& pattern,
                                                    const std::string* failed_marker) {
  return listed({"pod", "ps", "--filter", "name=^" + pattern, "--format", "{{.Name}}"},
                failed_marker);
}

std::vector<std::string> EngineHost::sweep(const std::string& prefix) {
  if (dry_run() || !connected_) return {};
  std::vector<std::string> pods, left;
  try {
    // Pods first: removing one removes its containers, the infra one included.
    pods = pod_names_with(prefix, nullptr);
    std::erase_if(pods, [&](const std::string& n) { return !n.starts_with(prefix); });
    for (const auto& name : pods) remove_pod(name);
    left = names_with(prefix, nullptr);
  } catch (const RemoteError&) {
    return {};  // the engine client could not be started here: nothing to remove with it
  }
  std::erase_if(left, [&](const std::string& n) { return !n.starts_with(prefix); });
  for (const auto& name : left) remove(name);
  pods.insert(pods.end(), left.begin(), left.end());
  return pods;
}

}  // namespace gatebench::macro
