#include "macro/driver/runtime/container.hpp"

#include <gtest/gtest.h>

#include <map>

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
      "podman", "/usr/bin/podman", "/x/Containerfile", {"--ulimit", "nofile=65536"}, {}};
  ContainerRun run;
  run.name = "gb-1-direct-backend";
  run.image = "localhost/gatebench-nginx:latest";
  run.exe = "/usr/sbin/nginx";
  run.args = {"-c", "/out/direct/backend.conf"};
  run.env = {{"GOMAXPROCS", "2"}};
  run.volumes = {"/out/direct"};
  run.cpus = parse_cpu_set("2-3");
  run.timeout_s = 215;
  std::vector<std::string> expected = {"run",
                                       "--rm",
                                       "--name",
                                       "gb-1-direct-backend",
                                       "--network",
                                       "host",
                                       "--cpuset-cpus",
                                       "2-3",
                                       "--timeout",
                                       "215",
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

// A remote engine's connection goes before every command; the verb is the caller's.
TEST(ContainerRun, RemoteEngineArgumentsLeadEveryCommand) {
  ContainerEngine engine{"podman", "/usr/bin/podman", "", {}, {"--remote", "--url", "unix:///s"}};
  EXPECT_EQ(engine_args(engine, {"ps", "-a"}),
            (std::vector<std::string>{"--remote", "--url", "unix:///s", "ps", "-a"}));
  ContainerRun run;
  run.name = "gb-1-x-gateway";
  run.image = "localhost/gatebench-gatebench-gateway:latest";
  run.exe = "/b/gatebench-gateway";
  run.timeout_s = 60;
  const std::vector<std::string> expected = {"create",
                                             "--rm",
                                             "--name",
                                             "gb-1-x-gateway",
                                             "--network",
                                             "host",
                                             "--timeout",
                                             "60",
                                             "localhost/gatebench-gatebench-gateway:latest",
                                             "/b/gatebench-gateway"};
  // container_run_args leaves the globals to whoever runs it (engine_args).
  EXPECT_EQ(container_run_args(engine, run, "create"), expected);
}

// docker's run has no --timeout (the driver removes what a killed driver left instead).
TEST(ContainerRun, DockerRunHasNoTimeout) {
  ContainerEngine engine{"docker", "/usr/bin/docker", "", {}, {}};
  ContainerRun run;
  run.name = "gb-1-x-gateway";
  run.image = "0123abcd";
  run.timeout_s = 60;
  EXPECT_EQ(container_run_args(engine, run),
            (std::vector<std::string>{"run", "--rm", "--name", "gb-1-x-gateway", "--network",
                                      "host", "0123abcd"}));
}

// docker prefixes names with '/'; error lines of unknown names and stopped containers (PID 0)
// name no PID.
TEST(ContainerPids, NamesAndPidsOfRunningContainers) {
  const auto pids = parse_container_pids(
      "/gb-7-a-gateway 10884\nError: No such object: gb-7-b\nhdp1 11189\ngb-7-c 0\nx y\n");
  EXPECT_EQ(pids, (std::map<std::string, pid_t>{{"gb-7-a-gateway", 10884}, {"hdp1", 11189}}));
  EXPECT_TRUE(parse_container_pids("").empty());
}

// podman: hex ID and Digest; docker: "sha256:" ID and RepoDigests (empty for a local build).
TEST(ImageInspect, IdAndDigestOfBothEngines) {
  const std::string hex(64, 'a');
  ImageInfo podman = parse_image_inspect(R"([{"Id": ")" + hex + R"(", "Digest": "sha256:bb"}])");
  EXPECT_EQ(podman.id, hex);
  EXPECT_EQ(podman.digest, "sha256:bb");
  ImageInfo docker = parse_image_inspect(R"([{"Id": "sha256:)" + hex + R"(", "RepoDigests": []}])");
  EXPECT_EQ(docker.id, hex);
  EXPECT_EQ(docker.digest, "");
  docker =
      parse_image_inspect(R"([{"Id": "sha256:)" + hex + R"(", "RepoDigests": ["r/x@sha256:cc"]}])");
  EXPECT_EQ(docker.digest, "sha256:cc");
  EXPECT_THROW(parse_image_inspect("Error: no such image"), ContainerError);
}

// Two services (10 s and 5 s to be ready), 5 s warm-up, one 20 s run: 2 image builds of 120 s,
// 15 s, 35 s, 50 s and 60 s for the stop.
TEST(ContainerTimeout, CoversBuildsReadinessWarmupRunsAndStop) {
  EXPECT_EQ(container_timeout_s(15, 2, 5, 20, 1), 240 + 15 + 35 + 50 + 60);
  // No warm-up adds nothing for it; a search's 12 runs each get duration + 30 s.
  EXPECT_EQ(container_timeout_s(10, 1, 0, 2, 12), 120 + 10 + 12 * 32 + 60);
  // Fractions round up: the bound is never below the sum.
  EXPECT_EQ(container_timeout_s(0.5, 1, 0, 0.2, 1), 211);
}

}  // namespace
}  // namespace gatebench::macro
