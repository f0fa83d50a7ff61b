#pragma once
// The other hosts of one driver run: ssh hosts connected when first needed, the load generator
// copied there once, each host's machine described for macro.json, and everything removed at the
// end. One session directory per driver run on each ssh host (<workdir>/gb-<pid>-<time>), so runs
// of several drivers on one host do not meet. Container engine hosts (engine_host.hpp) asked for
// their machine when first needed, and this driver's containers removed there at the end.
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "macro/common/private_dir.hpp"
#include "macro/driver/plan/hosts.hpp"
#include "macro/driver/runtime/engine_host.hpp"
#include "macro/driver/runtime/ssh_host.hpp"
#include "macro/driver/system/env_info.hpp"

namespace gatebench::macro {

class RemoteHosts {
 public:
  // `load_exe`: the local gatebench-load, copied to each load host. `dry_run`: commands are
  // recorded per host (dry_log) and nothing is contacted.
  RemoteHosts(const Placement& placement, std::string load_exe, bool dry_run);
  RemoteHosts(const RemoteHosts&) = delete;
  RemoteHosts& operator=(const RemoteHosts&) = delete;
  ~RemoteHosts();

  const Placement& placement() const { return placement_; }
  bool dry_run() const { return dry_run_; }
  // Connected, with the session directory and the binaries in place. Throws RemoteError naming
  // the host (unreachable, binary missing or not runnable there) or Interrupted.
  SshHost& ready(const Host& host);
  // <workdir>/<session>: this run's directory on `host`.
  std::string session_dir(const Host& host) const;
  // <session>/bin/gatebench-load on `host`.
  std::string remote_load_exe(const Host& host) const {
    return session_dir(host) + "/bin/gatebench-load";
  }
  // The run directory on `host` for a local run directory under `out_dir`.
  std::string remote_dir(const Host& host, const std::string& local_run_dir,
                         const std::string& out_dir) const;
  // The configs directory, copied to <session>/configs of a host that runs a service.
  void set_configs_dir(std::string dir) { configs_dir_ = std::move(dir); }
  // For a service on `host`: the configs directory copied there (once per host), and the
  // program to run: the local `exe` copied into <session>/bin when `copy` (once; checked with
  // --help), else `binary` as `command -v` finds it there. Throws RemoteError naming the host.
  std::string service_exe(const Host& host, const std::string& binary, const std::string& exe,
                          bool copy);
  // The engine here that builds the images for engine hosts, and the directory for them.
  void set_image_builder(ContainerEngine builder, std::string image_dir) {
    builder_ = std::move(builder);
    image_dir_ = std::move(image_dir);
  }
  // A container engine host, its remote API asked for its machine (once). Throws RemoteError
  // naming the host.
  EngineHost& engine(const Host& host);
  // The same without contacting it (clean-up).
  EngineHost& engine_unconnected(const Host& host);
  // Removes this driver's containers still on the engine hosts; "<name> on <host>" of each.
  std::vector<std::string> sweep_containers();
  // Removes the session directories, this driver's containers on the engine hosts, and closes
  // the connections; never throws.
  void close();

  // Every host of the placement as macro.json's env.hosts describes it: local hosts from this
  // machine, ssh hosts from what ready() read there, engine hosts from their `info` (unreached
  // hosts without machine details).
  std::vector<HostEnv> host_envs(const EnvInfo& local) const;
  // The recorded commands of a dry run, per host name.
  const std::map<std::string, std::vector<std::string>>& dry_log() const { return dry_log_; }

 private:
  const Placement& placement_;
  std::string load_exe_;
  bool dry_run_;
  std::optional<common::PrivateDir> control_;  // made unless a dry run; removed by close()
  std::string control_dir_;                    // local: the connections' sockets and logs
  std::string session_;  // the session directory's name, the same on each host
  std::map<std::string, std::unique_ptr<SshHost>> hosts_;
  std::map<std::string, HostEnv> envs_;  // of the hosts ready() reached
  std::set<std::string> prepared_;       // connected, session directory and binaries in place
  std::string configs_dir_;
  std::set<std::string> configs_copied_;             // host names
  std::map<std::string, std::string> service_exes_;  // "host binary" -> the program there
  std::map<std::string, std::vector<std::string>> dry_log_;
  ContainerEngine builder_;
  std::string image_dir_;
  std::map<std::string, std::unique_ptr<EngineHost>> engines_;
};

// The machine lines a host prints for `uname -sr; nproc; grep -m1 'model name' /proc/cpuinfo`.
HostEnv parse_host_env(const std::string& output);

}  // namespace gatebench::macro
