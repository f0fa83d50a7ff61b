// Command lines of gatebench-gateway and gatebench-control: --help, exit status 2 with the
// offending field named for bad input, --check.
#include <gtest/gtest.h>

#include <chrono>
#include <map>
#include <string>
#include <vector>

#include "macro/common/child_process.hpp"
#include "tests/macro/gateway/gateway_testkit.hpp"

namespace {

struct CliRun {
  int status;
  std::string output;
};

// Runs to completion (at most 5 s) with stdout and stderr in one text; status -1 on a timeout.
CliRun run(const std::vector<std::string>& args,
           const std::map<std::string, std::string>& env = {}) {
  gatebench::common::SpawnSpec spec;
  spec.exe = args.at(0);
  spec.args.assign(args.begin() + 1, args.end());
  spec.env = env;
  gatebench::common::CaptureOptions options;
  options.timeout = std::chrono::seconds(5);
  options.merge_errors = true;
  const gatebench::common::CaptureResult r = gatebench::common::capture(spec, options);
  return {r.timed_out ? -1 : gatebench::common::exit_code(r.status), r.output};
}

TEST(GatewayCli, HelpExitsZero) {
  CliRun r = run({GATEBENCH_GATEWAY_EXE, "--help"});
  EXPECT_EQ(r.status, 0);
  EXPECT_NE(r.output.find("--config FILE"), std::string::npos);
  r = run({GATEBENCH_CONTROL_EXE, "--help"});
  EXPECT_EQ(r.status, 0);
  EXPECT_NE(r.output.find("/metrics"), std::string::npos);
}

TEST(GatewayCli, BadCommandLinesExitTwo) {
  EXPECT_EQ(run({GATEBENCH_GATEWAY_EXE}).status, 2);
  EXPECT_EQ(run({GATEBENCH_GATEWAY_EXE, "--config"}).status, 2);
  EXPECT_EQ(run({GATEBENCH_GATEWAY_EXE, "--bogus"}).status, 2);
  EXPECT_EQ(run({GATEBENCH_GATEWAY_EXE, "--check=yes"}).status, 2);
  EXPECT_EQ(run({GATEBENCH_GATEWAY_EXE, "--config", "a.json", "extra"}).status, 2);
  EXPECT_EQ(run({GATEBENCH_CONTROL_EXE, "--udp", "nowhere"}).status, 2);
  EXPECT_EQ(run({GATEBENCH_CONTROL_EXE, "--http", "127.0.0.1:99999"}).status, 2);
  EXPECT_EQ(run({GATEBENCH_CONTROL_EXE, "--duration", "-1"}).status, 2);
}

TEST(GatewayCli, UsageErrorsNameTheOption) {
  CliRun r = run({GATEBENCH_GATEWAY_EXE, "--bogus"});
  EXPECT_NE(r.output.find("gatebench-gateway: unknown option --bogus"), std::string::npos)
      << r.output;
  r = run({GATEBENCH_GATEWAY_EXE, "--config"});
  EXPECT_NE(r.output.find("option --config needs a value"), std::string::npos) << r.output;
  r = run({GATEBENCH_CONTROL_EXE, "--udp", "nowhere"});
  EXPECT_NE(r.output.find("--udp: expected IPv4:PORT, got 'nowhere'"), std::string::npos)
      << r.output;
}

// --duration takes the one duration syntax of every gatebench command line (500ms, 1m, bare = s).
TEST(GatewayCli, ControlDurationTakesTheCommonSyntax) {
  const std::vector<std::string> any_ports = {"--udp", "127.0.0.1:0", "--http", "127.0.0.1:0"};
  auto control = [&](const std::string& duration) {
    std::vector<std::string> args = {GATEBENCH_CONTROL_EXE, "--duration", duration};
    args.insert(args.end(), any_ports.begin(), any_ports.end());
    return run(args);
  };
  for (const char* ok : {"300ms", "0.3", "0.3s", "300000us"}) {
    const auto start = std::chrono::steady_clock::now();
    CliRun r = control(ok);
    const auto took = std::chrono::steady_clock::now() - start;
    EXPECT_EQ(r.status, 0) << ok << ": " << r.output;
    // It stopped by itself, after about the duration (the loop wakes every 200 ms).
    EXPECT_GE(took, std::chrono::milliseconds(250)) << ok;
    EXPECT_LT(took, std::chrono::milliseconds(3000)) << ok;
  }
  CliRun r = control("20x");
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_NE(r.output.find("--duration: unknown unit 'x' in '20x'"), std::string::npos) << r.output;
  r = control("0");
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_NE(r.output.find("--duration: must be longer than 0"), std::string::npos) << r.output;
  r = control("-1s");
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_NE(r.output.find("--duration: '-1s' is negative"), std::string::npos) << r.output;
}

TEST(GatewayCli, BadConfigExitsTwoNamingTheField) {
  gwtest::TempDir dir;
  std::string path = dir.file("gw.json", R"({"listeners": [{"port": 8080}],
      "hosts": [{"names": ["a"], "upstream": "127.0.0.1:80"}, {"names": ["b"], "upstream": "b"}]})");
  CliRun r = run({GATEBENCH_GATEWAY_EXE, "--config", path});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.output.find(path + ": /hosts/1/upstream: expected \"host:port\""), std::string::npos)
      << r.output;
  r = run({GATEBENCH_GATEWAY_EXE, "--config", (dir.path() / "missing.json").string()});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.output.find("missing.json: cannot read"), std::string::npos) << r.output;
}

