#pragma once
// The services of one scenario run: started in file order (process or container), probed until
// ready, watched during the run, stopped in reverse order with a check that nothing is left.
#include <sys/types.h>

#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "macro/driver/plan/plan.hpp"
#include "macro/driver/runtime/run_context.hpp"
#include "macro/driver/system/children.hpp"

namespace gatebench::macro {

struct RunningService {
  const ServicePlan* plan;
  ChildProcess process;   // the service, or the ssh or engine client running it on its host
  std::string container;  // container runtime or engine host: the container's name
  long remote_pgid = 0;   // on an ssh host (plan->host): its process group there
};

class Services {
 public:
  Services(const ScenarioPlan& plan, const RunContext& context) : plan_(plan), ctx_(context) {}
  Services(const Services&) = delete;
  Services& operator=(const Services&) = delete;
  ~Services();

  // Starts one service and waits until its probe answers. Throws Outcome (failed, with the last
  // line of its stderr) or Interrupted.
  void start(const ServicePlan& service);
  // Throws Outcome failed when a service has exited.
  void check_alive();
  // Stops every service (reverse start order); throws Outcome failed naming the services that
  // left processes or containers behind.
  void stop_all();
  // Stops the running service named `name` alone, waiting up to `grace` after SIGTERM (a service
  // under valgrind writes its output at exit); returns its wait status, none when it had to be
  // killed or was not running.
  std::optional<int> stop_one(const std::string& name, std::chrono::milliseconds grace);

  // Process groups of the running services here for which `select` holds.
  template <typename Select>
  std::vector<pid_t> groups(Select select) const {
    std::vector<pid_t> out;
    for (const auto& s : running_)
      if (s.plan->host.empty() && select(*s.plan)) out.push_back(s.process.pid());
    return out;
  }
  // The same for the services on ssh hosts: their process groups there, per host name.
  template <typename Select>
  std::map<std::string, std::vector<long>> remote_groups(Select select) const {
    std::map<std::string, std::vector<long>> out;
    for (const auto& s : running_)
      if (s.plan->host_kind == HostKind::ssh && s.remote_pgid > 0 && select(*s.plan))
        out[s.plan->host].push_back(s.remote_pgid);
    return out;
  }
  const std::vector<RunningService>& running() const { return running_; }

 private:
  // A service on an ssh or engine host: started there, probed from here at the host's address.
  void start_remote(const ServicePlan& service);
  // The service's image on the local engine, built when missing; a scenario without one is
  // skipped.
  std::string service_image(const ServicePlan& service) const;
  bool kube() const { return ctx_.options.runtime == "kube"; }
  // Writes the manifest, plays it, and points `spec` at the client following its output; the
  // played container's name.
  std::string start_pod(const ServicePlan& service, SpawnSpec& spec);
  // Why a service's process (or its ssh or engine client) ended with `status`.
  std::string exit_reason(const RunningService& s, int status, const std::string& when) const;

  const ScenarioPlan& plan_;
  const RunContext& ctx_;
  std::vector<RunningService> running_;
};

}  // namespace gatebench::macro
