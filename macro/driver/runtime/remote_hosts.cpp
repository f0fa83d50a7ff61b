#include "macro/driver/runtime/remote_hosts.hpp"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <ctime>
#include <filesystem>
#include <sstream>

#include "macro/driver/plan/plan.hpp"
#include "macro/driver/results/run_support.hpp"
#include "macro/driver/runtime/run_context.hpp"

namespace gatebench::macro {
namespace fs = std::filesystem;
using namespace std::chrono_literals;

HostEnv parse_host_env(const std::string& output) {
  HostEnv env;
  std::istringstream in(output);
  std::string line;
  int n = 0;
  while (std::getline(in, line)) {
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.pop_back();
    if (line.starts_with("model name")) {
      const auto colon = line.find(':');
      if (colon != std::string::npos &&
          line.find_first_not_of(" \t", colon + 1) != std::string::npos)
        env.cpu_model = line.substr(line.find_first_not_of(" \t", colon + 1));
    } else if (n == 0) {
      env.kernel = line;
      ++n;
    } else if (n == 1) {
      env.cpus = std::atoi(line.c_str());
      ++n;
    }
  }
  return env;
}

// The workdir (default /tmp/gatebench-remote) is shared ground on the host: binaries are copied
// there and run, often as root. It is used only when it is a real directory (not a symlink) of
// the ssh user with mode 0700; one made first by another user is refused, naming it.
namespace {

std::string private_workdir_check(const Host& host) {
  const std::string w = shell_join(host.workdir, {});
  return "{ mkdir -p -m 0700 " + w + " && test -d " + w + " && test ! -L " + w + " && test -O " +
         w + " && test \"$(stat -c %a " + w + ")\" = 700; } || { echo " +
         shell_join("gatebench: " + host.workdir + " on " + host.name +
                        " must be a directory of this user with mode 0700, not a symlink "
                        "(remove it, or chmod 0700 it if it is yours)",
                    {}) +
         " >&2; exit 1; }; ";
}

}  // namespace

RemoteHosts::RemoteHosts(const Placement& placement, std::string load_exe, bool dry_run)
    : placement_(placement), load_exe_(std::move(load_exe)), dry_run_(dry_run) {
  session_ = session_name();
  // Sockets need short paths (108 bytes): under /tmp, not under the results directory. A fresh
  // private directory: the driver runs as root, and a predictable /tmp/gbssh-<pid> made first by
  // another user (or a symlink there) would have taken its sockets and logs. A dry run creates
  // nothing and only names it.
  if (dry_run_) {
    control_dir_ = (fs::temp_directory_path() / ("gbssh-" + std::to_string(getpid()))).string();
  } else {
    control_.emplace(fs::temp_directory_path(), "gbssh-");
    control_dir_ = control_->path().string();
  }
}

RemoteHosts::~RemoteHosts() {
  close();
}

std::string RemoteHosts::session_dir(const Host& host) const {
  return host.workdir + "/" + session_;
}

std::string RemoteHosts::remote_dir(const Host& host, const std::string& local_run_dir,
                                    const std::string& out_dir) const {
  return session_dir(host) + "/" +
         fs::path(local_run_dir).lexically_relative(out_dir).lexically_normal().string();
}

SshHost& RemoteHosts::ready(const Host& host) {
  auto it = hosts_.find(host.name);
  if (it == hosts_.end()) {
    it = hosts_
             .emplace(host.name, std::make_unique<SshHost>(
                                     host, control_dir_, dry_run_ ? &dry_log_[host.name] : nullptr))
             .first;
  }
  SshHost& ssh = *it->second;
  if (prepared_.contains(host.name)) {
    if (ssh.alive()) return ssh;
    // The connection was lost: a new one, and the session's files checked again.
    prepared_.erase(host.name);
    configs_copied_.erase(host.name);
    std::erase_if(service_exes_,
                  [&](const auto& e) { return e.first.starts_with(host.name + " "); });
  }
  ssh.connect(15s);
  const std::string session = session_dir(host);
  HostEnv env = parse_host_env(
      ssh.run(private_workdir_check(host) + "mkdir -p " + shell_join(session + "/bin", {}) +
                  " && uname -sr && nproc && { grep -m1 'model name' /proc/cpuinfo || true; }",
              15s));
  const auto& loads = placement_.roles.at("load");
  if (std::find(loads.begin(), loads.end(), host.name) != loads.end()) {
    ssh.copy_to({load_exe_}, session + "/bin", 120s);
    try {
      ssh.run(shell_join(remote_load_exe(host), {"--help"}) + " >/dev/null", 15s);
    } catch (const RemoteError& e) {
      throw RemoteError(std::string(e.what()) + " (gatebench-load does not run on " + host.name +
                        ": its libraries, docs/multi-host.md)");
    }
  }
  envs_[host.name] = std::move(env);
  prepared_.insert(host.name);
  return ssh;
}

std::string RemoteHosts::service_exe(const Host& host, const std::string& binary,
                                     const std::string& exe, bool copy) {
  SshHost& ssh = ready(host);
  const std::string session = session_dir(host);
  if (!configs_copied_.contains(host.name) && !configs_dir_.empty()) {
    // The templates' ${configs}: rule files and the like, read by the services there.
    ssh.run("rm -rf " + shell_join(session + "/configs", {}), 15s);
    ssh.copy_to({configs_dir_}, session, 120s, true);
    if (fs::path(configs_dir_).filename() != "configs")
      ssh.run("mv " + shell_join(session + "/" + fs::path(configs_dir_).filename().string(),
                                 {session + "/configs"}),
              15s);
    configs_copied_.insert(host.name);
  }
  const std::string key = host.name + " " + binary;
  if (auto it = service_exes_.find(key); it != service_exes_.end()) return it->second;
  std::string program;
  if (copy) {
    ssh.copy_to({exe}, session + "/bin", 120s);
    program = session + "/bin/" + fs::path(exe).filename().string();
    try {
      ssh.run(shell_join(program, {"--help"}) + " >/dev/null", 15s);
    } catch (const RemoteError& e) {
      throw RemoteError(std::string(e.what()) + " (" + binary + " does not run on " + host.name +
                        ": its libraries, docs/multi-host.md)");
    }
  } else {
    try {
      program = last_line(ssh.run("command -v " + shell_join(binary, {}), 15s));
    } catch (const RemoteError&) {
      throw RemoteError(host.name + ": " + binary + " not installed there (command -v " + binary +
                        " found nothing)");
    }
    if (ssh.dry_run()) program = binary;
  }
  service_exes_[key] = program;
  return program;
}

EngineHost& RemoteHosts::engine_unconnected(const Host& host) {
  auto it = engines_.find(host.name);
  if (it == engines_.end())
    it = engines_
             .emplace(host.name,
                      std::make_unique<EngineHost>(host, builder_, image_dir_,
                                                   dry_run_ ? &dry_log_[host.name] : nullptr))
             .first;
  return *it->second;
}

EngineHost& RemoteHosts::engine(const Host& host) {
  EngineHost& e = engine_unconnected(host);
  e.connect();
  return e;
}

std::vector<std::string> RemoteHosts::sweep_containers() {
  std::vector<std::string> left;
  for (auto& [name, e] : engines_)
    for (const auto& c : e->sweep(container_prefix())) left.push_back(c + " on " + name);
  return left;
}

void RemoteHosts::close() {
  sweep_containers();
  for (auto& [name, ssh] : hosts_) {
    if (prepared_.contains(name)) {
      try {
        ssh->run("rm -rf " + shell_join(session_dir(ssh->host()), {}), 15s, false);
      } catch (...) {
        // Unreachable by now: its session directory stays, named in the log of the run.
      }
    }
    ssh->disconnect();
  }
  hosts_.clear();
  engines_.clear();
  prepared_.clear();
  configs_copied_.clear();
  service_exes_.clear();
  control_.reset();  // removes the sockets' directory
}

std::vector<HostEnv> RemoteHosts::host_envs(const EnvInfo& local) const {
  std::vector<HostEnv> out;
  for (const auto& [name, host] : placement_.hosts) {
    HostEnv env;
    if (host.kind == HostKind::local) {
      env.cpu_model = local.cpu_model;
      env.cpus = local.cpus;
      env.kernel = local.kernel;
    } else if (auto it = envs_.find(name); it != envs_.end()) {
      env = it->second;
    } else if (auto e = engines_.find(name); e != engines_.end()) {
      env = e->second->env();
    }
    env.name = name;
    env.kind = host_kind_name(host.kind);
    env.address = host.address;
    for (const auto& [role, names] : placement_.roles)
      if (std::find(names.begin(), names.end(), name) != names.end()) env.roles.push_back(role);
    if (env.roles.empty()) continue;  // in the file, not used by this run
    out.push_back(std::move(env));
  }
  return out;
}

}  // namespace gatebench::macro
