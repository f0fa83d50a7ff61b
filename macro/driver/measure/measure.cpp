#include "macro/driver/measure/measure.hpp"

#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <memory>
#include <set>
#include <utility>

#include "macro/common/duration.hpp"
#include "macro/common/machine_cpu.hpp"
#include "macro/common/stop_signal.hpp"
#include "macro/driver/measure/container_sampler.hpp"
#include "macro/driver/measure/cpu_series.hpp"
#include "macro/driver/measure/load_fanout.hpp"
#include "macro/driver/measure/prepare.hpp"
#include "macro/driver/measure/remote_sampler.hpp"
#include "macro/driver/results/h2load_output.hpp"
#include "macro/driver/results/load_json.hpp"
#include "macro/driver/results/run_support.hpp"
#include "macro/driver/results/wrk_output.hpp"
#include "macro/driver/runtime/remote_hosts.hpp"

namespace gatebench::macro {
namespace fs = std::filesystem;

namespace {

// Between two full /proc scans the known trees are read every 20 ms: the window's edges then
// fall at most 20 ms from a sample and the cumulative CPU is interpolated between the two.
constexpr auto kTick = std::chrono::milliseconds(20);

uint64_t monotonic_ns() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1'000'000'000ULL + static_cast<uint64_t>(ts.tv_nsec);
}

// Write syscalls of the load generator: one per request on keep-alive connections, so their rate
// is a cheap live estimate of req/s for the progress line (never reported as a result).
std::optional<uint64_t> write_syscalls(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/io");
  std::string key;
  uint64_t value = 0;
  while (in >> key >> value) {
    if (key == "syscw:") return value;
  }
  return std::nullopt;
}

// Seconds the process's threads ran or waited for a CPU since they started (the first two
// fields of /proc/PID/task/TID/schedstat): a thread that was never idle wanted more CPU than it
// got. Nothing when the kernel has no schedstat.
std::optional<double> runnable_seconds(pid_t pid) {
  std::error_code ec;
  const fs::path tasks = "/proc/" + std::to_string(pid) + "/task";
  uint64_t total_ns = 0;
  bool any = false;
  for (const auto& task : fs::directory_iterator(tasks, ec)) {
    std::ifstream in(task.path() / "schedstat");
    uint64_t run_ns = 0, wait_ns = 0;
    if (in >> run_ns >> wait_ns) {
      total_ns += run_ns + wait_ns;
      any = true;
    }
  }
  if (!any) return std::nullopt;
  return static_cast<double>(total_ns) / 1e9;
}

// The services of one ssh host: one sampling loop there (remote_sampler.hpp), its samples
// turned into the same trees and series as this machine's once the run is over.
struct RemoteTrees {
  std::string host;
  std::unique_ptr<RemoteSampler> stream;
  std::vector<long> target_groups;
  std::map<std::string, std::vector<long>> role_groups;
  CpuSeries target_cpu;
  std::map<std::string, CpuSeries> role_cpu, name_cpu;
  TreeUsage usage;

  static std::vector<pid_t> pids(const std::vector<long>& groups) {
    return {groups.begin(), groups.end()};
  }

  void finish(std::ofstream& csv) {
    const std::vector<RemoteSample> samples = stream->finish();
    if (samples.empty()) return;
    TreeSampler target(pids(target_groups), true, false);
    std::map<std::string, TreeSampler> roles;
    for (const auto& [role, groups] : role_groups)
      roles.emplace(role, TreeSampler(pids(groups), false, false));
    const double t0 = samples.front().t_s;
    target.start(samples.front().processes, t0);
    target_cpu.add(t0, 0);
    for (auto& [role, sampler] : roles) {
      sampler.start(samples.front().processes, t0);
      role_cpu[role].add(t0, 0);
    }
    for (std::size_t i = 1; i < samples.size(); ++i) {
      const RemoteSample& rs = samples[i];
      const TreeSample ts = target.sample(rs.processes, rs.t_s, true);
      target_cpu.add(rs.t_s, target.cpu_seconds());
      for (const auto& [name, cpu] : target.cpu_seconds_by_name()) name_cpu[name].add(rs.t_s, cpu);
      csv << ts.t_s << ",target@" << host << ',' << ts.processes << ',' << ts.cpu_percent << ','
          << ts.pss_mb << ',' << ts.rss_mb << '\n';
      for (auto& [role, sampler] : roles) {
        const TreeSample r = sampler.sample(rs.processes, rs.t_s, false);
        role_cpu[role].add(rs.t_s, sampler.cpu_seconds());
        csv << r.t_s << ',' << role << '@' << host << ',' << r.processes << ',' << r.cpu_percent
            << ',' << r.pss_mb << ',' << r.rss_mb << '\n';
      }
    }
    usage = target.usage(samples.back().t_s - t0);
  }
};

// The services of one container engine host: the engine's stats (once a second, as for the
// container runtime), kept as cumulative series placed on the run's clock.
struct EngineTrees {
  std::string host;
  std::unique_ptr<ContainerSampler> sampler;
  CpuSeries target_cpu;
  std::map<std::string, CpuSeries> role_cpu, name_cpu;

