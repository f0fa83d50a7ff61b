// PrivateDir: what the driver and tools make under a shared /tmp is new, private and cleaned up,
// whatever another user prepared there first.
#include "macro/common/private_dir.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <system_error>

#include "macro/common/child_process.hpp"

namespace gatebench::common {
namespace {

namespace fs = std::filesystem;

TEST(PrivateDir, FreshOwnerOnlyAndRemoved) {
  fs::path kept_path;
  {
    const PrivateDir a("gatebench-private-test-");
    const PrivateDir b("gatebench-private-test-");
    EXPECT_NE(a.path(), b.path());
    struct stat st {};
    ASSERT_EQ(::lstat(a.path().c_str(), &st), 0);
    EXPECT_TRUE(S_ISDIR(st.st_mode));
    EXPECT_EQ(st.st_mode & 07777, 0700u);
    EXPECT_EQ(st.st_uid, ::getuid());
    std::ofstream(a.path() / "file") << "x";
    fs::create_directories(a.path() / "sub" / "deeper");
    kept_path = a.path();
  }
  EXPECT_FALSE(fs::exists(kept_path));
}

TEST(PrivateDir, KeepLeavesItAndMoveTransfersOwnership) {
  fs::path path;
  {
    PrivateDir a("gatebench-private-test-");
    PrivateDir b = std::move(a);
    EXPECT_TRUE(a.path().empty());
    path = b.path();
    b.keep();
  }
  EXPECT_TRUE(fs::is_directory(path));
  fs::remove_all(path);
}

TEST(PrivateDir, MissingParentIsAnError) {
  EXPECT_THROW(PrivateDir("/nonexistent-gatebench-parent", "x-"), std::system_error);
}

// capture() used `<mkstemp>.err` beside its output: a name a local user could create first, as a
// symlink to a file of root's. Its files now live in a private directory that is gone afterwards.
TEST(PrivateDir, CaptureLeavesNothingInTmp) {
  // A TMPDIR of the test's own, so other tests' captures running at the same time do not count.
  const PrivateDir tmp("gatebench-private-test-");
  const char* old = std::getenv("TMPDIR");
  const std::string saved = old ? old : "";
  ::setenv("TMPDIR", tmp.path().c_str(), 1);
  SpawnSpec spec;
  spec.exe = "/bin/sh";
  spec.args = {"-c", "echo out; echo err >&2"};
  const CaptureResult r = capture(spec, CaptureOptions{});
  if (old)
    ::setenv("TMPDIR", saved.c_str(), 1);
  else
    ::unsetenv("TMPDIR");
  EXPECT_TRUE(r.succeeded());
  EXPECT_EQ(r.output, "out\n");
  EXPECT_EQ(r.errors, "err\n");
  EXPECT_TRUE(fs::is_empty(tmp.path()));
}

}  // namespace
}  // namespace gatebench::common
