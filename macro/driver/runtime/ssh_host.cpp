#include "macro/driver/runtime/ssh_host.hpp"

#include <sys/wait.h>

#include <filesystem>
#include <sstream>
#include <thread>

#include "macro/common/duration.hpp"
#include "macro/common/stop_signal.hpp"
#include "macro/driver/plan/plan.hpp"
#include "macro/driver/results/run_support.hpp"

namespace gatebench::macro {
namespace fs = std::filesystem;
using namespace std::chrono_literals;

namespace {

std::string quote(const std::string& word) {
  // shell_join quotes only what needs it; its first word is the one we pass.
  return shell_join(word, {});
}

std::string ssh_exe() {
  return common::find_on_path("ssh");
}

// `env K=V ... exe args` when the command has an environment of its own.
std::string program(const RemoteCommand& c) {
  if (c.env.empty()) return shell_join(c.exe, c.args);
  std::vector<std::string> words;
  for (const auto& [name, value] : c.env) words.push_back(name + "=" + value);
  words.push_back(c.exe);
  words.insert(words.end(), c.args.begin(), c.args.end());
  return shell_join("env", words);
}

}  // namespace

std::string remote_wrapper(const RemoteCommand& c) {
  std::ostringstream s;
  s << "cd " << quote(c.cwd)
    << " || exit 126; "
    // dash's kill takes no "--": -N is the group N. The group gets 2 s between TERM and KILL.
    << "trap 'kill -TERM -$p 2>/dev/null; i=0; while kill -0 -$p 2>/dev/null && [ $i -lt 20 ]; "
       "do sleep 0.1; i=$((i+1)); done; kill -KILL -$p 2>/dev/null; exit 129' HUP INT TERM; "
    << "setsid " << program(c) << " >" << quote(c.stdout_path) << " 2>" << quote(c.stderr_path)
    << " </dev/null & p=$!; echo \"gatebench-pgid $p\"; wait $p; s=$?; "
    // The shell's `times`: the reaped program's CPU (second line), read by parse_remote_cpu_s.
    << "echo gatebench-times; times; exit $s";
  return s.str();
}

std::optional<double> parse_remote_cpu_s(const std::string& output) {
  const auto at = output.find("gatebench-times");
  if (at == std::string::npos) return std::nullopt;
  std::istringstream in(output.substr(at));
  std::string line;
  std::getline(in, line);  // the marker
  std::getline(in, line);  // the shell's own times
  if (!std::getline(in, line)) return std::nullopt;
  // "0m1.234s 0m0.456s": user and system time of the children.
  double total = 0;
  int fields = 0;
  std::istringstream words(line);
  std::string word;
  while (words >> word) {
    const auto m = word.find('m');
    if (m == std::string::npos || !word.ends_with("s")) return std::nullopt;
    try {
      total += std::stod(word.substr(0, m)) * 60 + std::stod(word.substr(m + 1));
    } catch (const std::exception&) {
      return std::nullopt;
    }
    ++fields;
  }
  if (fields != 2) return std::nullopt;
  return total;
}

long parse_remote_pgid(const std::string& output) {
  const auto at = output.find("gatebench-pgid ");
  if (at == std::string::npos) return 0;
  return std::strtol(output.c_str() + at + 15, nullptr, 10);
}

SshHost::SshHost(Host host, std::string control_dir, std::vector<std::string>* dry_log)
    : host_(std::move(host)), dry_log_(dry_log) {
  // One socket per host name in a directory of this driver's own: no %C hash, so `ssh -O`
  // finds it without repeating the port and user.
  control_path_ = (fs::path(control_dir) / ("cm-" + host_.name)).string();
  master_log_ = (fs::path(control_dir) / ("ssh-" + host_.name + ".log")).string();
}

SshHost::~SshHost() {
  disconnect();
}

std::string SshHost::destination() const {
  return host_.address;
}

std::vector<std::string> SshHost::connection_options() const {
  // ssh keeps the first value it gets for a setting: the hosts file's options come first, so
  // they may change the timeouts below (not the connection sharing: the file may not set it).
  std::vector<std::string> o;
  for (const auto& opt : host_.ssh_options) o.insert(o.end(), {"-o", opt});
  // BatchMode: never a password prompt. ServerAlive: a lost connection ends within ~6 s.
  o.insert(o.end(), {"-o", "BatchMode=yes", "-o", "ConnectTimeout=5", "-o", "ServerAliveInterval=2",
                     "-o", "ServerAliveCountMax=3", "-o", "ControlPath=" + control_path_, "-o",
                     "Port=" + std::to_string(host_.port)});
  if (!host_.user.empty()) o.insert(o.end(), {"-o", "User=" + host_.user});
  if (!host_.key.empty())
    o.insert(o.end(), {"-o", "IdentityFile=" + host_.key, "-o", "IdentitiesOnly=yes"});
  return o;
}

std::vector<std::string> SshHost::master_args() const {
  std::vector<std::string> a = {"-M", "-N", "-o", "ControlPersist=no"};
  for (auto& o : connection_options()) a.push_back(o);
  a.push_back(destination());
  return a;
}

std::vector<std::string> SshHost::ssh_args(const std::string& script, bool tty) const {
  std::vector<std::string> a;
  if (tty) a.push_back("-tt");
  a.insert(a.end(), {"-o", "ControlMaster=no"});
  for (auto& o : connection_options()) a.push_back(o);
  a.insert(a.end(), {destination(), "--", script});
  return a;
}

CaptureResult SshHost::exec(const std::string& exe, const std::vector<std::string>& args,
                            std::chrono::milliseconds timeout, const std::string& what,
                            bool interruptible) {
  if (dry_run()) {
    dry_log_->push_back(shell_join(exe, args));
    return CaptureResult{0, "", "", false, false};
  }
  CaptureResult r;
  try {
    SpawnSpec spec;
    spec.exe = exe;
    spec.args = args;
    common::CaptureOptions options;
    options.timeout = timeout;
    options.merge_errors = true;
    if (interruptible) options.interrupted = [] { return common::stop_requested(); };
    r = common::capture(std::move(spec), options);
  } catch (const SpawnError& e) {
    throw RemoteError(host_.name + ": " + what + ": " + e.what());
  }
  if (r.interrupted) throw Interrupted{};
  if (r.timed_out)
    throw RemoteError(host_.name + ": " + what + ": no answer within " +
                      common::duration_text(static_cast<double>(timeout.count()) / 1000));
  if (!WIFEXITED(r.status) || WEXITSTATUS(r.status) != 0) {
    std::string why = last_line(r.output);
    // ssh exits 255 for its own errors (unreachable, refused, lost connection).
    if (WIFEXITED(r.status) && WEXITSTATUS(r.status) == 255 && why.empty())
      why = "connection failed";
    throw RemoteError(host_.name + ": " + what + " " + describe_wait_status(r.status) +
                      (why.empty() ? "" : ": " + why));
  }
  return r;
}

void SshHost::connect(std::chrono::milliseconds timeout) {
  if (connected_) return;
  const std::string ssh = dry_run() ? "ssh" : ssh_exe();
  if (ssh.empty()) throw RemoteError(host_.name + ": ssh not installed (openssh-client)");
  if (dry_run()) {
    dry_log_->push_back(shell_join(ssh, master_args()));
    connected_ = true;
    return;
  }
  SpawnSpec spec;
  spec.exe = ssh;
  spec.args = master_args();
  spec.out = Stream::to_file(master_log_);
  spec.err = Stream::to_file(master_log_);
  try {
    master_ = ChildProcess::spawn(spec);
  } catch (const SpawnError& e) {
    throw RemoteError(host_.name + ": ssh: " + e.what());
  }
  std::vector<std::string> check = {"-O", "check", "-o", "ControlPath=" + control_path_,
                                    destination()};
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    if (common::stop_requested()) throw Interrupted{};
    if (auto status = master_.exit_status()) {
      throw RemoteError(host_.name + ": ssh " + describe_wait_status(*status) + ": " +
                        last_line(read_text(master_log_)));
    }
    const CaptureResult r = run_capture(ssh, check, 5s);
    if (WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0) break;
    if (std::chrono::steady_clock::now() > deadline) {
      master_.stop(500ms);
      throw RemoteError(host_.name + ": ssh: not connected within " +
                        std::to_string(timeout.count() / 1000) +
                        " s: " + last_line(read_text(master_log_)));
    }
    std::this_thread::sleep_for(50ms);
  }
  connected_ = true;
}