TEST(GatewayCli, BadCalibrationValueExitsTwoNamingTheVariable) {
  gwtest::TempDir dir;
  std::string path = dir.file("gw.json", R"({"listeners": [{"port": 8080}],
      "hosts": [{"names": ["*"], "upstream": "127.0.0.1:80"}]})");
  for (const char* value : {"", "-1", "12x", "1e3", "100000001", "99999999999"}) {
    CliRun r = run({GATEBENCH_GATEWAY_EXE, "--config", path, "--check"},
                   {{"GATEBENCH_GATEWAY_CALIBRATE_MIXES", value}});
    EXPECT_EQ(r.status, 2) << value;
    EXPECT_NE(r.output.find("GATEBENCH_GATEWAY_CALIBRATE_MIXES=\"" + std::string(value) + "\""),
              std::string::npos)
        << r.output;
  }
  CliRun r = run({GATEBENCH_GATEWAY_EXE, "--config", path, "--check"},
                 {{"GATEBENCH_GATEWAY_CALIBRATE_MIXES", "100000000"}});
  EXPECT_EQ(r.status, 0) << r.output;
}

TEST(GatewayCli, BadStudyInjectionExitsTwoNamingTheVariable) {
  gwtest::TempDir dir;
  std::string path = dir.file("gw.json", R"({"listeners": [{"port": 8080}],
      "hosts": [{"names": ["*"], "upstream": "127.0.0.1:80"}]})");
  CliRun r = run({GATEBENCH_GATEWAY_EXE, "--config", path, "--check"},
                 {{"GATEBENCH_GATEWAY_STUDY_INJECT", "alloc,free"}});
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_NE(r.output.find("GATEBENCH_GATEWAY_STUDY_INJECT=\"alloc,free\": unknown item \"free\""),
            std::string::npos)
      << r.output;
  r = run({GATEBENCH_GATEWAY_EXE, "--config", path, "--check"},
          {{"GATEBENCH_GATEWAY_STUDY_INJECT", "alloc,write,copy"}});
  EXPECT_EQ(r.status, 0) << r.output;
}

TEST(GatewayCli, TimeCalibrationPrintsNanosecondsPerMix) {
  CliRun r = run({GATEBENCH_GATEWAY_EXE, "--time-calibration"});
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("calibration mix: "), std::string::npos) << r.output;
  EXPECT_NE(r.output.find(" ns of CPU"), std::string::npos) << r.output;
}

TEST(GatewayCli, CheckValidatesAndExits) {
  gwtest::TempDir dir;
  std::string path = dir.file("gw.json", R"({"listeners": [{"port": 8080}],
      "hosts": [{"names": ["*"], "upstream": "127.0.0.1:80"}]})");
  CliRun r = run({GATEBENCH_GATEWAY_EXE, "--config", path, "--check"});
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find(": ok"), std::string::npos);
}

TEST(GatewayCli, PortInUseExitsOne) {
  int port = gwtest::free_port();
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<std::uint16_t>(port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
  ASSERT_EQ(listen(fd, 1), 0);
  gwtest::TempDir dir;
  std::string path =
      dir.file("gw.json", R"({"listeners": [{"port": )" + std::to_string(port) +
                              R"(}], "hosts": [{"names": ["*"], "upstream": "127.0.0.1:80"}]})");
  CliRun r = run({GATEBENCH_GATEWAY_EXE, "--config", path});
  ::close(fd);
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find("cannot listen on 127.0.0.1:" + std::to_string(port)), std::string::npos)
      << r.output;
}

}  // namespace
