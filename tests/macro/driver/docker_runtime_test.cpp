// --runtime docker end to end: a Docker engine of the test's own (no engine runs on these
// machines by default), docs/targets.md's image of the reference gateway built with it, and one
// quick round of the plain workload against nginx, every service in a docker container. CPU and
// memory come from the containers' cgroups; nothing is left afterwards.
#include <gtest/gtest.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/mount.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <thread>

#include "doc_examples.hpp"
#include "driver_exe.hpp"
#include "macro/driver/system/children.hpp"
#include "macro/driver/system/toolbox.hpp"
#include "port_offset.hpp"

namespace gatebench::macro {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;
using testing::exit_code;
using testing::processes_mentioning;
using testing::run_driver;

// DOCKER_HOST for this process and its children (the driver) while it lives; the caller's, if
// any, put back at the end.
class DockerHost {
 public:
  explicit DockerHost(const std::string& value) {
    if (const char* before = std::getenv("DOCKER_HOST")) previous_ = before;
    setenv("DOCKER_HOST", value.c_str(), 1);
  }
  DockerHost(const DockerHost&) = delete;
  DockerHost& operator=(const DockerHost&) = delete;
  ~DockerHost() {
    if (previous_)
      setenv("DOCKER_HOST", previous_->c_str(), 1);
    else
      unsetenv("DOCKER_HOST");
  }

 private:
  std::optional<std::string> previous_;
};

// dockerd with its data, state, pid file and socket in a directory of its own, no bridge and no
// iptables rules (containers use the host's network), cgroupfs as on these VMs; DOCKER_HOST
// points at it. The destructor removes every
// container, stops the daemon and what it started, unmounts what is left and removes the
// directory, however the test ends.
class PrivateDockerd {
 public:
  PrivateDockerd() {
    std::string tmpl = (fs::temp_directory_path() / "gatebench-docker-XXXXXX").string();
    if (mkdtemp(tmpl.data()) == nullptr) return;
    dir_ = tmpl;
    const auto dockerd = Toolbox().find("dockerd");
    if (!dockerd) return;
    SpawnSpec spec;
    spec.exe = *dockerd;
    spec.args = {"--data-root",
                 dir_ + "/root",
                 "--exec-root",
                 dir_ + "/exec",
                 "--pidfile",
                 dir_ + "/dockerd.pid",
                 "-H",
                 host(),
                 "--bridge=none",
                 "--iptables=false",
                 "--ip6tables=false",
                 "--exec-opt",
                 "native.cgroupdriver=cgroupfs"};
    spec.out = Stream::to_file(dir_ + "/dockerd.log");
    spec.err = Stream::to_file(dir_ + "/dockerd.log");
    try {
      daemon_ = ChildProcess::spawn(spec);
    } catch (const SpawnError& e) {
      spawn_error_ = e.what();
      return;
    }
    docker_host_.emplace(host());
  }
  PrivateDockerd(const PrivateDockerd&) = delete;
  PrivateDockerd& operator=(const PrivateDockerd&) = delete;

  ~PrivateDockerd() {
    if (dir_.empty()) return;
    if (daemon_.alive()) {
      const CaptureResult ids = run_capture("docker", {"ps", "-aq"}, 15s);
      std::istringstream in(ids.output);
      for (std::string id; in >> id;) run_capture("docker", {"rm", "-f", id}, 15s);
      daemon_.stop(20s);  // dockerd stops its containerd on SIGTERM
    }
    // A containerd or shim that outlived the daemon names the directory on its command line.
    for (int round = 0; round < 2; ++round) {
      for (const auto& p : processes_mentioning(dir_)) ::kill(std::stoi(p), SIGKILL);
      std::this_thread::sleep_for(200ms);
    }
    unmount_below(dir_);
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }

  std::string host() const { return "unix://" + dir_ + "/docker.sock"; }
  const std::string& dir() const { return dir_; }

  // Waits until the daemon answers `docker version`; "" then, else why not.
  std::string wait_ready(std::chrono::seconds limit) {
    if (dir_.empty()) return "no directory for dockerd";
    if (!spawn_error_.empty()) return "dockerd: " + spawn_error_;
    if (daemon_.pid() <= 0) return "dockerd not installed (ci/setup installs docker.io)";
    const auto deadline = std::chrono::steady_clock::now() + limit;
    std::string last;
    while (std::chrono::steady_clock::now() < deadline) {
      if (daemon_.exit_status()) break;
      const CaptureResult r =
          run_capture("docker", {"version", "--format", "{{.Server.Version}}"}, 10s);
      if (r.succeeded()) return "";
      last = r.output;
      std::this_thread::sleep_for(250ms);
    }
    std::ifstream log(dir_ + "/dockerd.log");
    std::stringstream text;
    text << log.rdbuf();
    return "dockerd did not answer: " + last + "\n" + text.str();
  }

 private:
  // Mounts the daemon left below `dir` (overlay2 layers, shm), deepest first.
  static void unmount_below(const std::string& dir) {
    std::ifstream mountinfo("/proc/self/mountinfo");
    std::vector<std::string> points;
    for (std::string line; std::getline(mountinfo, line);) {
      std::istringstream fields(line);
      std::string id, parent, dev, root, point;
      if ((fields >> id >> parent >> dev >> root >> point) && point.starts_with(dir + "/"))
        points.push_back(point);
    }
    std::sort(points.begin(), points.end(), std::greater<>());
    for (const auto& point : points) umount2(point.c_str(), MNT_DETACH);
  }