void SshHost::disconnect() {
  if (!connected_) return;
  connected_ = false;
  if (dry_run()) {
    dry_log_->push_back(
        shell_join("ssh", {"-O", "exit", "-o", "ControlPath=" + control_path_, destination()}));
    return;
  }
  try {
    common::CaptureOptions options;
    options.timeout = 3s;
    SpawnSpec spec;
    spec.exe = ssh_exe();
    spec.args = {"-O", "exit", "-o", "ControlPath=" + control_path_, destination()};
    common::capture(std::move(spec), options);
  } catch (const SpawnError&) {
    // The master is stopped below either way.
  }
  master_.stop(1000ms);
}

std::string SshHost::run(const std::string& script, std::chrono::milliseconds timeout,
                         bool interruptible) {
  return exec(dry_run() ? "ssh" : ssh_exe(), ssh_args(script, false), timeout, "ssh", interruptible)
      .output;
}

void SshHost::copy_to(const std::vector<std::string>& local_files, const std::string& remote_dir,
                      std::chrono::milliseconds timeout, bool recursive) {
  std::vector<std::string> a = {"-q", "-p"};
  if (recursive) a.push_back("-r");
  for (auto& o : connection_options()) a.push_back(o);
  a.insert(a.end(), {"-o", "ControlMaster=no"});
  a.insert(a.end(), local_files.begin(), local_files.end());
  a.push_back(destination() + ":" + remote_dir + "/");
  exec(dry_run() ? "scp" : common::find_on_path("scp"), a, timeout, "scp to " + remote_dir);
}

