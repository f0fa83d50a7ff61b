#include "tools/src/process.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <stdexcept>

#include "tools/src/json_file.hpp"

namespace gatebench::tools {

namespace {

int decode_status(int status) {
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return 1;
}

void redirect(const std::string& file, int fd) {
  if (file.empty()) return;
  const int out = ::open(file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (out < 0) ::_exit(127);
  ::dup2(out, fd);
  ::close(out);
}

}  // namespace

ChildProcess::ChildProcess(const std::vector<std::string>& argv, const std::string& stdout_file,
                           const std::string& stderr_file) {
  if (argv.empty()) throw std::invalid_argument("ChildProcess: empty argv");
  std::vector<char*> args;
  args.reserve(argv.size() + 1);
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_ = ::fork();
  if (pid_ < 0) throw std::runtime_error("fork failed for " + argv[0]);
  if (pid_ == 0) {
    redirect(stdout_file, STDOUT_FILENO);
    redirect(stderr_file, STDERR_FILENO);
    ::execvp(args[0], args.data());
    ::_exit(127);
  }
}

ChildProcess::~ChildProcess() {
  if (pid_ > 0 && !reaped_) kill_and_wait();
}

bool ChildProcess::running() {
  if (reaped_) return false;
  int status = 0;
  const pid_t r = ::waitpid(pid_, &status, WNOHANG);
  if (r == pid_) {
    reaped_ = true;
    status_ = status;
    return false;
  }
  return true;
}

int ChildProcess::wait() {
  while (!reaped_) {
    int status = 0;
    const pid_t r = ::waitpid(pid_, &status, 0);
    if (r == pid_) {
      reaped_ = true;
      status_ = status;
    } else if (r < 0 && errno != EINTR) {
      throw std::runtime_error("waitpid failed");
    }
  }
  return decode_status(status_);
}

void ChildProcess::kill_and_wait() {
  if (reaped_) return;
  ::kill(pid_, SIGKILL);
  wait();
}

int run_process(const std::vector<std::string>& argv, const std::string& stdout_file,
                const std::string& stderr_file) {
  ChildProcess child(argv, stdout_file, stderr_file);
  return child.wait();
}

std::string capture_output(const std::vector<std::string>& argv) {
  char out_template[] = "/tmp/gatebench-capture-XXXXXX";
  const int fd = ::mkstemp(out_template);
  if (fd < 0) throw std::runtime_error("mkstemp failed");
  ::close(fd);
  const std::string out = out_template;
  const std::string err = out + ".err";
  const int rc = run_process(argv, out, err);
  std::string text = read_text_file(out);
  std::string error_text = std::filesystem::exists(err) ? read_text_file(err) : "";
  std::filesystem::remove(out);
  std::filesystem::remove(err);
  if (rc != 0)
    throw std::runtime_error(argv[0] + " exited with code " + std::to_string(rc) +
                             (rc == 127 ? " (not found?)" : "") + ": " + error_text);
  return text;
}

std::string find_on_path(const std::string& program) {
  const char* path = std::getenv("PATH");
  if (!path) return {};
  std::string p = path;
  std::size_t start = 0;
  while (start <= p.size()) {
    const std::size_t end = p.find(':', start);
    const std::string dir =
        p.substr(start, end == std::string::npos ? std::string::npos : end - start);
    const std::string candidate = (dir.empty() ? "." : dir) + "/" + program;
    if (::access(candidate.c_str(), X_OK) == 0) return candidate;
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return {};
}

std::string self_directory() {
  std::error_code ec;
  const auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::string(".") : exe.parent_path().string();
}

}  // namespace gatebench::tools
