#include "tools/src/commands/git_worktree.hpp"

#include <filesystem>

#include "macro/common/child_process.hpp"
#include "macro/common/stop_signal.hpp"
#include "macro/common/usage_error.hpp"

namespace gatebench::tools {

namespace {

std::string trimmed(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return s;
}

}  // namespace

int run_shell(const std::string& cmd, const std::string& dir, const std::string& log,
              const std::map<std::string, std::string>& env) {
  common::SpawnSpec spec = common::command({"/bin/sh", "-c", cmd}, log, log);
  spec.cwd = dir;
  spec.env = env;
  // In the terminal's process group (command() keeps it there): Ctrl-C reaches the build and the
  // driver as well as this process.
  const int rc = common::run_to_exit(
      spec, [] { return common::stop_requested(); }, std::chrono::seconds(10));
  common::throw_if_stopped();
  return rc;
}

std::string git(const std::string& repo, std::vector<std::string> args) {
  args.insert(args.begin(), {"git", "-C", repo});
  try {
    return trimmed(common::output_of(args));
  } catch (const common::SpawnError& e) {
    throw common::UsageError(std::string("git: ") + e.what());
  }
}

std::string resolve_commit(const std::string& repo, const std::string& revision) {
  try {
    return git(repo, {"rev-parse", "--verify", "--quiet", revision + "^{commit}"});
  } catch (const common::UsageError&) {
    return "";  // git exits 1: no such commit
  }
}

std::string self_exe() {
  std::error_code ec;
  const auto p = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::string("gatebench") : p.string();
}

Worktree::Worktree(std::string repo, std::string dir, const std::string& commit)
    : repo_(std::move(repo)), dir_(std::move(dir)) {
  git(repo_, {"worktree", "add", "--quiet", "--detach", dir_, commit});
}

Worktree::~Worktree() {
  try {
    common::capture(common::command({"git", "-C", repo_, "worktree", "remove", "--force", dir_}));
  } catch (const std::exception&) {  // nothing to do: the directory stays, git prunes it later
  }
}

}  // namespace gatebench::tools