void SshHost::copy_from(const std::string& remote_file, const std::string& local_file,
                        std::chrono::milliseconds timeout) {
  std::vector<std::string> a = {"-q", "-p"};
  for (auto& o : connection_options()) a.push_back(o);
  a.insert(a.end(), {"-o", "ControlMaster=no", destination() + ":" + remote_file, local_file});
  exec(dry_run() ? "scp" : common::find_on_path("scp"), a, timeout, "scp of " + remote_file);
}

ChildProcess SshHost::spawn_ssh(const std::vector<std::string>& args, const std::string& out,
                                const std::string& err) {
  if (dry_run()) {
    dry_log_->push_back(shell_join("ssh", args));
    return ChildProcess();
  }
  SpawnSpec spec;
  spec.exe = ssh_exe();
  spec.args = args;
  spec.out = Stream::to_file(out);
  spec.err = Stream::to_file(err);
  try {
    return ChildProcess::spawn(spec);
  } catch (const SpawnError& e) {
    throw RemoteError(host_.name + ": ssh: " + e.what());
  }
}

ChildProcess SshHost::start(const RemoteCommand& command, const std::string& local_log) {
  return spawn_ssh(ssh_args(remote_wrapper(command), true), local_log, local_log);
}

bool SshHost::alive() {
  if (!connected_ || dry_run()) return connected_;
  if (master_.exit_status()) {
    connected_ = false;
    // A socket left by the dead master would keep a new one from listening there.
    std::error_code ec;
    fs::remove(control_path_, ec);
  }
  return connected_;
}

bool SshHost::stop_group(long pgid) {
  if (pgid <= 1 && !dry_run()) return true;
  // A dry run records the command with the group the wrapper would have printed.
  const std::string g = pgid > 1 ? std::to_string(pgid) : "PGID";
  // Exit 0 once nothing of the group is left; 1 when even SIGKILL did not empty it.
  const std::string script = "kill -TERM -" + g + " 2>/dev/null; i=0; while kill -0 -" + g +
                             " 2>/dev/null; do i=$((i+1)); if [ $i -eq 30 ]; then kill -KILL -" +
                             g +
                             " 2>/dev/null; fi; if [ $i -gt 40 ]; then exit 1; fi; sleep 0.1; "
                             "done; exit 0";
  try {
    run(script, 10s, false);
    return true;
  } catch (const RemoteError&) {
    return false;
  }
}

}  // namespace gatebench::macro
