#pragma once
// The container runtime (--runtime podman|docker): images made from the host's binaries, services
// run with host networking and --cpuset-cpus, CPU and memory from each container's cgroup (a
// remote engine's from its `stats`).
#include <sys/types.h>

#include <chrono>
#include <cstddef>
#include <map>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "macro/driver/system/cpu_layout.hpp"

namespace gatebench::macro {

struct ContainerError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// The longest an image build may take; a slower one fails the scenario.
inline constexpr std::chrono::seconds kImageBuildTimeout{120};

struct ContainerEngine {
  std::string name;  // "podman" or "docker"
  std::string exe;
  std::string containerfile;            // macro/images/Containerfile
  std::vector<std::string> extra_args;  // $GATEBENCH_ENGINE_ARGS, added to every `run`
  // Before every command: a remote engine's connection (--remote --url URL [--identity KEY]).
  std::vector<std::string> global_args;
};

// The engine `name` (podman, docker) of this machine: the Containerfile of the source tree,
// $GATEBENCH_ENGINE_ARGS (split on spaces) added to its `run`s.
ContainerEngine local_engine(const std::string& name);

// Why the engine `name` (its client `exe`) cannot run containers here, or "". A docker client
// needs a daemon (DOCKER_HOST or its default socket): `docker version` must reach it. Asked once
// per driver run.
std::string engine_unreachable(const std::string& name, const std::string& exe);

// A local image under test (a target's "image"), as the engine reports it.
struct ImageInfo {
  std::string id;  // full ID (sha256 hex, without "sha256:"): what runs, whatever the name
                   // points to later
  // "sha256:...", the manifest's (podman's Digest; docker's RepoDigests, empty for an image
  // that was built here and never pushed)
  std::string digest;
};

// `<engine> image inspect IMAGE`: never pulls. Throws ContainerError with the engine's last line
// when the image is not on this machine.
ImageInfo inspect_image(const std::string& engine_exe, const std::string& image);
// The same from the text of `image inspect` (a JSON array), for tests.
ImageInfo parse_image_inspect(const std::string& output);

// The engine's arguments for one command: its global arguments, then `args`.
std::vector<std::string> engine_args(const ContainerEngine& engine, std::vector<std::string> args);

// Builds (once per driver run) an image holding `exe` and its libraries; returns its tag.
// `work_dir` receives the build context. Throws ContainerError with the engine's last line.
std::string ensure_image(const ContainerEngine& engine, const std::string& exe,
                         const std::string& work_dir);

struct ContainerRun {
  std::string name;  // container name
  std::string image;
  std::string exe;  // path inside the image (= on the host); empty: the image's entrypoint
  std::vector<std::string> args;
  std::map<std::string, std::string> env;
  std::vector<std::string> volumes;  // host directories mounted at the same path
  std::vector<std::string> mounts;   // further `-v` specifications (host:container:ro)
  CpuSet cpus;
  // > 0: the engine kills the container after this many seconds. A container outlives its
  // attached client (a driver killed with SIGKILL cannot stop it); this bounds what is left.
  // podman only: docker has no such option, remove_orphan_containers clears what a killed
  // driver left there.
  int timeout_s = 0;
};

// The longest a scenario run can keep its first container: every service's image build
// (kImageBuildTimeout each) and readiness timeout, the warm-up and `load_runs` measured runs with
// the driver's limit of duration + kLoadRunGraceS each, and 60 s for the stop.
int container_timeout_s(double ready_timeouts_s, std::size_t services, double warmup_s,
                        double duration_s, int load_runs);

// Arguments of the engine (without its global ones) for an attached `run --rm` (the engine client
// is the driver's child, its output the service's output), or with `verb` "create" the same
// container created and not started.
std::vector<std::string> container_run_args(const ContainerEngine& engine, const ContainerRun& run,
                                            const std::string& verb = "run");

// Stops (3 s grace) and removes a container; true when it is gone afterwards.
bool remove_container(const ContainerEngine& engine, const std::string& name);

// Names of the containers (running or not) whose name starts with `prefix`.
std::vector<std::string> list_containers(const ContainerEngine& engine, const std::string& prefix);

// Removes the containers of drivers that are no longer running (named gb-<driver pid>-...,
// container_prefix); returns their names.
std::vector<std::string> remove_orphan_containers(const ContainerEngine& engine);

// The host PID of each running container of `names` (one `container inspect` call); stopped or
// unknown containers are absent.
std::map<std::string, pid_t> container_pids(const ContainerEngine& engine,
                                            const std::vector<std::string>& names);
// The same from the output of `container inspect --format '{{.Name}} {{.State.Pid}}'` (docker
// writes the name with a leading '/'), for tests.
std::map<std::string, pid_t> parse_container_pids(std::string_view output);

struct ContainerStats {
  double cpu_s = 0;  // cumulative CPU time
  double mem_mb = 0;
};

// One `stats --no-stream` call for all `names` (podman's format); containers the engine does not
// report are absent. For a remote engine, whose containers' cgroups are not on this machine.
std::map<std::string, ContainerStats> container_stats(const ContainerEngine& engine,
                                                      const std::vector<std::string>& names);

// Parsers of the engine's stats fields, exposed for tests: Go durations ("35.687073ms",
// "1m2.5s", "1h0m0s", "950µs") to seconds, sizes ("8.827MB / 25.28GB", "12.5MiB") to MB.
double parse_go_duration_s(std::string_view text);
double parse_mem_mb(std::string_view text);

}  // namespace gatebench::macro
