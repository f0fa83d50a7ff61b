// Command lines of gatebench-gateway and gatebench-control: --help, exit status 2 with the
// offending field named for bad input, --check.
#include <gtest/gtest.h>

#include "tests/macro/gateway/gateway_testkit.hpp"

namespace {

struct CliRun {
  int status;
  std::string output;
};

CliRun run(std::vector<std::string> args, std::vector<std::string> env = {}) {
  gwtest::TempDir dir;
  gwtest::Process p(std::move(args), (dir.path() / "out.log").string(), std::move(env));
  int st = p.wait_exit(5000);
  return {st, p.output()};
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
  EXPECT_EQ(run({GATEBENCH_CONTROL_EXE, "--udp", "nowhere"}).status, 2);
  EXPECT_EQ(run({GATEBENCH_CONTROL_EXE, "--duration", "-1"}).status, 2);
}

TEST(GatewayCli, BadConfigExitsTwoNamingTheField) {
  gwtest::TempDir dir;
  std::string path = dir.file("gw.json", R"({"listeners": [{"port": 8080}],
      "hosts": [{"names": ["a"], "upstream": "127.0.0.1:80"}, {"names": ["b"], "upstream": "b"}]})");
  CliRun r = run({GATEBENCH_GATEWAY_EXE, "--config", path});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.output.find(path + ": hosts[1].upstream: expected \"host:port\""), std::string::npos)
      << r.output;
  r = run({GATEBENCH_GATEWAY_EXE, "--config", (dir.path() / "missing.json").string()});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.output.find("cannot read the file"), std::string::npos) << r.output;
}

TEST(GatewayCli, BadCalibrationValueExitsTwoNamingTheVariable) {
  gwtest::TempDir dir;
  std::string path = dir.file("gw.json", R"({"listeners": [{"port": 8080}],
      "hosts": [{"names": ["*"], "upstream": "127.0.0.1:80"}]})");
  for (const char* value : {"", "-1", "12x", "1e3", "100000001", "99999999999"}) {
    CliRun r = run({GATEBENCH_GATEWAY_EXE, "--config", path, "--check"},
                   {std::string("GATEBENCH_GATEWAY_CALIBRATE_MIXES=") + value});
    EXPECT_EQ(r.status, 2) << value;
    EXPECT_NE(r.output.find("GATEBENCH_GATEWAY_CALIBRATE_MIXES=\"" + std::string(value) + "\""),
              std::string::npos)
        << r.output;
  }
  CliRun r = run({GATEBENCH_GATEWAY_EXE, "--config", path, "--check"},
                 {"GATEBENCH_GATEWAY_CALIBRATE_MIXES=100000000"});
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
