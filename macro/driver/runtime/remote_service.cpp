#include "macro/driver/runtime/remote_service.hpp"

#include <sys/wait.h>

#include <chrono>
#include <filesystem>
#include <map>
#include <thread>
#include <vector>

#include "macro/common/stop_signal.hpp"
#include "macro/driver/results/run_support.hpp"

namespace gatebench::macro {
namespace fs = std::filesystem;
using namespace std::chrono_literals;

namespace {

std::string run_dir_of(const ServicePlan& service) {
  return fs::path(service.stdout_path).parent_path().string();
}

const Host& host_of(RemoteHosts& remote, const ServicePlan& service) {
  return remote.placement().hosts.at(service.host);
}

}  // namespace

std::string remote_service_log(const ServicePlan& service) {
  return (fs::path(run_dir_of(service)) / (service.name + ".ssh")).string();
}

ChildProcess start_remote_service(RemoteHosts& remote, const ScenarioPlan& plan,
                                  const ServicePlan& service) {
  const Host& host = host_of(remote, service);
  const std::string exe =
      remote.service_exe(host, service.binary, service.exe, service.copy_binary);
  SshHost& ssh = remote.ready(host);
  std::vector<std::string> dirs;
  for (const auto& dir : service.dirs) dirs.push_back(service.remote_path(dir, plan.run_dir));
  ssh.run(shell_join("mkdir",
                     [&] {
                       std::vector<std::string> a = {"-p", service.remote_dir};
                       a.insert(a.end(), dirs.begin(), dirs.end());
                       return a;
                     }()),
          15s);
  // Rendered configs and the prepared files the services read (certificates), one scp per
  // directory they go to.
  std::map<std::string, std::vector<std::string>> copies;
  auto add = [&](const std::string& local) {
    copies[fs::path(service.remote_path(local, plan.run_dir)).parent_path().string()].push_back(
        local);
  };
  for (const auto& [path, content] : service.configs) add(path);
  for (const auto& step : plan.prepare)
    if (step.step == "tls-cert")
      for (const char* key : {"cert", "key"}) add(step.params.at(key));
  for (const auto& [dir, files] : copies) {
    if (dir != service.remote_dir) ssh.run("mkdir -p " + shell_join(dir, {}), 15s);
    ssh.copy_to(files, dir, 60s);
  }
  RemoteCommand command;
  command.exe = exe;
  command.args = service.args;
  command.env = service.env;
  command.cwd = service.remote_dir;
  command.stdout_path = service.remote_path(service.stdout_path, plan.run_dir);
  command.stderr_path = service.remote_path(service.stderr_path, plan.run_dir);
  if (!ssh.dry_run())
    write_text((fs::path(run_dir_of(service)) / (service.name + ".cmd")).string(),
               "on " + host.name + ": " + shell_join(command.exe, command.args) + "\n");
  return ssh.start(command, remote_service_log(service));
}

std::string remote_service_failure(RemoteHosts& remote, const ServicePlan& service, int status,
                                   const std::string& when) {
  const std::string on = service.name + " on " + service.host;
  const int code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  // 255: ssh's own failure; 129: the wrapper saw the session hang up; 126: no run directory.
  if (code == 255)
    return on + ": ssh connection failed or lost " + when + ": " +
           last_line(read_text(remote_service_log(service)));
  if (code == 129) return on + ": the ssh session hung up " + when;
  if (code == 126) return on + ": cannot enter " + service.remote_dir;
  try {
    remote.ready(host_of(remote, service))
        .copy_from(service.remote_path(service.stderr_path, run_dir_of(service)),
                   service.stderr_path, 15s);
  } catch (const RemoteError&) {
    // The status alone then.
  }
  return on + " " + describe_wait_status(status) + " " + when + ": " +
         last_line(read_text(service.stderr_path));
}

bool stop_remote_service(RemoteHosts& remote, const ServicePlan& service, ChildProcess& client) {
  // A dry run records the commands of a stop; its client never ran.
  if (client.pid() <= 0 && !remote.dry_run()) return true;
  const long pgid = parse_remote_pgid(read_text(remote_service_log(service)));
  // The wrapper exited after its program (any status but ssh's own 255: a lost connection ends
  // the client while the program may still run there).
  const auto status = client.pid() > 0 ? client.exit_status() : std::nullopt;
  const bool exited = status.has_value() && !(WIFEXITED(*status) && WEXITSTATUS(*status) == 255);
  if (client.pid() > 0) client.stop(1000ms);
  const Host& host = host_of(remote, service);
  bool gone = true;
  try {
    SshHost& ssh = remote.ready(host);
    // Whether or not the wrapper got to it: the group is checked (and killed) over a command of
    // its own. A wrapper that exited had already waited for its program.
    if ((pgid > 0 || ssh.dry_run()) && !exited) gone = ssh.stop_group(pgid);
    const std::string dir = run_dir_of(service);
    for (const std::string* local : {&service.stdout_path, &service.stderr_path}) {
      try {
        ssh.copy_from(service.remote_path(*local, dir), *local, 15s);
      } catch (const RemoteError&) {
        // An output the service never wrote.
      }
    }
  } catch (const RemoteError&) {
    // Unreachable: whether the wrapper killed the group cannot be checked from here.
    gone = exited;
  } catch (const Interrupted&) {
    gone = exited;
  }
  return gone;
}

}  // namespace gatebench::macro
