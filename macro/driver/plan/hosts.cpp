#include "macro/driver/plan/hosts.hpp"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <iterator>
#include <set>

#include "macro/common/json_field.hpp"
#include "macro/common/usage_error.hpp"
#include "macro/driver/plan/names.hpp"

namespace gatebench::macro {
namespace fs = std::filesystem;
using common::JsonField;
using common::UsageError;

namespace {

// What ssh and the remote shell see unquoted: no spaces, quotes or shell syntax.
bool plain_word(const std::string& text) {
  return !text.empty() && std::all_of(text.begin(), text.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) ||
           std::string_view("-_.:@%+=/,").find(c) != std::string_view::npos;
  });
}

std::string plain_string(const JsonField& field, const char* what) {
  const std::string value = field.string();
  if (!plain_word(value) || value.front() == '-')
    field.fail(std::string("expected ") + what +
               " (letters, digits and -_.:@%+=/, not starting with '-')");
  return value;
}

Host parse_host(const JsonField& f, const std::string& name, const fs::path& base) {
  f.expect_object();
  Host h;
  h.name = name;
  const std::string kind = f.child("kind").string();
  if (kind == "local") {
    f.allow_only({"kind", "address"});
    h.kind = HostKind::local;
    if (f.has("address")) h.address = plain_string(f.child("address"), "an address");
    return h;
  }
  if (kind == "podman") {
    f.allow_only({"kind", "address", "url", "connection", "key"});
    h.kind = HostKind::podman;
    h.address = plain_string(f.child("address"), "an address");
    if (f.has("url") == f.has("connection"))
      f.fail(
          "expected one of \"url\" (the engine's remote API) and \"connection\" (a podman "
          "system connection name)");
    if (f.has("url")) {
      const JsonField url = f.child("url");
      h.url = plain_string(url, "a URL");
      if (!h.url.starts_with("unix://") && !h.url.starts_with("ssh://") &&
          !h.url.starts_with("tcp://"))
        url.fail("expected unix:///path, ssh://[user@]host[:port]/path or tcp://host:port");
    } else {
      h.connection = plain_string(f.child("connection"), "a connection name");
    }
  } else if (kind == "ssh") {
    f.allow_only({"kind", "address", "user", "port", "key", "options", "workdir"});
    h.kind = HostKind::ssh;
    h.address = plain_string(f.child("address"), "an address");
    if (f.has("user")) h.user = plain_string(f.child("user"), "a user name");
    h.port = static_cast<int>(f.integer_or("port", 22, 1, 65535));
  } else {
    f.child("kind").fail("expected \"local\", \"ssh\" or \"podman\", got \"" + kind + "\"");
  }
  if (f.has("key")) {
    const JsonField key = f.child("key");
    fs::path path = key.string();
    if (path.empty()) key.fail("expected a file name");
    if (path.is_relative()) path = base / path;
    std::error_code ec;
    if (!fs::is_regular_file(path, ec)) key.fail("no such file: " + path.string());
    h.key = fs::absolute(path).lexically_normal().string();
  }
  if (h.kind == HostKind::podman) return h;
  const JsonField options = f.child("options");
  if (options.present()) {
    options.expect_array();
    for (std::size_t i = 0; i < options.size(); ++i) {
      const JsonField o = options.at(i);
      const std::string text = o.string();
      const auto eq = text.find('=');
      if (eq == std::string::npos || eq == 0 ||
          text.find_first_of(" \t\r\n'\"") != std::string::npos)
        o.fail("expected an ssh option as Key=Value without spaces (passed as -o Key=Value)");
      // The driver owns the connection: multiplexing and batch mode are not the file's to change.
      std::string key = text.substr(0, eq);
      std::transform(key.begin(), key.end(), key.begin(),
                     [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
      if (key == "controlmaster" || key == "controlpath" || key == "controlpersist" ||
          key == "batchmode")
        o.fail("set by gatebench-macro (connection sharing), not an option of the hosts file");
      h.ssh_options.push_back(text);
    }
  }
  if (f.has("workdir")) {
    const JsonField w = f.child("workdir");
    h.workdir = plain_string(w, "an absolute directory");
    if (h.workdir.front() != '/' || fs::path(h.workdir).lexically_normal() == "/")
      w.fail("expected an absolute directory other than /");
  }
  return h;
}

}  // namespace

namespace {

HostsFile hosts_from(const nlohmann::json& doc, const std::string& path) {
  const JsonField root(doc, path);
  root.expect_object();
  root.allow_only({"hosts"});
  const JsonField hosts = root.child("hosts");
  hosts.expect_object();
  if (hosts.size() == 0) hosts.fail("expected at least one host");
  HostsFile out;
  out.path = path;
  const fs::path base = fs::absolute(path).parent_path();
  for (const std::string& name : hosts.keys()) {
    const JsonField h = hosts.child(name);
    if (!is_name(name)) h.fail("host names are [a-z0-9_-]+");
    out.hosts.emplace(name, parse_host(h, name, base));
  }
  return out;
}

}  // namespace

HostsFile parse_hosts(const std::string& text, const std::string& path) {
  return hosts_from(common::parse_json_text(text, path), path);
}

HostsFile load_hosts(const std::string& path) {
  return hosts_from(common::read_json_file(path), path);
}

const char* host_kind_name(HostKind kind) {
  switch (kind) {
    case HostKind::local:
      return "local";
    case HostKind::ssh:
      return "ssh";
    case HostKind::podman:
      return "podman";
  }
  return "local";
}

const Host& Placement::host_of(const std::string& role) const {
  return hosts.at(roles.at(role).front());
}

std::vector<const Host*> Placement::load_hosts() const {
  std::vector<const Host*> out;
  for (const auto& name : roles.at("load")) out.push_back(&hosts.at(name));
  return out;
}

bool Placement::remote_load() const {
  for (const Host* h : load_hosts())
    if (h->kind == HostKind::ssh) return true;
  return false;
}

bool Placement::spans_hosts() const {
  std::set<std::string> names;
  for (const auto& [role, list] : roles) names.insert(list.begin(), list.end());
  return names.size() > 1;
}

std::vector<const Host*> Placement::hosts_of_kind(HostKind kind) const {
  std::set<std::string> names;
  for (const auto& [role, list] : roles)
    for (const auto& name : list)
      if (hosts.at(name).kind == kind) names.insert(name);
  std::vector<const Host*> out;
  for (const auto& name : names) out.push_back(&hosts.at(name));
  return out;
}

namespace {

// One ROLE=HOST[+HOST...] item of --place into p.roles. Throws UsageError.
void place_item(Placement& p, const HostsFile* file, const std::string& item) {
  const auto eq = item.find('=');
  if (eq == std::string::npos) throw UsageError("--place: expected ROLE=HOST, got '" + item + "'");
  const std::string role = item.substr(0, eq);
  if (std::find_if(std::begin(kPlaceRoles), std::end(kPlaceRoles),
                   [&](const char* r) { return role == r; }) == std::end(kPlaceRoles))
    throw UsageError("--place: unknown role '" + role +
                     "' (expected load, backend, gateway or control)");
  if (p.roles.contains(role)) throw UsageError("--place: " + role + " is placed twice");
  std::vector<std::string> list;
  const std::string names = item.substr(eq + 1);
  for (std::size_t s = 0; s <= names.size();) {
    std::size_t plus = names.find('+', s);
    if (plus == std::string::npos) plus = names.size();
    const std::string name = names.substr(s, plus - s);
    s = plus + 1;
    if (!p.hosts.contains(name))
      throw UsageError("--place: " + role + "=" + names + ": no host '" + name + "' in " +
                       file->path);
    if (std::find(list.begin(), list.end(), name) != list.end())
      throw UsageError("--place: " + role + "=" + names + ": '" + name + "' twice");
    list.push_back(name);
  }
  if (role == "load")
    for (const auto& name : list)
      if (p.hosts.at(name).kind == HostKind::podman)
        throw UsageError("--place: load=" + names + ": '" + name +
                         "' is a container engine (kind podman); the load runs on local or ssh "
                         "hosts");
  if (list.size() > 1 && role != "load")
    throw UsageError("--place: " + role + "=" + names + ": only the load runs on several hosts");
  p.roles[role] = list;
}

// Unplaced roles run here: the file's only local host, or the one named "local".
void place_the_rest_here(Placement& p, const HostsFile* file) {
  std::string here;
  for (const auto& [name, h] : p.hosts)
    if (h.kind == HostKind::local && (here.empty() || name == "local")) here = name;
  int locals = 0;
  for (const auto& [name, h] : p.hosts) locals += h.kind == HostKind::local ? 1 : 0;
  for (const char* role : kPlaceRoles) {
    if (p.roles.contains(role)) continue;
    if (here.empty() || (locals > 1 && here != "local"))
      throw UsageError(std::string("--place: where does ") + role + " run? (" + file->path +
                       " has " + (here.empty() ? "no local host" : "several local hosts") + ")");
    p.roles[role] = {here};
  }
}

// Every host another role reaches has its address in the hosts file.
void check_addresses(const Placement& p, const HostsFile* file) {
  if (p.remote_load()) {
    // The load connects to the services from another machine: to their host's address.
    for (const char* role : {"gateway", "backend"}) {
      const Host& h = p.host_of(role);
      if (h.address.empty())
        throw UsageError(
            file->path + ": " + common::pointer_token("hosts") + common::pointer_token(h.name) +
            "/address: missing; the load on another host reaches the " + role + " there");
    }
  }
  if (p.spans_hosts()) {
    // Every service is reached at its host's address by some role on another host.
    for (const char* role : {"backend", "gateway", "control"}) {
      const Host& h = p.host_of(role);
      if (h.address.empty())
        throw UsageError(file->path + ": " + common::pointer_token("hosts") +
                         common::pointer_token(h.name) +
                         "/address: missing; roles on other hosts reach the " + role + " there");
    }
  }
}

}  // namespace

Placement make_placement(const HostsFile* file, const std::string& spec) {
  Placement p;
  if (file != nullptr) {
    p.hosts = file->hosts;
  } else {
    p.hosts["local"] = Host{"local", HostKind::local, "", "", 22, "", {}, "", "", ""};
  }
  if (!spec.empty() && file == nullptr) throw UsageError("--place: needs --hosts FILE");
  for (std::size_t start = 0; start < spec.size();) {
    std::size_t comma = spec.find(',', start);
    if (comma == std::string::npos) comma = spec.size();
    place_item(p, file, spec.substr(start, comma - start));
    start = comma + 1;
  }
  place_the_rest_here(p, file);
  check_addresses(p, file);
  return p;
}

}  // namespace gatebench::macro
