#include "macro/driver/plan/hosts.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "macro/common/usage_error.hpp"

namespace gatebench::macro {
namespace {

using common::UsageError;

std::string error_of(const std::string& text) {
  try {
    parse_hosts(text, "h.json");
  } catch (const UsageError& e) {
    return e.what();
  }
  return "(no error)";
}

const char* kHostsJson = R"({"hosts": {
  "nsa": {"kind": "ssh", "address": "10.77.0.2", "user": "root", "port": 2222,
          "options": ["StrictHostKeyChecking=no"], "workdir": "/tmp/gb"},
  "nsb": {"kind": "ssh", "address": "10.77.0.6"},
  "here": {"kind": "local", "address": "10.77.0.1"}}})";

TEST(Hosts, ReadsEveryField) {
  const HostsFile f = parse_hosts(kHostsJson, "h.json");
  ASSERT_EQ(f.hosts.size(), 3u);
  const Host& a = f.hosts.at("nsa");
  EXPECT_EQ(a.kind, HostKind::ssh);
  EXPECT_EQ(a.address, "10.77.0.2");
  EXPECT_EQ(a.user, "root");
  EXPECT_EQ(a.port, 2222);
  EXPECT_EQ(a.ssh_options, std::vector<std::string>{"StrictHostKeyChecking=no"});
  EXPECT_EQ(a.workdir, "/tmp/gb");
  const Host& b = f.hosts.at("nsb");
  EXPECT_EQ(b.port, 22);
  EXPECT_EQ(b.workdir, "/tmp/gatebench-remote");
  EXPECT_TRUE(b.user.empty());
  EXPECT_EQ(f.hosts.at("here").kind, HostKind::local);
}

TEST(Hosts, ErrorsNameTheFileAndPointer) {
  EXPECT_EQ(error_of(R"({"hosts": {}})"), "h.json: /hosts: expected at least one host");
  EXPECT_EQ(error_of(R"({"hosts": {"a": {"kind": "telnet"}}})"),
            "h.json: /hosts/a/kind: expected \"local\", \"ssh\" or \"podman\", got \"telnet\"");
  EXPECT_NE(error_of(R"({"hosts": {"a": {"kind": "ssh"}}})").find("h.json: /hosts/a/address"),
            std::string::npos);
  EXPECT_NE(error_of(R"({"hosts": {"a": {"kind": "ssh", "address": "x", "port": 0}}})")
                .find("h.json: /hosts/a/port"),
            std::string::npos);
  EXPECT_NE(error_of(R"({"hosts": {"a": {"kind": "ssh", "address": "x", "prot": 22}}})")
                .find("h.json: /hosts/a/prot: unknown field"),
            std::string::npos);
  EXPECT_NE(error_of(R"({"hosts": {"a": {"kind": "ssh", "address": "a b"}}})")
                .find("h.json: /hosts/a/address: expected an address"),
            std::string::npos);
  EXPECT_NE(error_of(R"({"hosts": {"a": {"kind": "ssh", "address": "x", "options": ["-v"]}}})")
                .find("h.json: /hosts/a/options/0: expected an ssh option as Key=Value"),
            std::string::npos);
  EXPECT_NE(error_of(R"({"hosts": {"a": {"kind": "ssh", "address": "x",
                        "options": ["ControlPath=/tmp/x"]}}})")
                .find("h.json: /hosts/a/options/0: set by gatebench-macro"),
            std::string::npos);
  EXPECT_NE(error_of(R"({"hosts": {"a": {"kind": "ssh", "address": "x", "workdir": "rel"}}})")
                .find("h.json: /hosts/a/workdir: expected an absolute directory"),
            std::string::npos);
  EXPECT_NE(error_of(R"({"hosts": {"a": {"kind": "ssh", "address": "x", "key": "nope"}}})")
                .find("h.json: /hosts/a/key: no such file"),
            std::string::npos);
  EXPECT_NE(error_of(R"({"hosts": {"A B": {"kind": "local"}}})").find("h.json: /hosts/A B"),
            std::string::npos);
  EXPECT_NE(error_of(R"({"hosts": {"a": {"kind": "local", "user": "x"}}})")
                .find("h.json: /hosts/a/user: unknown field"),
            std::string::npos);
  EXPECT_NE(error_of("{"), "(no error)");
}

TEST(Hosts, KeyIsRelativeToTheHostsFile) {
  const auto dir =
      std::filesystem::temp_directory_path() / ("gb-hosts-" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "id") << "key";
  std::ofstream(dir / "hosts.json") << R"({"hosts": {"a": {"kind": "ssh", "address": "x",
                                          "key": "id"}}})";
  const HostsFile f = load_hosts((dir / "hosts.json").string());
  EXPECT_EQ(f.hosts.at("a").key, (dir / "id").string());
  std::filesystem::remove_all(dir);
}

