// gatebench_build_info: the commit embedded at build time is a real commit of this checkout (HEAD
// or one of its ancestors, since the tree may have moved on after the build), never a guess.
#include "macro/common/build_info.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>

namespace gatebench {
namespace {

const std::string kSourceDir =
    std::filesystem::weakly_canonical(std::string(GATEBENCH_TOOLS_DATA) + "/../../..").string();

struct Shell {
  int status = -1;
  std::string out;
};

Shell shell(const std::string& cmd) {
  Shell r;
  std::unique_ptr<FILE, int (*)(FILE*)> pipe(::popen((cmd + " 2>/dev/null").c_str(), "r"),
                                             ::pclose);
  if (!pipe) return r;
  char buf[256];
  while (std::fgets(buf, sizeof buf, pipe.get())) r.out += buf;
  r.status = ::pclose(pipe.release());
  while (!r.out.empty() && r.out.back() == '\n') r.out.pop_back();
  return r;
}

std::string git(const std::string& args) {
  return "git --no-optional-locks -C '" + kSourceDir + "' " + args;
}

// The version and compiler come from CMake once: the version is the project() line's.
TEST(BuildInfo, VersionIsTheProjectsAndCompilerIsNamed) {
  std::ifstream in(kSourceDir + "/CMakeLists.txt");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::string key = "project(gatebench VERSION ";
  const auto at = text.find(key);
  ASSERT_NE(at, std::string::npos);
  const std::string version =
      text.substr(at + key.size(), text.find(' ', at + key.size()) - (at + key.size()));
  EXPECT_EQ(build_version(), version);
  const std::string compiler(build_compiler());
  EXPECT_TRUE(compiler.starts_with("GNU ") || compiler.starts_with("Clang ")) << compiler;
  EXPECT_GT(compiler.size(), 6u) << compiler;
}

TEST(BuildInfo, CommitIsFortyHexDigitsOrUnknown) {
  const std::string commit(build_commit());
  if (commit == "unknown") {
    EXPECT_FALSE(build_dirty());
    return;
  }
  ASSERT_EQ(commit.size(), 40u) << commit;
  EXPECT_EQ(commit.find_first_not_of("0123456789abcdef"), std::string::npos) << commit;
}

TEST(BuildInfo, CommitIsThisCheckoutsHeadOrAnAncestorOfIt) {
  const Shell head = shell(git("rev-parse --verify HEAD"));
  if (head.status != 0) GTEST_SKIP() << kSourceDir << " is not a git checkout (or git is missing)";
  const std::string commit(build_commit());
  ASSERT_NE(commit, "unknown") << "the build found no commit, but " << kSourceDir
                               << " is a checkout at " << head.out;
  if (commit == head.out) return;
  // Commits made after the build leave the binary at an older commit, which must still be one
  // this checkout's history holds.
  EXPECT_EQ(shell(git("merge-base --is-ancestor " + commit + " HEAD")).status, 0)
      << commit << " is not HEAD (" << head.out << ") nor an ancestor of it";
}

}  // namespace
}  // namespace gatebench
