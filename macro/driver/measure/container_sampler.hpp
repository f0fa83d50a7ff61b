#pragma once
// CPU and memory of a scenario's containers (container runtime): from each container's cgroup,
// found once through its PID, the same for podman and docker; a remote engine's from its `stats`.
#include <map>
#include <string>
#include <vector>

#include "macro/driver/runtime/container.hpp"
#include "macro/driver/runtime/services.hpp"
#include "macro/driver/system/cgroup_usage.hpp"
#include "macro/driver/system/proc_sampler.hpp"

namespace gatebench::macro {

class ContainerSampler {
 public:
  ContainerSampler(const ContainerEngine& engine, std::vector<const RunningService*> services)
      : engine_(engine), services_(std::move(services)) {}

  void start();
  // The target's (sampled services') CPU% since the previous call and memory now; `cpu_s` gets
  // the target's CPU seconds since start().
  TreeSample sample(double t_s, double& cpu_s);
  // Mean CPU% of each role's containers between start() and the last sample.
  TreeUsage usage(double elapsed_s, std::map<std::string, double>& by_role) const;
  // CPU seconds between start() and the last sample: of each role's containers, and of the
  // target's by binary.
  std::map<std::string, double> cpu_s_by_role() const { return cpu_s_grouped(false); }
  std::map<std::string, double> target_cpu_s_by_binary() const { return cpu_s_grouped(true); }
  double peak_mb() const { return peak_mb_; }
  int max_containers() const { return max_containers_; }

 private:
  std::vector<std::string> names() const;
  // Every container's figures now; a container not found (yet, or any more) is absent.
  std::map<std::string, ContainerStats> read();
  // CPU seconds since start() by role, or of the sampled (target) services by binary.
  std::map<std::string, double> cpu_s_grouped(bool target_by_binary) const;
  double target_cpu(const std::map<std::string, ContainerStats>& stats) const;

  const ContainerEngine& engine_;
  std::vector<const RunningService*> services_;
  std::map<std::string, CgroupFiles> cgroups_;  // by container name, once found
  std::map<std::string, ContainerStats> first_, last_;
  double last_t_ = 0;
  double peak_mb_ = 0;
  int max_containers_ = 0;
};

}  // namespace gatebench::macro
