#include "macro/driver/measure/load_fanout.hpp"

#include <sys/wait.h>
#include <time.h>

#include <algorithm>
#include <chrono>
#include <filesystem>

#include "macro/common/json_field.hpp"
#include "macro/common/load_report.hpp"
#include "macro/common/usage_error.hpp"
#include "macro/driver/results/load_merge.hpp"
#include "macro/driver/results/run_support.hpp"

namespace gatebench::macro {
namespace fs = std::filesystem;
using namespace std::chrono_literals;

namespace {

uint64_t clock_ns(clockid_t clock) {
  timespec ts;
  clock_gettime(clock, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1'000'000'000ULL + static_cast<uint64_t>(ts.tv_nsec);
}

// --start-at goes before the URL, which stays the last argument.
void add_start_at(std::vector<std::string>& args, const std::string& unix_ms) {
  args.insert(args.end() - 1, {"--start-at", unix_ms});
}

std::string file_name(const std::string& label, const Host& host, const char* ext) {
  return "load-" + label + "-" + host.name + ext;
}

}  // namespace

int LoadFanout::share(int total, int i, int n) {
  return total / n + (i < total % n ? 1 : 0);
}

LoadFanout::LoadFanout(RemoteHosts& remote, const ScenarioPlan& plan, const LoadPlan& load,
                       const std::string& out_dir, const std::string& label, double duration_s,
                       std::optional<double> rate)
    : remote_(remote), label_(label) {
  const int n = static_cast<int>(remote.placement().load_hosts().size());
  if (load.connections < n)
    throw Outcome{Status::failed, std::to_string(load.connections) + " connections for " +
                                      std::to_string(n) + " load hosts"};
  const int64_t margin_ms = add_parts(plan, load, out_dir);

  // One instant for every host, on the wall clock they share; the same instant on this
  // machine's monotonic clock, on which the driver samples.
  const uint64_t real = clock_ns(CLOCK_REALTIME), mono = clock_ns(CLOCK_MONOTONIC);
  const uint64_t start_ms = real / 1'000'000 + static_cast<uint64_t>(margin_ms);
  start_mono_ns_ = mono + (start_ms * 1'000'000 - real);
  const std::string start_at = remote.dry_run() ? "<unix-ms>" : std::to_string(start_ms);
  for (int i = 0; i < n; ++i) {
    Part& p = parts_[static_cast<std::size_t>(i)];
    LoadPlan mine = load;
    mine.connections = share(load.connections, i, n);
    std::optional<double> my_rate;
    // Split as gatebench-load splits its rate over threads: by connections.
    if (rate) my_rate = *rate * mine.connections / load.connections;
    if (p.host->kind == HostKind::local)
      spawn_local(p, plan, mine, load, duration_s, my_rate, start_at);
    else
      start_remote(p, plan, std::move(mine), load, duration_s, my_rate, start_at);
  }
}

int64_t LoadFanout::add_parts(const ScenarioPlan& plan, const LoadPlan& load,
                              const std::string& out_dir) {
  const fs::path dir(plan.run_dir);
  int64_t margin_ms = kStartMarginMs;
  for (const Host* host : remote_.placement().load_hosts()) {
    Part p;
    p.host = host;
    p.json_path = (dir / file_name(label_, *host, ".json")).string();
    p.stderr_path = (dir / file_name(label_, *host, ".stderr")).string();
    if (host->kind == HostKind::ssh) {
      p.ssh_log = (dir / file_name(label_, *host, ".ssh")).string();
      p.remote_dir = remote_.remote_dir(*host, plan.run_dir, out_dir);
      try {
        SshHost& ssh = remote_.ready(*host);
        const auto before = std::chrono::steady_clock::now();
        ssh.run("mkdir -p " + shell_join(p.remote_dir, {}), 15s);
        const auto setup = std::chrono::duration_cast<std::chrono::milliseconds>(
            std::chrono::steady_clock::now() - before);
        // Twice the round trip that set the host up, plus the start of the generator itself
        // through ssh, which on a busy 2-vCPU machine with sanitizer builds came 678 ms after a
        // 1 s margin ("started 678.2 ms after --start-at": an invalid run).
        margin_ms = std::max<int64_t>(margin_ms, 2 * setup.count() + 1500);
        if (!load.requests_path.empty()) ssh.copy_to({load.requests_path}, p.remote_dir, 60s);
      } catch (const RemoteError& e) {
        throw Outcome{Status::failed, std::string("load on ") + e.what()};
      }
    }
    parts_.push_back(std::move(p));
  }
  return margin_ms;
}

void LoadFanout::spawn_local(Part& p, const ScenarioPlan& plan, const LoadPlan& mine,
                             const LoadPlan& load, double duration_s, std::optional<double> rate,
                             const std::string& start_at) {
  if (remote_.dry_run()) return;
  const fs::path dir(plan.run_dir);
  SpawnSpec child;
  child.exe = load.exe;
  child.args = mine.args(duration_s, rate, p.json_path, "");
  add_start_at(child.args, start_at);
  child.out = Stream::to_file((dir / file_name(label_, *p.host, ".txt")).string());
  child.err = Stream::to_file(p.stderr_path);
  child.cwd = plan.run_dir;
  child.cpus = load.cpus.cpus;
  write_text((dir / file_name(label_, *p.host, ".cmd")).string(),
             shell_join(child.exe, child.args) + "\n");
  try {
    p.process = ChildProcess::spawn(child);
  } catch (const SpawnError& e) {
    throw Outcome{Status::failed, "load on " + p.host->name + ": " + e.what()};
  }
}

void LoadFanout::start_remote(Part& p, const ScenarioPlan& plan, LoadPlan mine,
                              const LoadPlan& load, double duration_s, std::optional<double> rate,
                              const std::string& start_at) {
  mine.exe = remote_.remote_load_exe(*p.host);
  if (!load.requests_path.empty())
    mine.requests_path = p.remote_dir + "/" + fs::path(load.requests_path).filename().string();
  RemoteCommand command;
  command.exe = mine.exe;
  command.args = mine.args(duration_s, rate, p.remote_dir + "/load-" + label_ + ".json", "");
  add_start_at(command.args, start_at);
  command.cwd = p.remote_dir;
  command.stdout_path = p.remote_dir + "/load-" + label_ + ".txt";
  command.stderr_path = p.remote_dir + "/load-" + label_ + ".stderr";
  if (!remote_.dry_run())
    write_text((fs::path(plan.run_dir) / file_name(label_, *p.host, ".cmd")).string(),
               "on " + p.host->name + ": " + shell_join(command.exe, command.args) + "\n");
  try {
    p.process = remote_.ready(*p.host).start(command, p.ssh_log);
  } catch (const RemoteError& e) {
    throw Outcome{Status::failed, std::string("load on ") + e.what()};
  }
}

LoadFanout::~LoadFanout() {
  try {
    stop();
  } catch (...) {
    // stop() reports through its return value; a destructor only makes sure.
  }
}

pid_t LoadFanout::local_pid() const {
  // A local generator's CPU per request over every host's requests would say nothing.
  pid_t pid = 0;
  for (const Part& p : parts_) {
    if (p.host->kind == HostKind::ssh) return 0;
    if (pid == 0 && p.process.pid() > 0) pid = p.process.pid();
  }
  return pid;
}

std::map<std::string, double> LoadFanout::remote_cpu_s() const {
  std::map<std::string, double> out;
  for (const Part& p : parts_)
    if (p.host->kind == HostKind::ssh)
      if (auto cpu = parse_remote_cpu_s(read_text(p.ssh_log))) out[p.host->name] = *cpu;
  return out;
}

bool LoadFanout::all_remote() const {
  return std::all_of(parts_.begin(), parts_.end(),
                     [](const Part& p) { return p.host->kind == HostKind::ssh; });
}

std::optional<std::string> LoadFanout::poll() {
  if (remote_.dry_run()) return "";
  bool running = false;
  for (Part& p : parts_) {
    if (!p.status) p.status = p.process.exit_status();
    if (!p.status) {
      running = true;
      continue;
    }
    if (WIFEXITED(*p.status) && WEXITSTATUS(*p.status) == 0) continue;
    const std::string on = "load on " + p.host->name + ": ";
    if (p.host->kind == HostKind::local)
      return on + "gatebench-load " + describe_wait_status(*p.status) + ": " +
             last_line(read_text(p.stderr_path));
    const int code = WIFEXITED(*p.status) ? WEXITSTATUS(*p.status) : -1;
    // 255: ssh's own failure; 129: the wrapper saw the session hang up; 126: no run directory.
    if (code == 255)
      return on + "ssh connection failed or lost: " + last_line(read_text(p.ssh_log));
    if (code == 129) return on + "the ssh session hung up";
    if (code == 126) return on + "cannot enter " + p.remote_dir;
    try {
      remote_.ready(*p.host).copy_from(p.remote_dir + "/load-" + label_ + ".stderr", p.stderr_path,
                                       15s);
    } catch (const RemoteError&) {
      // The status alone then.
    }
    return on + "gatebench-load " + describe_wait_status(*p.status) + ": " +
           last_line(read_text(p.stderr_path));
  }
  return running ? std::nullopt : std::optional<std::string>("");
}

std::string LoadFanout::stop() {
  std::string left;
  for (Part& p : parts_) {
    if (p.process.pid() <= 0) continue;
    bool gone = true;
    if (p.host->kind == HostKind::local) {
      gone = p.process.stop();
    } else {
      const long pgid = parse_remote_pgid(read_text(p.ssh_log));
      const bool exited = p.status.has_value() || p.process.exit_status().has_value();
      // Ending the ssh client hangs up the session: the wrapper kills the group; then make sure.
      p.process.stop(1000ms);
      if (!exited && pgid > 0) {
        try {
          gone = remote_.ready(*p.host).stop_group(pgid);
        } catch (const RemoteError&) {
          gone = false;
        }
      }
    }
    if (!gone) left += (left.empty() ? "" : ", ") + p.host->name;
  }
  return left;
}

void LoadFanout::collect(const std::string& json_path) {
  if (remote_.dry_run()) {
    for (Part& p : parts_)
      if (p.host->kind == HostKind::ssh)
        remote_.ready(*p.host).copy_from(p.remote_dir + "/load-" + label_ + ".json", p.json_path,
                                         60s);
    return;
  }
  std::vector<LoadPart> results;
  for (Part& p : parts_) {
    if (p.host->kind == HostKind::ssh) {
      const fs::path local_dir = fs::path(p.json_path).parent_path();
      try {
        SshHost& ssh = remote_.ready(*p.host);
        ssh.copy_from(p.remote_dir + "/load-" + label_ + ".json", p.json_path, 60s);
        ssh.copy_from(p.remote_dir + "/load-" + label_ + ".txt",
                      (local_dir / file_name(label_, *p.host, ".txt")).string(), 60s);
        ssh.copy_from(p.remote_dir + "/load-" + label_ + ".stderr", p.stderr_path, 60s);
      } catch (const RemoteError& e) {
        throw Outcome{Status::failed, std::string("load on ") + e.what()};
      }
    }
    try {
      results.push_back(
          {p.host->name, common::parse_load_report(read_text(p.json_path), p.json_path)});
    } catch (const common::UsageError& e) {
      throw Outcome{Status::failed, "load on " + p.host->name + ": " + e.what()};
    }
  }
  common::LoadReport merged;
  try {
    merged = merge_load_results(results);
  } catch (const LoadParseError& e) {
    throw Outcome{Status::failed, std::string("merging the load hosts' results: ") + e.what()};
  }
  // Each host's window is on its own monotonic clock: the driver places the merged one.
  merged.window.reset();
  write_text(json_path, common::to_json(merged).dump(2) + "\n");
}

}  // namespace gatebench::macro
