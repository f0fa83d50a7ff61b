#include "macro/driver/process.hpp"

#include <fcntl.h>
#include <sched.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "macro/driver/stop_signal.hpp"

extern char** environ;

namespace gatebench::macro {
namespace {

// Wait statuses of every child reaped so far: with the subreaper flag, waitpid(-1) also collects
// adopted orphans, so one table serves every ChildProcess.
std::map<pid_t, int>& reaped() {
  static std::map<pid_t, int> table;
  return table;
}

void reap_all() {
  int status = 0;
  pid_t pid;
  while ((pid = waitpid(-1, &status, WNOHANG)) > 0) reaped()[pid] = status;
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
  for (auto& s : strings) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

int open_output(const std::string& path) {
  int fd = path.empty() ? open("/dev/null", O_WRONLY | O_CLOEXEC)
                        : open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0)
    throw SpawnError("cannot open " + (path.empty() ? "/dev/null" : path) + ": " + strerror(errno));
  return fd;
}

// File descriptors that close themselves (exception safety around fork).
struct Fd {
  int fd = -1;
  ~Fd() {
    if (fd >= 0) close(fd);
  }
};

[[noreturn]] void child_fail(int error_pipe, int err) {
  (void)!write(error_pipe, &err, sizeof err);
  _exit(127);
}

}  // namespace

void become_subreaper() {
  prctl(PR_SET_CHILD_SUBREAPER, 1);
}

ChildProcess ChildProcess::spawn(const SpawnSpec& spec) {
  std::vector<std::string> argv_strings{spec.exe};
  argv_strings.insert(argv_strings.end(), spec.args.begin(), spec.args.end());
  std::vector<std::string> env_strings = build_environment(spec.env);
  std::vector<char*> argv = pointers(argv_strings);
  std::vector<char*> envp = pointers(env_strings);
  cpu_set_t mask;
  CPU_ZERO(&mask);
  for (int cpu : spec.cpus.cpus) CPU_SET(cpu, &mask);

  Fd in{open("/dev/null", O_RDONLY | O_CLOEXEC)};
  Fd out{open_output(spec.stdout_path)};
  // The same file for both streams shares one offset, so the two do not overwrite each other.
  Fd err{!spec.stdout_path.empty() && spec.stderr_path == spec.stdout_path
             ? fcntl(out.fd, F_DUPFD_CLOEXEC, 0)
             : open_output(spec.stderr_path)};
  int pipe_fds[2];
  if (pipe2(pipe_fds, O_CLOEXEC) != 0) throw SpawnError(std::string("pipe: ") + strerror(errno));
  Fd error_read{pipe_fds[0]};
  Fd error_write{pipe_fds[1]};
  const pid_t parent = getpid();

  pid_t pid = fork();
  if (pid < 0) throw SpawnError(std::string("fork: ") + strerror(errno));
  if (pid == 0) {
    setpgid(0, 0);
    // If the driver is killed outright, its children still get told to stop.
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
    if (dup2(in.fd, 0) < 0 || dup2(out.fd, 1) < 0 || dup2(err.fd, 2) < 0) {
      child_fail(error_write.fd, errno);
    }
    execve(spec.exe.c_str(), argv.data(), envp.data());
    child_fail(error_write.fd, errno);
  }
  // Both sides set the group so a stop right after spawn cannot miss it.
  setpgid(pid, pid);
  ChildProcess child;
  child.pid_ = pid;
  close(error_write.fd);
  error_write.fd = -1;
  int child_errno = 0;
  ssize_t n;
  do {
    n = read(error_read.fd, &child_errno, sizeof child_errno);
  } while (n < 0 && errno == EINTR);
  if (n == static_cast<ssize_t>(sizeof child_errno)) {
    child.stop(std::chrono::milliseconds(500));
    std::string what = !spec.cpus.empty() && child_errno == EINVAL
                           ? "cannot pin to CPUs " + spec.cpus.to_string()
                           : "cannot start " + spec.exe;
    throw SpawnError(what + ": " + strerror(child_errno));
  }
  return child;
}

ChildProcess::ChildProcess(ChildProcess&& other) noexcept : pid_(other.pid_) {
  other.pid_ = -1;
}

ChildProcess& ChildProcess::operator=(ChildProcess&& other) noexcept {
  if (this != &other) {
    if (pid_ > 0) stop();
    pid_ = other.pid_;
    other.pid_ = -1;
  }
  return *this;
}

ChildProcess::~ChildProcess() {
  if (pid_ > 0) stop();
}

std::optional<int> ChildProcess::exit_status() {
  if (pid_ <= 0) return std::nullopt;
  reap_all();
  auto it = reaped().find(pid_);
  if (it == reaped().end()) return std::nullopt;
  return it->second;
}

bool ChildProcess::group_alive() const {
  if (pid_ <= 0) return false;
  return kill(-pid_, 0) == 0 || errno == EPERM;
}

bool ChildProcess::stop(std::chrono::milliseconds grace) {
  if (pid_ <= 0) return true;
  auto wait_gone = [this](std::chrono::milliseconds limit) {
    auto deadline = std::chrono::steady_clock::now() + limit;
    for (;;) {
      reap_all();
      if (!group_alive()) return true;
      if (std::chrono::steady_clock::now() >= deadline) return false;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
  };
  bool gone = false;
  if (group_alive()) {
    kill(-pid_, SIGTERM);
    gone = wait_gone(grace);
    if (!gone) {
      kill(-pid_, SIGKILL);
      gone = wait_gone(std::chrono::milliseconds(3000));
    }
  } else {
    gone = true;
  }
  reap_all();
  reaped().erase(pid_);
  pid_ = -1;
  return gone;
}

std::string describe_wait_status(int status) {
  if (WIFEXITED(status)) return "exited with status " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status)) return "killed by signal " + std::to_string(WTERMSIG(status));
  return "ended with wait status " + std::to_string(status);
}

CaptureResult run_capture(const std::string& exe, const std::vector<std::string>& args,
                          std::chrono::milliseconds timeout, const std::string& cwd) {
  char path[] = "/tmp/gatebench-capture-XXXXXX";
  int fd = mkstemp(path);
  if (fd < 0) throw SpawnError(std::string("mkstemp: ") + strerror(errno));
  close(fd);
  CaptureResult result;
  {
    SpawnSpec spec;
    spec.exe = exe;
    spec.args = args;
    spec.stdout_path = path;
    spec.stderr_path = path;
    spec.cwd = cwd;
    ChildProcess child;
    try {
      child = ChildProcess::spawn(spec);
    } catch (...) {
      unlink(path);
      throw;
    }
    auto deadline = std::chrono::steady_clock::now() + timeout;
    for (;;) {
      if (auto status = child.exit_status()) {
        result.status = *status;
        break;
      }
      if (stop_requested()) {
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
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  result.output = text.str();
  unlink(path);
  return result;
}

std::vector<pid_t> stray_children() {
  reap_all();
  std::vector<pid_t> out;
  const std::string self = std::to_string(getpid());
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator("/proc", ec)) {
    const std::string name = entry.path().filename().string();
    if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream in(entry.path() / "stat");
    std::string line;
    if (!std::getline(in, line)) continue;
    size_t close_paren = line.rfind(')');
    if (close_paren == std::string::npos) continue;
    std::istringstream fields(line.substr(close_paren + 2));
    std::string state, ppid;
    fields >> state >> ppid;
    if (ppid == self) out.push_back(static_cast<pid_t>(std::stol(name)));
  }
  return out;
}

}  // namespace gatebench::macro
