#include "macro/driver/measure/container_sampler.hpp"

#include <algorithm>

namespace gatebench::macro {

void ContainerSampler::start() {
  first_ = read();
  last_ = first_;
}

double ContainerSampler::target_cpu(const std::map<std::string, ContainerStats>& stats) const {
  double cpu = 0;
  for (const auto* s : services_) {
    if (!s->plan->sample) continue;
    auto it = stats.find(s->container);
    if (it != stats.end()) cpu += it->second.cpu_s;
  }
  return cpu;
}

TreeSample ContainerSampler::sample(double t_s, double& cpu_s) {
  TreeSample out;
  out.t_s = t_s;
  auto now = read();
  // A container the engine did not report this time keeps its last figures.
  for (auto& [name, stats] : last_)
    if (!now.contains(name)) now[name] = stats;
  for (const auto* s : services_) {
    if (!s->plan->sample) continue;
    auto it = now.find(s->container);
    if (it == now.end()) continue;
    out.pss_mb += it->second.mem_mb;
    ++out.processes;
  }
  const double before = target_cpu(last_);
  const double after = target_cpu(now);
  if (t_s > last_t_) out.cpu_percent = 100 * (after - before) / (t_s - last_t_);
  cpu_s = after - target_cpu(first_);
  last_ = std::move(now);
  last_t_ = t_s;
  peak_mb_ = std::max(peak_mb_, out.pss_mb);
  max_containers_ = std::max(max_containers_, out.processes);
  return out;
}

TreeUsage ContainerSampler::usage(double elapsed_s, std::map<std::string, double>& by_role) const {
  TreeUsage u;
  u.peak_mb = peak_mb_;
  u.max_processes = max_containers_;
  if (elapsed_s <= 0) return u;
  for (const auto* s : services_) {
    auto first = first_.find(s->container);
    auto last = last_.find(s->container);
    if (first == first_.end() || last == last_.end()) continue;
    const double pct = 100 * (last->second.cpu_s - first->second.cpu_s) / elapsed_s;
    by_role[std::string(role_name(s->plan->role))] += pct;
    if (!s->plan->sample) continue;
    u.cpu_percent += pct;
    u.cpu_by_process[s->plan->binary] += pct;
  }
  return u;
}

std::map<std::string, double> ContainerSampler::cpu_s_grouped(bool target_by_binary) const {
  std::map<std::string, double> out;
  for (const auto* s : services_) {
    auto first = first_.find(s->container);
    auto last = last_.find(s->container);
    if (first == first_.end() || last == last_.end()) continue;
    if (target_by_binary && !s->plan->sample) continue;
    const std::string key =
        target_by_binary ? s->plan->binary : std::string(role_name(s->plan->role));
    out[key] += last->second.cpu_s - first->second.cpu_s;
  }
  return out;
}

std::map<std::string, ContainerStats> ContainerSampler::read() {
  const std::vector<std::string> all = names();
  // A remote engine's containers have their cgroups on its host.
  if (!engine_.global_args.empty()) return container_stats(engine_, all);
  std::vector<std::string> unresolved;
  for (const auto& name : all)
    if (!cgroups_.contains(name)) unresolved.push_back(name);
  // A container's cgroup stays where it is for its life: one inspect call finds it. Reading its
  // files then costs no process, where an engine `stats` call costs ~0.1 s of CPU.
  for (const auto& [name, pid] : container_pids(engine_, unresolved))
    if (auto files = process_cgroup(pid)) cgroups_[name] = std::move(*files);
  std::map<std::string, ContainerStats> out;
  std::vector<std::string> elsewhere;
  for (const auto& name : all) {
    const auto it = cgroups_.find(name);
    if (it == cgroups_.end()) {
      elsewhere.push_back(name);
      continue;
    }
    if (const auto usage = read_cgroup(it->second)) out[name] = {usage->cpu_s, usage->mem_mb};
  }
  // A podman container whose cgroup is not mounted here (another cgroup namespace): its stats.
  // docker's `stats` has no cumulative CPU time, so there it stays unsampled.
  if (engine_.name == "podman" && !elsewhere.empty())
    for (auto& [name, stats] : container_stats(engine_, elsewhere)) out[name] = stats;
  return out;
}

std::vector<std::string> ContainerSampler::names() const {
  std::vector<std::string> out;
  for (const auto* s : services_) out.push_back(s->container);
  return out;
}

}  // namespace gatebench::macro