  std::string dir_;
  std::optional<DockerHost> docker_host_;
  std::string spawn_error_;
  ChildProcess daemon_;
};

TEST(DockerRuntime, ImageTargetRunsAgainstNginxWithCgroupFigures) {
  PrivateDockerd docker;
  const std::string why = docker.wait_ready(60s);
  ASSERT_EQ(why, "");
  const auto gateway = Toolbox().find("gatebench-gateway");
  ASSERT_TRUE(gateway.has_value()) << "gatebench-gateway not built";
  const std::string dir = docker.dir();
  // docs/targets.md's image example ("Your gateway as an image"), built with docker as the page's
  // "With Docker" says.
  const std::string tag = "localhost/gatebench-docker-mygw:1";
  ASSERT_EQ(testing::write_image_example(dir, *gateway, tag), "");
  CaptureResult r = run_capture(
      "docker", {"build", "-q", "-t", tag, "-f", dir + "/Containerfile", dir + "/context"}, 120s);
  ASSERT_TRUE(r.succeeded()) << r.output;

  const std::string offset = std::to_string(testing::port_offset());
  r = run_driver({"target", "check", dir + "/mygw.json", "--runtime", "docker", "--port-offset",
                  offset, "--out", dir + "/check"},
                 120s);
  EXPECT_EQ(exit_code(r), 0) << r.output;
  for (const std::string& want :
       {"image " + tag + ": id ", std::string("every feature answered 2xx")})
    EXPECT_NE(r.output.find(want), std::string::npos) << want << "\n" << r.output;

  const std::string out = dir + "/run";
  r = run_driver({"--runtime", "docker", "--target", dir + "/mygw.json", "--workloads", "plain",
                  "--quick", "--rounds", "1", "--warmup", "0", "--duration", "1s", "--threads", "1",
                  "--port-offset", offset, "--out", out},
                 300s);
  ASSERT_EQ(exit_code(r), 0) << r.output;
  std::ifstream report_file(out + "/macro.json");
  const nlohmann::json report = nlohmann::json::parse(report_file);
  EXPECT_EQ(report["env"]["runtime"], "docker");
  std::map<std::string, std::string> status;
  for (const auto& s : report["scenarios"]) {
    status[s["name"].get<std::string>()] = s["status"].get<std::string>();
    EXPECT_EQ(s["errors"], 0) << s["name"];
    // Every target (the gateway's container, nginx's) used CPU and memory, and the backend's
    // container too: figures from each container's cgroup.
    EXPECT_GT(s["cpu_percent"].get<double>(), 0) << s.dump();
    EXPECT_GT(s["peak_mb"].get<double>(), 0) << s.dump();
    EXPECT_GT(s["cpu_by_role"]["backend"].get<double>(), 0) << s.dump();
    if (s["name"] == "mygw-plain") {
      EXPECT_EQ(s["images"]["mygw"]["image"], tag);
      EXPECT_EQ(s["images"]["mygw"]["id"].get<std::string>().size(), 64u);
      EXPECT_TRUE(s["vs_nginx"].is_number());
    }
  }
  EXPECT_EQ(status,
            (std::map<std::string, std::string>{{"mygw-plain", "ok"}, {"nginx-plain", "ok"}}));
  // The driver removed every container it started.
  r = run_capture("docker", {"ps", "-aq"}, 15s);
  EXPECT_TRUE(r.succeeded()) << r.output;
  EXPECT_EQ(r.output, "");
  EXPECT_TRUE(processes_mentioning(out).empty());
}

// Where no engine answers, every scenario is skipped with the reason and `target check` says it
// once (exit 1); nothing is started.
TEST(DockerRuntime, WithoutAnEngineScenariosSkipWithTheReason) {
  const std::string dir = testing::unique_dir("docker-none");
  fs::remove_all(dir);
  fs::create_directories(dir);
  const DockerHost nowhere("unix://" + dir + "/no-engine.sock");
  CaptureResult r = run_driver({"--dry-run", "--runtime", "docker", "--scenarios", "nginx-baseline",
                                "--rounds", "1", "--out", dir + "/out"});
  EXPECT_EQ(exit_code(r), 0) << r.output;
  EXPECT_NE(r.output.find("skipped: no Docker engine answers (docker version: "), std::string::npos)
      << r.output;
  std::ofstream(dir + "/p.conf") << "${port.http}\n";
  std::ofstream(dir + "/mygw.json") << R"({"name": "mygw", "description": "d",
    "binary": "nginx", "args": ["-c", "${run_dir}/p.conf"],
    "configs": [{"template": "p.conf", "output": "p.conf"}],
    "ports": {"http": 18081}, "features": {"plain": {}}})";
  r = run_driver(
      {"target", "check", dir + "/mygw.json", "--runtime", "docker", "--out", dir + "/check"});
  EXPECT_EQ(exit_code(r), 1) << r.output;
  EXPECT_NE(r.output.find("no Docker engine answers"), std::string::npos) << r.output;
  EXPECT_TRUE(processes_mentioning(dir).empty());
  fs::remove_all(dir);
}

}  // namespace
}  // namespace gatebench::macro
