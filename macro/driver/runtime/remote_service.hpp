#pragma once
// A service that --place put on an ssh host (docs/multi-host.md): its program (copied, or the
// host's own), its rendered configs and prepared files copied into its run directory there, and
// the program started under the wrapper of SshHost::start (its own process group, killed when the
// ssh session ends). The local child is the ssh client; its exit status is the service's.
#include <string>

#include "macro/driver/plan/plan.hpp"
#include "macro/driver/runtime/remote_hosts.hpp"
#include "macro/driver/system/children.hpp"

namespace gatebench::macro {

// Throws RemoteError naming the host (unreachable, program missing there, a copy failed).
ChildProcess start_remote_service(RemoteHosts& remote, const ScenarioPlan& plan,
                                  const ServicePlan& service);

// The local file that receives the ssh client's output (the wrapper's "gatebench-pgid N").
std::string remote_service_log(const ServicePlan& service);

// Why the service's ssh client ended with `status` ("gateway on nsa: ssh connection failed or
// lost: ...", "gateway on nsa exited with status 1 during the run: <its last stderr line>"),
// `when` being "before it was ready" or "during the run". Pulls its stderr back when it can.
std::string remote_service_failure(RemoteHosts& remote, const ServicePlan& service, int status,
                                   const std::string& when);

// Ends the ssh client (the wrapper then kills the group), then kills what is left of the group
// over a command of its own and checks that it is empty; pulls stdout and stderr back. False when
// something may be left (the host could not be reached to check).
bool stop_remote_service(RemoteHosts& remote, const ServicePlan& service, ChildProcess& client);

}  // namespace gatebench::macro
