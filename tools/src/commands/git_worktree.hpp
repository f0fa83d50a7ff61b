// What `gatebench bisect` and `gatebench gate` share to build other commits: git run on a
// repository, and a detached worktree that is removed again when its owner goes.
#pragma once

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