  void start() {
    sampler->start();
    target_cpu.add(0, 0);
  }
  void take(double t, std::ofstream& csv) {
    double cpu_s = 0;
    const TreeSample s = sampler->sample(t, cpu_s);
    target_cpu.add(t, cpu_s);
    for (const auto& [role, cpu] : sampler->cpu_s_by_role()) role_cpu[role].add(t, cpu);
    for (const auto& [name, cpu] : sampler->target_cpu_s_by_binary()) name_cpu[name].add(t, cpu);
    csv << t << ",target@" << host << ',' << s.processes << ',' << s.cpu_percent << ',' << s.pss_mb
        << ",\n";
  }
};

// The samplers of one run: the measured target's trees, each role's trees, and their cumulative
// CPU over time.
struct Sampling {
  std::vector<RemoteTrees> remote;
  std::vector<EngineTrees> engines;
  std::optional<TreeSampler> target;
  std::map<std::string, TreeSampler> roles;
  std::optional<ContainerSampler> containers;
  CpuSeries target_cpu;
  std::map<std::string, CpuSeries> role_cpu;
  std::map<std::string, CpuSeries> name_cpu;
  std::optional<common::MachineCpu> machine_start;
  CpuSeries machine_busy, machine_idle, machine_steal;  // since machine_start
  pid_t load_pid = 0;
  CpuSeries load_runnable;  // the generator's threads' running + run-queue time
  std::ofstream csv;
  double last_full_t = 0;
  double last_container_t = 0;

  std::vector<pid_t> known() const {
    std::set<pid_t> pids;
    if (target)
      for (pid_t p : target->members()) pids.insert(p);
    for (const auto& [name, s] : roles)
      for (pid_t p : s.members()) pids.insert(p);
    return {pids.begin(), pids.end()};
  }

  void row(const std::string& role, const TreeSample& s) {
    csv << s.t_s << ',' << role << ',' << s.processes << ',' << s.cpu_percent << ',' << s.pss_mb
        << ',' << s.rss_mb << '\n';
  }

  void take_machine(double t) {
    const auto now = common::read_machine_cpu();
    if (!now) return;
    if (!machine_start) machine_start = now;
    machine_busy.add(t, now->busy_s - machine_start->busy_s);
    machine_idle.add(t, now->idle_s - machine_start->idle_s);
    machine_steal.add(t, now->steal_s - machine_start->steal_s);
  }