std::string place_error(const std::string& spec, const char* hosts = kHostsJson) {
  const HostsFile f = parse_hosts(hosts, "h.json");
  try {
    make_placement(&f, spec);
  } catch (const UsageError& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(Hosts, PodmanHostsNameTheEngineByUrlOrConnection) {
  const HostsFile f = parse_hosts(R"({"hosts": {
    "pod": {"kind": "podman", "url": "unix:///run/p.sock", "address": "10.77.0.2"},
    "far": {"kind": "podman", "connection": "lab", "address": "10.77.0.6"}}})",
                                  "h.json");
  const Host& pod = f.hosts.at("pod");
  EXPECT_EQ(pod.kind, HostKind::podman);
  EXPECT_EQ(pod.url, "unix:///run/p.sock");
  EXPECT_TRUE(pod.connection.empty());
  EXPECT_EQ(f.hosts.at("far").connection, "lab");
  EXPECT_STREQ(host_kind_name(pod.kind), "podman");
  const std::string one_of = "expected one of \"url\"";
  EXPECT_NE(error_of(R"({"hosts": {"a": {"kind": "podman", "address": "x"}}})").find(one_of),
            std::string::npos);
  EXPECT_NE(error_of(R"({"hosts": {"a": {"kind": "podman", "address": "x", "url": "unix:///s",
                        "connection": "c"}}})")
                .find("h.json: /hosts/a: " + one_of),
            std::string::npos);
  EXPECT_NE(error_of(R"({"hosts": {"a": {"kind": "podman", "address": "x", "url": "/s"}}})")
                .find("h.json: /hosts/a/url: expected unix:///path"),
            std::string::npos);
  EXPECT_NE(error_of(R"({"hosts": {"a": {"kind": "podman", "url": "unix:///s"}}})")
                .find("h.json: /hosts/a/address"),
            std::string::npos);
  // ssh's fields are not the engine's.
  EXPECT_NE(error_of(R"({"hosts": {"a": {"kind": "podman", "address": "x", "url": "unix:///s",
                        "workdir": "/tmp"}}})")
                .find("h.json: /hosts/a/workdir: unknown field"),
            std::string::npos);
}

TEST(Place, RolesGoWhereTheyAreNamedAndTheRestRunsOnTheLocalHost) {
  const HostsFile f = parse_hosts(kHostsJson, "h.json");
  const Placement p = make_placement(&f, "load=nsa+nsb");
  EXPECT_EQ(p.roles.at("load"), (std::vector<std::string>{"nsa", "nsb"}));
  EXPECT_EQ(p.roles.at("gateway"), std::vector<std::string>{"here"});
  EXPECT_EQ(p.roles.at("backend"), std::vector<std::string>{"here"});
  EXPECT_EQ(p.roles.at("control"), std::vector<std::string>{"here"});
  EXPECT_TRUE(p.remote_load());
  ASSERT_EQ(p.load_hosts().size(), 2u);
  EXPECT_EQ(p.load_hosts()[1]->address, "10.77.0.6");
  ASSERT_EQ(p.ssh_hosts().size(), 2u);
  EXPECT_EQ(p.host_of("gateway").address, "10.77.0.1");
  EXPECT_FALSE(make_placement(&f, "").remote_load());
  EXPECT_FALSE(make_placement(nullptr, "").remote_load());
}

TEST(Place, ServicesGoToSshHostsToo) {
  const HostsFile f = parse_hosts(kHostsJson, "h.json");
  const Placement p = make_placement(&f, "gateway=nsa,backend=nsb");
  EXPECT_EQ(p.host_of("gateway").name, "nsa");
  EXPECT_EQ(p.host_of("backend").name, "nsb");
  EXPECT_EQ(p.host_of("load").name, "here");
  EXPECT_FALSE(p.remote_load());
  EXPECT_TRUE(p.spans_hosts());
  EXPECT_FALSE(make_placement(&f, "load=here").spans_hosts());
}

TEST(Place, BadSpecsSayWhatIsWrong) {
  EXPECT_EQ(place_error("load"), "--place: expected ROLE=HOST, got 'load'");
  EXPECT_EQ(place_error("cache=here"),
            "--place: unknown role 'cache' (expected load, backend, gateway or control)");
  EXPECT_EQ(place_error("load=nsz"), "--place: load=nsz: no host 'nsz' in h.json");
  EXPECT_EQ(place_error("load=nsa,load=nsb"), "--place: load is placed twice");
  EXPECT_EQ(place_error("load=nsa+nsa"), "--place: load=nsa+nsa: 'nsa' twice");
  EXPECT_EQ(place_error("gateway=here+nsa"),
            "--place: gateway=here+nsa: only the load runs on several hosts");
  // Services on an ssh host are reached from the others at their host's address.
  EXPECT_EQ(place_error("gateway=nsa", R"({"hosts": {"nsa": {"kind": "ssh", "address": "x"},
                                          "here": {"kind": "local"}}})"),
            "h.json: /hosts/here/address: missing; roles on other hosts reach the backend there");
  // The load on another host has to reach the services: their host needs an address.
  EXPECT_EQ(place_error("load=nsa", R"({"hosts": {"nsa": {"kind": "ssh", "address": "10.77.0.2"},
                                       "here": {"kind": "local"}}})"),
            "h.json: /hosts/here/address: missing; the load on another host reaches the gateway "
            "there");
  EXPECT_NE(place_error("load=nsa", R"({"hosts": {"nsa": {"kind": "ssh", "address": "x"}}})")
                .find("no local host"),
            std::string::npos);
  EXPECT_THROW(make_placement(nullptr, "load=x"), UsageError);
  // The engine runs services; the load needs a shell on its host.
  const char* engine = R"({"hosts": {"pod": {"kind": "podman", "url": "unix:///s",
                          "address": "10.77.0.2"}, "here": {"kind": "local", "address": "y"}}})";
  EXPECT_NE(place_error("load=pod", engine).find("'pod' is a container engine"), std::string::npos);
  const HostsFile f = parse_hosts(engine, "h.json");
  const Placement p = make_placement(&f, "gateway=pod");
  ASSERT_EQ(p.engine_hosts().size(), 1u);
  EXPECT_EQ(p.engine_hosts()[0]->name, "pod");
  EXPECT_TRUE(p.ssh_hosts().empty());
  EXPECT_TRUE(p.spans_hosts());
}

}  // namespace
}  // namespace gatebench::macro
