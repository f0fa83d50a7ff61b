// What `gatebench bisect` and `gatebench gate` share to build other commits: git run on a
// repository, a shell command that a stop signal ends, and a detached worktree that is removed
// again when its owner goes.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace gatebench::tools {

// `git -C repo ARGS...`'s stdout without its trailing newline; a failing git is a
// common::UsageError (a revision that does not exist is bad input).
std::string git(const std::string& repo, std::vector<std::string> args);
// The full commit id of `revision` in `repo`; empty when there is no such commit.
std::string resolve_commit(const std::string& repo, const std::string& revision);
// This executable's path, for the commands that call gatebench again ($GATEBENCH).
std::string self_exe();

// `sh -c CMD` in `dir` with `env` added, stdout and stderr to `log`; its exit code. A stop
// signal (common::install_stop_handlers) stops it, with 10 s to clean up (gatebench-macro stops
// its services), and throws common::StopRequested, so the caller's worktree and private
// directories are removed as the stack unwinds.
int run_shell(const std::string& cmd, const std::string& dir, const std::string& log,
              const std::map<std::string, std::string>& env);

// A detached worktree of `commit` at `dir`; removed (git worktree remove --force) when this goes.
class Worktree {
 public:
  Worktree(std::string repo, std::string dir, const std::string& commit);
  ~Worktree();
  Worktree(const Worktree&) = delete;
  Worktree& operator=(const Worktree&) = delete;
  const std::string& dir() const { return dir_; }

 private:
  std::string repo_, dir_;
};

}  // namespace gatebench::tools