  void take(double t, bool full, bool container_due) {
    take_machine(t);
    // Exited threads take their schedstat with them: a series must not go down.
    if (auto runnable = runnable_seconds(load_pid)) load_runnable.add(t, *runnable);
    const auto snapshot = full ? scan_proc() : scan_pids(known());
    if (container_due)
      for (auto& e : engines) e.take(t, csv);
    if (containers) {
      if (container_due) {
        double cpu_s = 0;
        const TreeSample s = containers->sample(t, cpu_s);
        target_cpu.add(t, cpu_s);
        row("target", s);
        last_container_t = t;
      }
    } else {
      const TreeSample s = target->sample(snapshot, t, full);
      target_cpu.add(t, target->cpu_seconds());
      for (const auto& [name, cpu] : target->cpu_seconds_by_name()) name_cpu[name].add(t, cpu);
      if (full) row("target", s);
    }
    for (auto& [name, sampler] : roles) {
      if (containers && name != "load") continue;
      const TreeSample s = sampler.sample(snapshot, t, false);
      role_cpu[name].add(t, sampler.cpu_seconds());
      if (full) row(name, s);
    }
    if (full) last_full_t = t;
  }
};

// One sampling loop per ssh host that runs services, started before the load and waited for
// until its first sample arrived, so the measured window is covered from its start.
void start_remote_sampling(Sampling& sampling, const ScenarioPlan& plan, const RunContext& ctx,
                           const Services& services, const std::string& label, double interval_s,
                           std::chrono::steady_clock::time_point start) {
  if (ctx.remote == nullptr) return;
  const auto all = services.remote_groups([](const ServicePlan&) { return true; });
  const auto targets = services.remote_groups([](const ServicePlan& s) { return s.sample; });
  for (const auto& [host, groups] : all) {
    RemoteTrees r;
    r.host = host;
    if (auto it = targets.find(host); it != targets.end()) r.target_groups = it->second;
    for (Role role : {Role::backend, Role::gateway}) {
      const auto of_role =
          services.remote_groups([role](const ServicePlan& s) { return s.role == role; });
      if (auto it = of_role.find(host); it != of_role.end())
        r.role_groups[std::string(role_name(role))] = it->second;
    }
    const Host& on = ctx.remote->placement().hosts.at(host);
    try {
      r.stream = std::make_unique<RemoteSampler>(
          ctx.remote->ready(on), group_pattern(groups), interval_s,
          ctx.remote->remote_dir(on, plan.run_dir, ctx.out_dir), plan.run_dir, label, start);
    } catch (const RemoteError& e) {
      throw Outcome{Status::failed, "sampling on " + std::string(e.what())};
    }
    sampling.remote.push_back(std::move(r));
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
    const RemoteSampler& stream = *sampling.remote.back().stream;
    while (!stream.started()) {
      if (!common::sleep_unless_stopped(std::chrono::milliseconds(10))) throw Interrupted{};
      if (std::chrono::steady_clock::now() > deadline)
        throw Outcome{Status::failed, "sampling on " + host + ": not started within 5 s"};
    }
  }
}

// This machine's trees (the measured target, each role, the local generator), the containers here
// and on engine hosts, and the samples file, all started at the run's time 0.
void start_local_sampling(Sampling& sampling, const RunContext& ctx, const Services& services,
                          pid_t load_pid, const std::string& csv_path) {
  sampling.target.emplace(services.groups([](const ServicePlan& s) { return s.sample; }));
  for (Role role : {Role::backend, Role::gateway}) {
    auto g = services.groups([role](const ServicePlan& s) { return s.role == role; });
    if (!g.empty()) sampling.roles.emplace(std::string(role_name(role)), TreeSampler(g, false));
  }
  if (load_pid > 0) sampling.roles.emplace("load", TreeSampler({load_pid}, false));
  sampling.load_pid = load_pid;
  if (ctx.engine != nullptr) {
    std::vector<const RunningService*> running;
    for (const auto& s : services.running())
      if (s.plan->host.empty()) running.push_back(&s);
    sampling.containers.emplace(*ctx.engine, running);
  }
  if (ctx.remote != nullptr) {
    std::map<std::string, std::vector<const RunningService*>> by_host;
    for (const auto& s : services.running())
      if (s.plan->host_kind == HostKind::podman) by_host[s.plan->host].push_back(&s);
    for (const auto& [host, running] : by_host) {
      EngineTrees e;
      e.host = host;
      e.sampler = std::make_unique<ContainerSampler>(
          ctx.remote->engine_unconnected(ctx.remote->placement().hosts.at(host)).engine(), running);
      sampling.engines.push_back(std::move(e));
    }
  }
  sampling.csv.open(csv_path);
  sampling.csv << "t_s,role,processes,cpu_percent,pss_mb,rss_mb\n";
  const auto snapshot = scan_proc();
  sampling.target->start(snapshot, 0);
  for (auto& [name, sampler] : sampling.roles) sampler.start(snapshot, 0);
  if (sampling.containers) sampling.containers->start();
  for (auto& e : sampling.engines) e.start();
  sampling.target_cpu.add(0, 0);
  for (auto& [name, sampler] : sampling.roles) sampling.role_cpu[name].add(0, 0);
  sampling.take_machine(0);
}

// The generator of one run: a local child, or the run spread over the load hosts (fanout).
struct LoadRun {
  ChildProcess local;
  std::optional<LoadFanout> fanout;
  pid_t pid = 0;  // the local generator: its CPU is the load role's, its writes show progress
};

// Polls the generator until it exits, sampling on the way and ticking the progress line; returns
// the seconds since `start` at its exit. Throws Outcome failed (it failed, outlived its duration
// by kLoadRunGraceS, a service died) or Interrupted.
double wait_for_load(LoadRun& run, Services& services, Sampling& sampling, const RunContext& ctx,
                     const LoadPlan& load_plan, const MeasureSpec& spec,
                     std::chrono::steady_clock::time_point start, double full_every,
                     const std::string& stderr_path) {
  const double limit_s = spec.duration_s + kLoadRunGraceS;
  std::optional<uint64_t> last_writes;
  double last_progress_t = 0;
  for (;;) {
    if (!common::sleep_unless_stopped(kTick)) throw Interrupted{};
    const double elapsed = seconds_since(start);
    std::optional<int> status;
    if (run.fanout) {
      if (auto outcome = run.fanout->poll()) {
        if (!outcome->empty()) throw Outcome{Status::failed, *outcome};
        status = 0;
      }
    } else {
      status = run.local.exit_status();
    }
    services.check_alive();
    if (spec.sample) {
      // Containers are sampled once a second (a remote engine's `stats` call costs ~0.1 s CPU).
      sampling.take(elapsed, elapsed - sampling.last_full_t >= full_every || status.has_value(),
                    elapsed - sampling.last_container_t >= 1.0 || status.has_value());
    }
    if (status) {
      if (!WIFEXITED(*status) || WEXITSTATUS(*status) != 0) {
        throw Outcome{Status::failed, load_plan.tool + " " + describe_wait_status(*status) + ": " +
                                          last_line(read_text(stderr_path))};
      }
      return elapsed;
    }
    if (elapsed > limit_s) {
      if (run.fanout) run.fanout->stop();
      run.local.stop();
      throw Outcome{Status::failed,
                    load_plan.tool + " did not finish within " + common::duration_text(limit_s)};
    }
    if (elapsed - last_progress_t >= 0.25) {
      auto writes = run.pid > 0 ? write_syscalls(run.pid) : std::nullopt;
      std::optional<double> rps;
      if (writes && last_writes && elapsed > last_progress_t) {
        rps = static_cast<double>(*writes - *last_writes) / (elapsed - last_progress_t);
      }
      last_writes = writes;
      last_progress_t = elapsed;
      ctx.progress.tick(elapsed, rps);
    }
  }
}

// The generator's own result, completed with what its output does not say (wrk) from what it
// was asked to do. Throws Outcome failed when the output cannot be read.
Measurement read_load_result(const LoadPlan& load_plan, const MeasureSpec& spec,
                             const std::string& stdout_path, const std::string& json_path) {
  Measurement m;
  try {
    if (load_plan.tool == "wrk") {
      m.load = parse_wrk_output(read_text(stdout_path));
    } else if (load_plan.tool == "h2load") {
      m.load = parse_h2load_output(read_text(stdout_path));
    } else {
      m.load = parse_load_json(read_text(json_path), json_path, &m.invalid);
    }
  } catch (const LoadParseError& e) {
    throw Outcome{Status::failed, e.what()};
  }
  if (m.load.threads == 0)
    m.load.threads = std::max(1, std::min(load_plan.threads, load_plan.connections));
  if (load_plan.tool != "gatebench-load") {
    m.load.closed_loop = !spec.rate.has_value();
    m.load.new_connections = load_plan.close;
  }
  return m;
}

// The measured window [w0, w1] in the driver's seconds since the generator was spawned, and
// where its instants come from (m.window_source, m.window_s). Throws Outcome failed when empty.
std::pair<double, double> measured_window(Measurement& m, const LoadRun& run,
                                          const Sampling& sampling, uint64_t start_ns,
                                          double elapsed, double duration_s) {
  double w0 = std::max(0.0, elapsed - duration_s), w1 = elapsed;
  m.window_source = "last D s before exit";
  if (run.fanout && run.fanout->start_monotonic_ns() >= start_ns) {
    // Every host began at the --start-at instant; the window is as long as the longest host's.
    w0 = static_cast<double>(run.fanout->start_monotonic_ns() - start_ns) / 1e9;
    w1 = std::min(elapsed, w0 + m.load.duration_s);
    m.window_source = "synchronised start";
  } else if (m.load.window_start_ns && m.load.window_end_ns &&
             *m.load.window_start_ns >= start_ns) {
    w0 = static_cast<double>(*m.load.window_start_ns - start_ns) / 1e9;
    w1 = static_cast<double>(*m.load.window_end_ns - start_ns) / 1e9;
    m.window_source = "load generator";
  }
  if (sampling.containers) m.window_source = "container samples";
  m.window_s = w1 - w0;
  if (m.window_s <= 0) throw Outcome{Status::failed, "the measured window is empty"};
  return {w0, w1};
}

// The target's and the roles' CPU and memory here and on ssh hosts, over the window (over the
// generator's whole run with the container runtime, whose stats come once a second: m.window_s
// becomes that run).
TreeUsage usage_in_window(Measurement& m, Sampling& sampling, double w0, double w1,
                          double elapsed) {
  const auto percent = [&](double cpu_s) { return 100 * cpu_s / m.window_s; };
  TreeUsage usage;
  if (sampling.containers) {
    usage = sampling.containers->usage(elapsed, m.cpu_by_role);
    m.cpu_s_by_role["target"] = sampling.target_cpu.between(0, elapsed);
    m.window_s = elapsed;
    m.cpu_by_role["load"] = percent(sampling.role_cpu["load"].between(0, elapsed));
    m.cpu_s_by_role["load"] = sampling.role_cpu["load"].between(0, elapsed);
    usage.cpu_percent = percent(m.cpu_s_by_role["target"]);
    return usage;
  }
  usage = sampling.target->usage(elapsed);
  usage.cpu_by_process.clear();
  m.cpu_s_by_role["target"] = sampling.target_cpu.between(w0, w1);
  for (const auto& [name, series] : sampling.name_cpu)
    usage.cpu_by_process[name] = percent(series.between(w0, w1));
  for (const auto& [name, series] : sampling.role_cpu)
    m.cpu_s_by_role[name] = series.between(w0, w1);
  // Services on ssh hosts: their trees there over the same window; memory peaks add up (each
  // host's peak, an upper bound of the peak of the sum when a target spans hosts).
  for (const auto& r : sampling.remote) {
    m.cpu_s_by_role["target"] += r.target_cpu.between(w0, w1);
    for (const auto& [name, series] : r.name_cpu)
      usage.cpu_by_process[name] += percent(series.between(w0, w1));
    for (const auto& [name, series] : r.role_cpu) m.cpu_s_by_role[name] += series.between(w0, w1);
    usage.peak_mb += r.usage.peak_mb;
    usage.peak_rss_mb += r.usage.peak_rss_mb;
    usage.max_processes += r.usage.max_processes;
  }
  usage.cpu_percent = percent(m.cpu_s_by_role["target"]);
  for (const auto& [name, cpu_s] : m.cpu_s_by_role)
    if (name != "target") m.cpu_by_role[name] = percent(cpu_s);
  return usage;
}

// Services on engine hosts: their containers' stats over [e0, e1] (interpolated between the
// once-a-second samples), added to the target's and the roles' figures.
void add_engine_hosts(Measurement& m, TreeUsage& usage, const Sampling& sampling, double e0,
                      double e1) {
  const auto percent = [&](double cpu_s) { return 100 * cpu_s / m.window_s; };
  for (const auto& e : sampling.engines) {
    const double target_s = e.target_cpu.between(e0, e1);
    m.cpu_s_by_role["target"] += target_s;
    usage.cpu_percent += percent(target_s);
    for (const auto& [name, series] : e.name_cpu)
      usage.cpu_by_process[name] += percent(series.between(e0, e1));
    for (const auto& [role, series] : e.role_cpu) {
      const double cpu_s = series.between(e0, e1);
      m.cpu_s_by_role[role] += cpu_s;
      m.cpu_by_role[role] += percent(cpu_s);
    }
    usage.peak_mb += e.sampler->peak_mb();
    usage.max_processes += e.sampler->max_containers();
  }
}

// Generators all on other hosts: the load role's CPU is theirs, over each whole run (its start
// margin is sleep and its drain a few ms, so it is close to the window's).
void add_load_hosts(Measurement& m, const LoadFanout& fanout, const RunContext& ctx) {
  m.load_host_cpu_s = fanout.remote_cpu_s();
  if (fanout.all_remote() && !m.load_host_cpu_s.empty() &&
      m.load_host_cpu_s.size() == ctx.remote->placement().load_hosts().size()) {
    double total = 0;
    for (const auto& [host, cpu] : m.load_host_cpu_s) total += cpu;
    m.cpu_s_by_role["load"] = total;
    m.cpu_by_role["load"] = 100 * total / m.window_s;
  }
}

// The machine's busy, idle and stolen CPU seconds, the generator's runnable time, and the
// target's CPU% in each second of the window.
void add_machine_and_seconds(Measurement& m, const Sampling& sampling, double w0, double w1,
                             double elapsed) {
  if (!sampling.machine_busy.empty()) {
    const double m0 = sampling.containers ? 0 : w0, m1 = sampling.containers ? elapsed : w1;
    m.cpu_s_by_role["machine"] = sampling.machine_busy.between(m0, m1);
    m.cpu_s_by_role["machine_idle"] = sampling.machine_idle.between(m0, m1);
    m.cpu_s_by_role["machine_steal"] = sampling.machine_steal.between(m0, m1);
  }
  if (!sampling.load_runnable.empty() && !sampling.containers)
    m.cpu_s_by_role["load_runnable"] = sampling.load_runnable.between(w0, w1);
  // Seconds of the window as the generator's per-second series counts them; a last partial second
  // (a 500 ms run has only that) over its own length.
  for (double t = w0; w1 - t > 0.01; t += 1) {
    const double end = std::min(t + 1, w1);
    double cpu_s = sampling.target_cpu.between(t, end);
    for (const auto& r : sampling.remote) cpu_s += r.target_cpu.between(t, end);
    for (const auto& e : sampling.engines) cpu_s += e.target_cpu.between(t, end);
    m.target_cpu_per_second.push_back(100 * cpu_s / (end - t));
  }
}

}  // namespace

