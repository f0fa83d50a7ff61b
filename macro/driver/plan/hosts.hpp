#pragma once
// Hosts as data (docs/multi-host.md): a hosts file names the machines a run may use and how to
// reach them, and --place puts each role of the scenarios on one of them (the load on several).
// Both are validated before anything starts; errors name the file and JSON pointer, or --place.
#include <map>
#include <string>
#include <vector>

namespace gatebench::macro {

enum class HostKind { local, ssh, podman };

struct Host {
  std::string name;
  HostKind kind = HostKind::local;
  // Where the other hosts reach this one (and, for ssh, where ssh connects). Optional for a local
  // host until a role on another host has to reach it.
  std::string address;
  std::string user;                      // ssh: empty = ssh's default
  int port = 22;                         // ssh
  std::string key;                       // ssh: identity file, absolute; empty = ssh's default
  std::vector<std::string> ssh_options;  // ssh: "Key=Value", each passed as -o
  std::string workdir = "/tmp/gatebench-remote";  // ssh: binaries and run files go here
  // podman: the engine's remote API, as `podman --remote --url` (unix://, ssh://, tcp://) or a
  // connection name of `podman system connection` (one of the two); `key` is then --identity.
  std::string url;
  std::string connection;
};

// "local", "ssh" or "podman".
const char* host_kind_name(HostKind kind);

struct HostsFile {
  std::string path;  // for messages
  std::map<std::string, Host> hosts;
};

// Throws common::UsageError naming the file and the JSON pointer.
HostsFile load_hosts(const std::string& path);
HostsFile parse_hosts(const std::string& text, const std::string& path);

// The roles --place knows. "control" is the gateway's control plane (services named control).
inline constexpr const char* kPlaceRoles[] = {"load", "backend", "gateway", "control"};

// Where each role runs. Every role has at least one host; only the load may have several.
struct Placement {
  std::map<std::string, std::vector<std::string>> roles;  // role -> host names
  std::map<std::string, Host> hosts;                      // the hosts of the file (or "local")

  const Host& host_of(const std::string& role) const;  // the first host of the role
  std::vector<const Host*> load_hosts() const;
  // Some load host is reached over ssh: the services must be reachable from it.
  bool remote_load() const;
  // The roles run on more than one host: services listen on all their addresses and reach the
  // other hosts' services at those hosts' addresses.
  bool spans_hosts() const;
  // The placed hosts of one kind, each once, in name order.
  std::vector<const Host*> hosts_of_kind(HostKind kind) const;
  // Hosts reached over ssh.
  std::vector<const Host*> ssh_hosts() const { return hosts_of_kind(HostKind::ssh); }
  // Hosts reached through a container engine's remote API.
  std::vector<const Host*> engine_hosts() const { return hosts_of_kind(HostKind::podman); }
};

// `spec` is "load=a+b,gateway=here,...": roles not named run on the file's local host (the only
// one, or the one named "local"; a host {"kind": "local"} named "local" when there is no file).
// Throws common::UsageError ("--place: ...", or the hosts file and pointer of a missing address).
Placement make_placement(const HostsFile* hosts, const std::string& spec);

}  // namespace gatebench::macro
