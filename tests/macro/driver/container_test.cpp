#include "macro/driver/container.hpp"

#include <gtest/gtest.h>

namespace gatebench::macro {
namespace {

TEST(ContainerStats, GoDurations) {
  EXPECT_DOUBLE_EQ(parse_go_duration_s("35.5ms"), 0.0355);
  EXPECT_DOUBLE_EQ(parse_go_duration_s("1m2.5s"), 62.5);
  EXPECT_DOUBLE_EQ(parse_go_duration_s("1h0m0s"), 3600);
  EXPECT_DOUBLE_EQ(parse_go_duration_s("950µs"), 0.00095);
  EXPECT_DOUBLE_EQ(parse_go_duration_s("12ns"), 12e-9);
  EXPECT_DOUBLE_EQ(parse_go_duration_s("0s"), 0);
  EXPECT_THROW(parse_go_duration_s("3 parsecs"), ContainerError);
  EXPECT_THROW(parse_go_duration_s("1.2.3s"), ContainerError);
  EXPECT_THROW(parse_go_duration_s(".s"), ContainerError);
}

TEST(ContainerStats, MemoryUsage) {
  EXPECT_DOUBLE_EQ(parse_mem_mb("8.827MB / 25.28GB"), 8.827);
  EXPECT_DOUBLE_EQ(parse_mem_mb("1.5GB"), 1500);
  EXPECT_DOUBLE_EQ(parse_mem_mb("512kB / 1GB"), 0.512);
  EXPECT_DOUBLE_EQ(parse_mem_mb("1MiB"), 1.048576);
  EXPECT_THROW(parse_mem_mb("lots"), ContainerError);
  EXPECT_THROW(parse_mem_mb("3 furlongs"), ContainerError);
  EXPECT_THROW(parse_mem_mb("1..5MB"), ContainerError);
}

TEST(ContainerRun, ArgumentsKeepPathsAndPinning) {
  ContainerEngine engine{
      "podman", "/usr/bin/podman", "/x/Containerfile", {"--ulimit", "nofile=65536"}};
  ContainerRun run;
  run.name = "gb-1-direct-backend";
  run.image = "localhost/gatebench-nginx:latest";
  run.exe = "/usr/sbin/nginx";
  run.args = {"-c", "/out/direct/backend.conf"};
  run.env = {{"GOMAXPROCS", "2"}};
  run.volumes = {"/out/direct"};
  run.cpus = parse_cpu_set("2-3");
  std::vector<std::string> expected = {"run",
                                       "--rm",
                                       "--name",
                                       "gb-1-direct-backend",
                                       "--network",
                                       "host",
                                       "--cpuset-cpus",
                                       "2-3",
                                       "-v",
                                       "/out/direct:/out/direct",
                                       "-e",
                                       "GOMAXPROCS=2",
                                       "--ulimit",
                                       "nofile=65536",
                                       "localhost/gatebench-nginx:latest",
                                       "/usr/sbin/nginx",
                                       "-c",
                                       "/out/direct/backend.conf"};
  EXPECT_EQ(container_run_args(engine, run), expected);
}

}  // namespace
}  // namespace gatebench::macro
