#include "macro/driver/system/cgroup_usage.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

namespace gatebench::macro {
namespace {

namespace fs = std::filesystem;

// The project's VMs: v1 controllers each on its own mount (cpu and cpuacct apart), an empty
// unified hierarchy beside them (hybrid). A docker container's /proc/PID/cgroup there.
const char* const kHybridMountinfo =
    "23 1 0:21 / /sys rw,nosuid - sysfs sysfs rw\n"
    "31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755\n"
    "32 31 0:29 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu\n"
    "33 31 0:30 / /sys/fs/cgroup/cpuacct rw,relatime - cgroup cgroup rw,cpuacct\n"
    "35 31 0:32 / /sys/fs/cgroup/memory rw,relatime shared:9 - cgroup cgroup rw,memory\n"
    "40 31 0:37 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw\n";
const char* const kDockerCgroup =
    "9:name=systemd:/docker/b1f9\n4:memory:/docker/b1f9\n2:cpuacct:/docker/b1f9\n"
    "1:cpu:/docker/b1f9\n0::/docker/b1f9\n";

TEST(CgroupFiles, V1ControllersWinOverAnEmptyUnifiedHierarchy) {
  const auto files = cgroup_files(kDockerCgroup, kHybridMountinfo);
  ASSERT_TRUE(files.has_value());
  EXPECT_EQ(files->cpu, "/sys/fs/cgroup/cpuacct/docker/b1f9/cpuacct.usage");
  EXPECT_EQ(files->memory_dir, "/sys/fs/cgroup/memory/docker/b1f9");
  EXPECT_FALSE(files->memory_v2);
}

// cgroup v2 alone (systemd's default): one hierarchy, the "0::" line.
TEST(CgroupFiles, UnifiedHierarchyAlone) {
  const auto files = cgroup_files(
      "0::/system.slice/docker-ab.scope\n",
      "25 23 0:22 / /sys/fs/cgroup rw,nosuid shared:4 - cgroup2 cgroup2 rw,nsdelegate\n");
  ASSERT_TRUE(files.has_value());
  EXPECT_EQ(files->cpu, "/sys/fs/cgroup/system.slice/docker-ab.scope/cpu.stat");
  EXPECT_EQ(files->memory_dir, "/sys/fs/cgroup/system.slice/docker-ab.scope");
  EXPECT_TRUE(files->memory_v2);
}

// A mount whose root is not the hierarchy's (the driver inside a cgroup namespace or a
// container): paths under that root resolve, others (and "/..") are not visible here.
TEST(CgroupFiles, PathsOutsideTheMountedRootAreNotFound) {
  const std::string mountinfo =
      "25 23 0:22 /kubepods/pod1 /sys/fs/cgroup\\040x rw - cgroup2 cgroup2 rw\n";
  auto files = cgroup_files("0::/kubepods/pod1/c2\n", mountinfo);
  ASSERT_TRUE(files.has_value());
  EXPECT_EQ(files->cpu, "/sys/fs/cgroup x/c2/cpu.stat");
  files = cgroup_files("0::/kubepods/pod1\n", mountinfo);
  ASSERT_TRUE(files.has_value());
  EXPECT_EQ(files->memory_dir, "/sys/fs/cgroup x");
  EXPECT_FALSE(cgroup_files("0::/kubepods/pod12\n", mountinfo).has_value());
  EXPECT_FALSE(cgroup_files("0::/../other\n", mountinfo).has_value());
  EXPECT_FALSE(cgroup_files(kDockerCgroup, "23 1 0:21 / /sys rw - sysfs sysfs rw\n").has_value());
}

class CgroupRead : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = (fs::temp_directory_path() / "gatebench-cgroup-XXXXXX").string();
    ASSERT_NE(mkdtemp(tmpl.data()), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override { fs::remove_all(dir_); }
  void write(const std::string& name, const std::string& text) {
    std::ofstream(dir_ + "/" + name) << text;
  }
  std::string dir_;
};

// v1: nanoseconds; memory.usage_in_bytes, as podman's mem_usage (1.364MB for 1363968 bytes).
TEST_F(CgroupRead, V1Files) {
  write("cpuacct.usage", "2500000000\n");
  write("memory.usage_in_bytes", "10000000\n");
  const auto usage = read_cgroup({dir_ + "/cpuacct.usage", dir_, false});
  ASSERT_TRUE(usage.has_value());
  EXPECT_DOUBLE_EQ(usage->cpu_s, 2.5);
  EXPECT_DOUBLE_EQ(usage->mem_mb, 10.0);
}

// v2: usage_usec of cpu.stat, wherever its line is; memory.current.
TEST_F(CgroupRead, V2Files) {
  write("cpu.stat", "user_usec 1000000\nusage_usec 1500000\nsystem_usec 500000\n");
  write("memory.current", "5000000\n");
  const auto usage = read_cgroup({dir_ + "/cpu.stat", dir_, true});
  ASSERT_TRUE(usage.has_value());
  EXPECT_DOUBLE_EQ(usage->cpu_s, 1.5);
  EXPECT_DOUBLE_EQ(usage->mem_mb, 5.0);
}

// The cgroup removed with its container: no figures rather than zeros.
TEST_F(CgroupRead, RemovedCgroupHasNoFigures) {
  write("cpuacct.usage", "1\n");
  EXPECT_FALSE(read_cgroup({dir_ + "/cpuacct.usage", dir_, false}).has_value());
  EXPECT_FALSE(read_cgroup({dir_ + "/gone/cpuacct.usage", dir_ + "/gone", false}).has_value());
}

// This process's own cgroup, as the sampler finds a container's: it has used CPU and memory.
TEST(ProcessCgroup, OwnCgroupHasCpuAndMemory) {
  const auto files = process_cgroup(getpid());
  ASSERT_TRUE(files.has_value());
  const auto usage = read_cgroup(*files);
  ASSERT_TRUE(usage.has_value()) << files->cpu << " " << files->memory_dir;
  EXPECT_GT(usage->cpu_s, 0);
  EXPECT_GT(usage->mem_mb, 0);
  EXPECT_FALSE(process_cgroup(0x3fffffff).has_value());  // above pid_max: no such process
}

}  // namespace
}  // namespace gatebench::macro
