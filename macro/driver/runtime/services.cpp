#include "macro/driver/runtime/services.hpp"

#include <signal.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <thread>

#include "macro/common/duration.hpp"
#include "macro/common/stop_signal.hpp"
#include "macro/driver/results/run_support.hpp"
#include "macro/driver/runtime/engine_service.hpp"
#include "macro/driver/runtime/kube_pod.hpp"
#include "macro/driver/runtime/remote_service.hpp"
#include "macro/driver/runtime/service_pod.hpp"
#include "macro/driver/system/net_probe.hpp"

namespace gatebench::macro {
namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

Services::~Services() {
  try {
    stop_all();
  } catch (const Outcome&) {
    // Reported by the explicit stop_all() of run_scenario; a destructor cannot fail the run.
  }
}

void Services::start(const ServicePlan& service) {
  if (!service.host.empty()) return start_remote(service);
  ctx_.progress.phase("start " + service.name);
  SpawnSpec spec;
  spec.exe = service.exe;
  spec.args = service.args;
  spec.env = service.env;
  spec.out = Stream::to_file(service.stdout_path);
  spec.err = Stream::to_file(service.stderr_path);
  spec.cwd = plan_.run_dir;
  spec.cpus = service.cpus.cpus;
  std::string container;
  if (ctx_.engine != nullptr && kube()) {
    container = start_pod(service, spec);
  } else if (ctx_.engine != nullptr) {
    ContainerRun run;
    container = run.name = service_container_name(plan_, service);
    if (service.image.empty()) {
      run.image = service_image(service);
      run.exe = service.exe;
    } else {
      // The image under test, by the ID inspected when the run was planned; its entrypoint runs.
      run.image = service.image_id;
      if (!service.mount.empty()) run.mounts = {plan_.run_dir + ":" + service.mount + ":ro"};
    }
    run.args = service.args;
    run.env = service.env;
    run.cpus = service.cpus;
    run.volumes = {plan_.run_dir, plan_.vars.at("configs")};
    run.timeout_s =
        scenario_container_timeout_s(plan_, ctx_.options.warmup_s, ctx_.options.duration_s);
    // The engine client is the driver's child; the service runs in the container.
    spec.exe = ctx_.engine->exe;
    spec.args = container_run_args(*ctx_.engine, run);
    spec.env.clear();
    spec.cpus.clear();
  }
  try {
    running_.push_back({&service, ChildProcess::spawn(spec), container, 0});
  } catch (const SpawnError& e) {
    throw Outcome{Status::failed, service.name + ": " + e.what()};
  }
  ChildProcess& child = running_.back().process;
  const auto deadline =
      Clock::now() + std::chrono::milliseconds(std::llround(service.ready_timeout_s * 1000));
  for (;;) {
    if (common::stop_requested()) throw Interrupted{};
    if (auto status = child.exit_status())
      throw Outcome{Status::failed, exit_reason(running_.back(), *status, "before it was ready")};
    // A service given long to start (under valgrind) also answers its first request late; a
    // probe that gave up early would send it another one.
    const auto probe_timeout = std::chrono::milliseconds(
        std::clamp(std::llround(service.ready_timeout_s * 50), 500LL, 10000LL));
    const bool ready =
        service.ready_http.empty()
            ? tcp_connects(service.ready_port, std::chrono::milliseconds(200))
            : http_status(service.ready_port, service.ready_http, probe_timeout).has_value();
    if (ready) return;
    if (Clock::now() >= deadline) {
      throw Outcome{Status::failed, service.name + " not ready on port " +
                                        std::to_string(service.ready_port) + " within " +
                                        common::duration_text(service.ready_timeout_s)};
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(25));
  }
}

void Services::start_remote(const ServicePlan& service) {
  ctx_.progress.phase("start " + service.name + " on " + service.host);
  if (ctx_.remote == nullptr)
    throw Outcome{Status::failed, service.name + ": placed on " + service.host + " without hosts"};
  const bool engine = service.host_kind == HostKind::podman;
  try {
    const int timeout_s =
        scenario_container_timeout_s(plan_, ctx_.options.warmup_s, ctx_.options.duration_s);
    if (engine && kube()) {
      running_.push_back({&service, start_engine_pod(*ctx_.remote, plan_, service, timeout_s),
                          service_pod_container(plan_, service), 0});
    } else if (engine) {
      running_.push_back({&service, start_engine_service(*ctx_.remote, plan_, service, timeout_s),
                          service_container_name(plan_, service), 0});
    } else {
      running_.push_back({&service, start_remote_service(*ctx_.remote, plan_, service), "", 0});
    }
  } catch (const RemoteError& e) {
    throw Outcome{Status::failed, service.name + " on " + e.what()};
  }
  RunningService& running = running_.back();
  const auto deadline =
      Clock::now() + std::chrono::milliseconds(std::llround(service.ready_timeout_s * 1000));
  const std::string log = remote_service_log(service);
  for (;;) {
    if (common::stop_requested()) throw Interrupted{};
    if (auto status = running.process.exit_status())
      throw Outcome{Status::failed, exit_reason(running, *status, "before it was ready")};
    if (!engine && running.remote_pgid == 0)
      running.remote_pgid = parse_remote_pgid(read_text(log));
    // Probed from here at its host's address, as the load reaches it.
    const bool ready =
        (engine || running.remote_pgid > 0) &&
        (service.ready_http.empty()
             ? tcp_connects(service.ready_port, std::chrono::milliseconds(200), service.address)
             : http_status(service.ready_port, service.ready_http, std::chrono::milliseconds(1000),
                           service.address)
                   .has_value());
    if (ready) return;
    if (Clock::now() >= deadline) {
      throw Outcome{Status::failed, service.name + " on " + service.host + " not ready on " +
                                        service.address + ":" + std::to_string(service.ready_port) +
                                        " within " +
                                        common::duration_text(service.ready_timeout_s)};
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(25));
  }
}

std::string Services::service_image(const ServicePlan& service) const {
  try {
    return ensure_image(*ctx_.engine, service.exe, (fs::path(ctx_.out_dir) / "images").string());
  } catch (const std::exception& e) {
    throw Outcome{Status::skipped, "image for " + service.binary + ": " + e.what()};
  }
}

std::string Services::start_pod(const ServicePlan& service, SpawnSpec& spec) {
  const KubePod pod = service_pod(
      plan_, service, service_image(service),
      scenario_container_timeout_s(plan_, ctx_.options.warmup_s, ctx_.options.duration_s));
  const std::string manifest = service_pod_manifest_path(plan_, service);
  fs::create_directories(fs::path(manifest).parent_path());
  write_text(manifest, pod_manifest(pod));
  try {
    play_pod(*ctx_.engine, manifest);
  } catch (const ContainerError& e) {
    remove_pod(*ctx_.engine, pod.name);
    throw Outcome{Status::failed, service.name + ": " + e.what()};
  }
  // The engine client that follows the container's output is the driver's child: it ends when
  // the container does.
  spec.exe = ctx_.engine->exe;
  const std::string container = played_container_name(pod.name, pod.container);
  spec.args = engine_args(*ctx_.engine, {"logs", "-f", container});
  spec.env.clear();
  spec.cpus.clear();
  return container;
}

std::string Services::exit_reason(const RunningService& s, int status,
                                  const std::string& when) const {
  const ServicePlan& p = *s.plan;
  if (p.host_kind == HostKind::ssh) return remote_service_failure(*ctx_.remote, p, status, when);
  if (p.host_kind == HostKind::podman) return engine_service_failure(p, status, when);
  return p.name + " " + describe_wait_status(status) + " " + when + ": " +
         last_line(read_text(p.stderr_path));
}

void Services::check_alive() {
  for (auto& s : running_)
    if (auto status = s.process.exit_status())
      throw Outcome{Status::failed, exit_reason(s, *status, "during the run")};
}

std::optional<int> Services::stop_one(const std::string& name, std::chrono::milliseconds grace) {
  const auto it = std::find_if(running_.begin(), running_.end(),
                               [&](const RunningService& s) { return s.plan->name == name; });
  if (it == running_.end()) return std::nullopt;
  ::kill(it->process.pid(), SIGTERM);  // the leader: it stops its own children
  std::optional<int> status = it->process.wait_for(grace);
  const bool gone = it->process.stop();  // whatever of its group is left
  running_.erase(it);
  if (!gone) throw Outcome{Status::failed, "processes left behind by " + name};
  return status;
}

void Services::stop_all() {
  std::string left;
  while (!running_.empty()) {
    RunningService& s = running_.back();
    if (s.plan->host_kind == HostKind::podman) {
      if (!stop_engine_service(*ctx_.remote, plan_, *s.plan, s.process, kube()))
        left += (left.empty() ? "" : ", ") + s.plan->name + " on " + s.plan->host + " (container " +
                s.container + " still listed, or the engine could not be asked)";
      running_.pop_back();
      continue;
    }
    if (!s.plan->host.empty()) {
      if (!stop_remote_service(*ctx_.remote, *s.plan, s.process))
        left += (left.empty() ? "" : ", ") + s.plan->name + " on " + s.plan->host +
                " (not confirmed: the host could not be reached)";
      running_.pop_back();
      continue;
    }
    bool gone =
        s.container.empty() || (kube() ? remove_pod(*ctx_.engine, service_pod_name(plan_, *s.plan))
                                       : remove_container(*ctx_.engine, s.container));
    gone = s.process.stop() && gone;
    if (!gone) left += (left.empty() ? "" : ", ") + s.plan->name;
    running_.pop_back();
  }
  if (!left.empty()) throw Outcome{Status::failed, "processes left behind by " + left};
}

}  // namespace gatebench::macro