Measurement measure(const ScenarioPlan& plan, const RunContext& ctx, const LoadPlan& load_plan,
                    Services& services, const MeasureSpec& spec) {
  const fs::path dir(plan.run_dir);
  const std::string json_path = (dir / ("load-" + spec.label + ".json")).string();
  const std::string stdout_path = (dir / ("load-" + spec.label + ".txt")).string();
  const std::string stderr_path = (dir / ("load-" + spec.label + ".stderr")).string();
  SpawnSpec child;
  child.exe = load_plan.exe;
  child.args =
      load_plan.args(spec.duration_s, spec.rate, json_path, wrk_script_path(plan), spec.sample);
  child.out = Stream::to_file(stdout_path);
  child.err = Stream::to_file(stderr_path);
  child.cwd = plan.run_dir;
  child.cpus = load_plan.cpus.cpus;

  // The run's clock starts before anything is spawned: the samplers on other hosts are placed
  // on it, and they begin before the load does.
  const uint64_t start_ns = monotonic_ns();
  const auto start = std::chrono::steady_clock::now();
  const double full_every = std::max(0.01, ctx.options.sample_interval_s);
  Sampling sampling;
  if (spec.sample)
    start_remote_sampling(sampling, plan, ctx, services, spec.label, full_every, start);
  LoadRun run;
  if (load_plan.fanout && ctx.remote != nullptr) {
    run.fanout.emplace(*ctx.remote, plan, load_plan, ctx.out_dir, spec.label, spec.duration_s,
                       spec.rate);
  } else {
    write_text((dir / ("load-" + spec.label + ".cmd")).string(),
               shell_join(child.exe, child.args) + "\n");
    try {
      run.local = ChildProcess::spawn(child);
    } catch (const SpawnError& e) {
      throw Outcome{Status::failed, load_plan.tool + ": " + e.what()};
    }
  }
  run.pid = run.fanout ? run.fanout->local_pid() : run.local.pid();
  if (spec.sample)
    start_local_sampling(sampling, ctx, services, run.pid,
                         (dir / ("samples-" + spec.label + ".csv")).string());
  const double elapsed =
      wait_for_load(run, services, sampling, ctx, load_plan, spec, start, full_every, stderr_path);
  run.local.stop();
  if (run.fanout) {
    if (const std::string left = run.fanout->stop(); !left.empty())
      throw Outcome{Status::failed, "load processes left behind on " + left};
    run.fanout->collect(json_path);
  }

  Measurement m = read_load_result(load_plan, spec, stdout_path, json_path);
  if (!spec.sample) return m;
  for (auto& r : sampling.remote) r.finish(sampling.csv);
  const auto [w0, w1] = measured_window(m, run, sampling, start_ns, elapsed, spec.duration_s);
  TreeUsage usage = usage_in_window(m, sampling, w0, w1, elapsed);
  // With the container runtime, engine hosts too are counted over the generator's whole run.
  if (sampling.containers)
    add_engine_hosts(m, usage, sampling, 0, elapsed);
  else
    add_engine_hosts(m, usage, sampling, w0, w1);
  m.target = usage;
  if (run.fanout) add_load_hosts(m, *run.fanout, ctx);
  add_machine_and_seconds(m, sampling, w0, w1, elapsed);
  return m;
}

}  // namespace gatebench::macro
