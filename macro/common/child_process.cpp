#include "macro/common/child_process.hpp"

#include <fcntl.h>
#include <sched.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <sstream>
#include <system_error>
#include <thread>

#include "macro/common/private_dir.hpp"

extern char** environ;

namespace gatebench::common {
namespace {

// Wait statuses of children reaped but not yet asked for. With the subreaper flag waitpid(-1)
// also collects adopted orphans, so one table serves every ChildProcess.
struct ReapTable {
  std::mutex mutex;
  std::map<pid_t, int> statuses;
  bool subreaper = false;
};

ReapTable& table() {
  static ReapTable t;
  return t;
}

// Collects what has exited: everything when this process is a subreaper (orphans included), else
// the members of `pid`'s group (own_group) or `pid` itself.
void reap(pid_t pid, bool own_group) {
  ReapTable& t = table();
  std::lock_guard lock(t.mutex);
  const pid_t which = t.subreaper ? -1 : own_group ? -pid : pid;
  int status = 0;
  pid_t done;
  while ((done = waitpid(which, &status, WNOHANG)) > 0) t.statuses[done] = status;
}

std::optional<int> take_status(pid_t pid, bool erase) {
  ReapTable& t = table();
  std::lock_guard lock(t.mutex);
  const auto it = t.statuses.find(pid);
  if (it == t.statuses.end()) return std::nullopt;
  const int status = it->second;
  if (erase) t.statuses.erase(it);
  return status;
}

std::vector<std::string> build_environment(const std::map<std::string, std::string>& extra) {
  std::vector<std::string> env;
  for (char** e = environ; *e != nullptr; ++e) {
    std::string_view entry(*e);
    std::string_view name = entry.substr(0, entry.find('='));
    if (!extra.contains(std::string(name))) env.emplace_back(entry);
  }
  for (const auto& [name, value] : extra) env.push_back(name + "=" + value);
  return env;
}

std::vector<char*> pointers(std::vector<std::string>& strings) {
  std::vector<char*> out;
  out.reserve(strings.size() + 1);
  for (auto& s : strings) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

// File descriptors that close themselves (exception safety around fork).
struct Fd {
  int fd = -1;
  Fd() = default;
  explicit Fd(int f) : fd(f) {}
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  ~Fd() {
    if (fd >= 0) close(fd);
  }
};

int open_stream(const Stream& s, int flags) {
  if (s.kind == Stream::Kind::inherit) return -1;
  const std::string path = s.kind == Stream::Kind::file ? s.path : "/dev/null";
  const int fd = s.kind == Stream::Kind::file ? open(path.c_str(), flags | O_CLOEXEC, 0644)
                                              : open(path.c_str(), (flags & O_ACCMODE) | O_CLOEXEC);
  if (fd < 0) throw SpawnError("cannot open " + path + ": " + strerror(errno));
  return fd;
}

[[noreturn]] void child_fail(int error_pipe, int err) {
  (void)!write(error_pipe, &err, sizeof err);
  _exit(127);
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

void become_subreaper() {
  prctl(PR_SET_CHILD_SUBREAPER, 1);
  ReapTable& t = table();
  std::lock_guard lock(t.mutex);
  t.subreaper = true;
}

bool is_executable_file(const std::string& path) {
  std::error_code ec;
  return std::filesystem::is_regular_file(path, ec) && access(path.c_str(), X_OK) == 0;
}

std::string find_on_path(const std::string& program, const std::vector<std::string>& extra_dirs) {
  std::vector<std::string> dirs;
  const std::string path = std::getenv("PATH") ? std::getenv("PATH") : "/usr/bin:/bin";
  for (std::size_t start = 0; start <= path.size();) {
    std::size_t colon = path.find(':', start);
    if (colon == std::string::npos) colon = path.size();
    dirs.push_back(colon > start ? path.substr(start, colon - start) : ".");
    start = colon + 1;
  }
  dirs.insert(dirs.end(), extra_dirs.begin(), extra_dirs.end());
  for (const std::string& dir : dirs) {
    const std::string candidate = dir + "/" + program;
    if (is_executable_file(candidate)) return candidate;
  }
  return {};
}

ChildProcess ChildProcess::spawn(const SpawnSpec& spec) {
  if (spec.exe.empty()) throw SpawnError("cannot start a child without an executable");
  std::string exe = spec.exe;
  if (exe.find('/') == std::string::npos) {
    exe = find_on_path(spec.exe);
    if (exe.empty()) throw SpawnError("cannot start " + spec.exe + ": not found on PATH");
  }
  std::vector<std::string> argv_strings{spec.exe};
  argv_strings.insert(argv_strings.end(), spec.args.begin(), spec.args.end());
  std::vector<std::string> env_strings = build_environment(spec.env);
  std::vector<char*> argv = pointers(argv_strings);
  std::vector<char*> envp = pointers(env_strings);
  cpu_set_t mask;
  CPU_ZERO(&mask);
  for (int cpu : spec.cpus) {
    if (cpu < 0 || cpu >= CPU_SETSIZE) throw SpawnError("cannot pin to CPU " + std::to_string(cpu));
    CPU_SET(cpu, &mask);
  }

  Fd in(open_stream(spec.in, O_RDONLY));
  Fd out(open_stream(spec.out, O_WRONLY | O_CREAT | O_TRUNC));
  // The same file for both streams shares one offset, so the two do not overwrite each other.
  const bool same_file = spec.out.kind == Stream::Kind::file &&
                         spec.err.kind == Stream::Kind::file && spec.err.path == spec.out.path;
  Fd err(same_file ? fcntl(out.fd, F_DUPFD_CLOEXEC, 0)
                   : open_stream(spec.err, O_WRONLY | O_CREAT | O_TRUNC));
  int pipe_fds[2];
  if (pipe2(pipe_fds, O_CLOEXEC) != 0) throw SpawnError(std::string("pipe: ") + strerror(errno));
  Fd error_read(pipe_fds[0]);
  Fd error_write(pipe_fds[1]);
  const pid_t parent = getpid();

  const pid_t pid = fork();
  if (pid < 0) throw SpawnError(std::string("fork: ") + strerror(errno));
  if (pid == 0) {
    if (spec.own_group) setpgid(0, 0);
    // If this process is killed outright, its children still get told to stop.
    prctl(PR_SET_PDEATHSIG, SIGTERM);
    if (getppid() != parent) _exit(127);
    sigset_t all;
    sigemptyset(&all);
    sigprocmask(SIG_SETMASK, &all, nullptr);
    for (int signo : {SIGINT, SIGTERM, SIGHUP, SIGPIPE}) signal(signo, SIG_DFL);
    if (!spec.cpus.empty() && sched_setaffinity(0, sizeof mask, &mask) != 0) {
      child_fail(error_write.fd, errno);
    }
    if (!spec.cwd.empty() && chdir(spec.cwd.c_str()) != 0) child_fail(error_write.fd, errno);
    if ((in.fd >= 0 && dup2(in.fd, 0) < 0) || (out.fd >= 0 && dup2(out.fd, 1) < 0) ||
        (err.fd >= 0 && dup2(err.fd, 2) < 0)) {
      child_fail(error_write.fd, errno);
    }
    execve(exe.c_str(), argv.data(), envp.data());
    child_fail(error_write.fd, errno);
  }
  // Both sides set the group so a stop right after spawn cannot miss it.
  if (spec.own_group) setpgid(pid, pid);
  ChildProcess child;
  child.pid_ = pid;
  child.own_group_ = spec.own_group;
  {
    // A status kept for this pid belongs to an earlier process with the same number (an orphan
    // a subreaper collected and nobody asked for): not this child's.
    ReapTable& t = table();
    std::lock_guard lock(t.mutex);
    t.statuses.erase(pid);
  }
  close(error_write.fd);
  error_write.fd = -1;
  int child_errno = 0;
  ssize_t n;
  do {
    n = read(error_read.fd, &child_errno, sizeof child_errno);
  } while (n < 0 && errno == EINTR);
  if (n == static_cast<ssize_t>(sizeof child_errno)) {
    child.stop(std::chrono::milliseconds(500));
    std::string cpus;
    for (int cpu : spec.cpus) cpus += (cpus.empty() ? "" : ",") + std::to_string(cpu);
    const std::string what = !spec.cpus.empty() && child_errno == EINVAL
                                 ? "cannot pin to CPUs " + cpus
                                 : "cannot start " + exe;
    throw SpawnError(what + ": " + strerror(child_errno));
  }
  return child;
}

ChildProcess::ChildProcess(ChildProcess&& other) noexcept
    : pid_(other.pid_), own_group_(other.own_group_) {
  other.pid_ = -1;
}

ChildProcess& ChildProcess::operator=(ChildProcess&& other) noexcept {
  if (this != &other) {
    if (pid_ > 0) stop();
    pid_ = other.pid_;
    own_group_ = other.own_group_;
    other.pid_ = -1;
  }
  return *this;
}

ChildProcess::~ChildProcess() {
  if (pid_ > 0) stop();
}

std::optional<int> ChildProcess::exit_status() {
  if (pid_ <= 0) return std::nullopt;
  reap(pid_, own_group_);
  return take_status(pid_, false);
}

int ChildProcess::wait() {
  for (;;) {
    if (auto status = exit_status()) return *status;
    if (pid_ <= 0) throw SpawnError("wait: no child");
    // Only the leader: blocking on the group would also wait for its grandchildren.
    int status = 0;
    const pid_t r = waitpid(pid_, &status, 0);
    if (r == pid_) {
      ReapTable& t = table();
      std::lock_guard lock(t.mutex);
      t.statuses[pid_] = status;
    } else if (r < 0 && errno == ECHILD) {
      // Reaped by another ChildProcess's collection (subreaper): the table has it, or nobody.
      if (auto collected = exit_status()) return *collected;
      throw SpawnError("waitpid: " + std::to_string(pid_) + " is not a child of this process");
    } else if (r < 0 && errno != EINTR) {
      throw SpawnError(std::string("waitpid: ") + strerror(errno));
    }
  }
}

std::optional<int> ChildProcess::wait_for(std::chrono::milliseconds limit) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  for (;;) {
    if (auto status = exit_status()) return status;
    if (std::chrono::steady_clock::now() >= deadline) return std::nullopt;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

bool ChildProcess::alive() {
  if (pid_ <= 0) return false;
  if (own_group_) {
    reap(pid_, own_group_);
    return kill(-pid_, 0) == 0 || errno == EPERM;
  }
  return !exit_status();
}

bool ChildProcess::stop(std::chrono::milliseconds grace) {
  if (pid_ <= 0) return true;
  const pid_t target = own_group_ ? -pid_ : pid_;
  auto wait_gone = [this](std::chrono::milliseconds limit) {
    const auto deadline = std::chrono::steady_clock::now() + limit;
    for (;;) {
      if (!alive()) return true;
      if (std::chrono::steady_clock::now() >= deadline) return false;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
  };
  bool gone = true;
  if (alive()) {
    kill(target, SIGTERM);
    gone = wait_gone(grace);
    if (!gone) {
      kill(target, SIGKILL);
      gone = wait_gone(std::chrono::milliseconds(3000));
    }
  }
  reap(pid_, own_group_);
  take_status(pid_, true);
  pid_ = -1;
  return gone;
}

std::string describe_wait_status(int status) {
  if (WIFEXITED(status)) return "exited with status " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status)) return "killed by signal " + std::to_string(WTERMSIG(status));
  return "ended with wait status " + std::to_string(status);
}

int exit_code(int wait_status) {
  if (WIFEXITED(wait_status)) return WEXITSTATUS(wait_status);
  if (WIFSIGNALED(wait_status)) return 128 + WTERMSIG(wait_status);
  return 1;
}

bool CaptureResult::succeeded() const {
  return !timed_out && !interrupted && WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

CaptureResult capture(SpawnSpec spec, const CaptureOptions& options) {
  // Both files in a fresh private directory: a name in /tmp another user could plant first
  // (`<out>.err` was one) would take root's writes.
  const PrivateDir dir = [] {
    try {
      return PrivateDir("gatebench-capture-");
    } catch (const std::system_error& e) {
      throw SpawnError(e.what());
    }
  }();
  const std::string out = (dir.path() / "out").string();
  const std::string err = options.merge_errors ? out : (dir.path() / "err").string();
  spec.out = Stream::to_file(out);
  spec.err = Stream::to_file(err);
  CaptureResult result;
  {
    ChildProcess child = ChildProcess::spawn(spec);
    const auto deadline = std::chrono::steady_clock::now() + options.timeout;
    for (;;) {
      if (auto status = child.exit_status()) {
        result.status = *status;
        break;
      }
      if (options.interrupted && options.interrupted()) {
        result.interrupted = true;
        break;
      }
      if (std::chrono::steady_clock::now() >= deadline) {
        result.timed_out = true;
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    child.stop(std::chrono::milliseconds(500));
  }
  result.output = read_file(out);
  if (!options.merge_errors) result.errors = read_file(err);
  return result;
}

int run_to_exit(const SpawnSpec& spec) {
  ChildProcess child = ChildProcess::spawn(spec);
  return exit_code(child.wait());
}

int run_to_exit(const SpawnSpec& spec, const std::function<bool()>& interrupted,
                std::chrono::milliseconds grace) {
  ChildProcess child = ChildProcess::spawn(spec);
  for (;;) {
    if (auto status = child.wait_for(std::chrono::milliseconds(20))) return exit_code(*status);
    if (interrupted()) break;
  }
  child.stop(grace);
  return 128 + SIGTERM;
}

SpawnSpec command(const std::vector<std::string>& argv, const std::string& out_file,
                  const std::string& err_file) {
  if (argv.empty()) throw SpawnError("cannot start an empty command");
  SpawnSpec spec;
  spec.exe = argv[0];
  spec.args.assign(argv.begin() + 1, argv.end());
  spec.in = Stream::inherit();
  spec.out = out_file.empty() ? Stream::inherit() : Stream::to_file(out_file);
  spec.err = err_file.empty() ? Stream::inherit() : Stream::to_file(err_file);
  spec.own_group = false;
  return spec;
}

std::string output_of(const std::vector<std::string>& argv) {
  const CaptureResult r = capture(command(argv));
  const int code = exit_code(r.status);
  if (code != 0) {
    throw SpawnError(argv[0] + " exited with code " + std::to_string(code) + ": " + r.errors);
  }
  return r.output;
}

void reap_exited() {
  reap(-1, false);
}

}  // namespace gatebench::common
