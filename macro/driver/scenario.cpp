#include "macro/driver/scenario.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "macro/driver/scenario_blocks.hpp"

namespace gatebench::macro {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

// Walks one JSON object and names the file and field in every complaint.
class Fields {
 public:
  Fields(const json& object, std::string file, std::string path)
      : object_(object), file_(std::move(file)), path_(std::move(path)) {
    if (!object_.is_object()) fail(path_.empty() ? "(top level)" : path_, "expected an object");
  }

  [[noreturn]] void fail(const std::string& field, const std::string& what) const {
    throw ScenarioError(file_ + ": " + field + ": " + what);
  }
  std::string field(const std::string& key) const {
    return path_.empty() ? key : path_ + "." + key;
  }

  void allow_only(std::initializer_list<const char*> keys) const {
    for (const auto& [key, value] : object_.items()) {
      if (std::none_of(keys.begin(), keys.end(), [&](const char* k) { return key == k; })) {
        fail(field(key), "unknown field");
      }
    }
  }
  bool has(const std::string& key) const { return object_.contains(key); }
  const json& at(const std::string& key) const { return object_.at(key); }

  std::string string(const std::string& key, std::optional<std::string> fallback = {}) const {
    if (!has(key)) {
      if (fallback) return *fallback;
      fail(field(key), "missing (expected a string)");
    }
    if (!at(key).is_string()) fail(field(key), "expected a string");
    return at(key).get<std::string>();
  }
  double number(const std::string& key, double fallback, double min, double max) const {
    if (!has(key)) return fallback;
    if (!at(key).is_number()) fail(field(key), "expected a number");
    double value = at(key).get<double>();
    if (value < min || value > max) {
      std::ostringstream msg;
      msg << "expected a number from " << min << " to " << max;
      fail(field(key), msg.str());
    }
    return value;
  }
  int integer(const std::string& key, int fallback, int min, int max) const {
    if (has(key) && !at(key).is_number_integer()) fail(field(key), "expected an integer");
    return static_cast<int>(number(key, fallback, min, max));
  }
  bool boolean(const std::string& key, bool fallback) const {
    if (!has(key)) return fallback;
    if (!at(key).is_boolean()) fail(field(key), "expected true or false");
    return at(key).get<bool>();
  }
  std::vector<std::string> strings(const std::string& key) const {
    std::vector<std::string> out;
    if (!has(key)) return out;
    if (!at(key).is_array()) fail(field(key), "expected an array of strings");
    for (size_t i = 0; i < at(key).size(); ++i) {
      if (!at(key)[i].is_string()) {
        fail(field(key) + "[" + std::to_string(i) + "]", "expected a string");
      }
      out.push_back(at(key)[i].get<std::string>());
    }
    return out;
  }
  std::map<std::string, std::string> string_map(const std::string& key) const {
    std::map<std::string, std::string> out;
    if (!has(key)) return out;
    if (!at(key).is_object()) fail(field(key), "expected an object of strings");
    for (const auto& [name, value] : at(key).items()) {
      if (!value.is_string()) fail(field(key) + "." + name, "expected a string");
      out[name] = value.get<std::string>();
    }
    return out;
  }
  Fields object(const std::string& key) const {
    if (!has(key)) fail(field(key), "missing (expected an object)");
    return Fields(at(key), file_, field(key));
  }
  const std::string& file() const { return file_; }

 private:
  const json& object_;
  std::string file_;
  std::string path_;
};

bool is_name(const std::string& text) {
  return !text.empty() && std::all_of(text.begin(), text.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_';
  });
}

// Relative paths inside the run or configs directory: no escaping with .. or /.
bool is_relative_path(const std::string& text) {
  if (text.empty() || text.front() == '/') return false;
  for (const auto& part : fs::path(text)) {
    if (part == "..") return false;
  }
  return true;
}

ReadyCheck parse_ready(const Fields& f, const std::map<std::string, int>& ports) {
  f.allow_only({"port", "http", "timeout_s"});
  ReadyCheck ready;
  ready.port = f.string("port");
  if (!ports.contains(ready.port)) f.fail(f.field("port"), "'" + ready.port + "' is not in ports");
  ready.http_path = f.string("http", "");
  if (!ready.http_path.empty() && ready.http_path.front() != '/') {
    f.fail(f.field("http"), "expected a path starting with /");
  }
  ready.timeout_s = f.number("timeout_s", 10, 0.1, 300);
  return ready;
}

ServiceSpec parse_service(const Fields& f, const std::map<std::string, int>& ports) {
  f.allow_only(
      {"name", "role", "binary", "args", "env", "configs", "dirs", "discard", "ready", "sample"});
  ServiceSpec service;
  service.name = f.string("name");
  if (!is_name(service.name)) f.fail(f.field("name"), "expected [a-z0-9_-]+");
  std::string role = f.string("role");
  auto parsed = parse_role(role);
  if (!parsed || *parsed == Role::load) f.fail(f.field("role"), "expected backend or gateway");
  service.role = *parsed;
  service.binary = f.string("binary");
  if (!is_name(service.binary)) f.fail(f.field("binary"), "expected a tool name such as nginx");
  service.args = f.strings("args");
  service.env = f.string_map("env");
  if (f.has("configs")) {
    if (!f.at("configs").is_array()) f.fail(f.field("configs"), "expected an array");
    for (size_t i = 0; i < f.at("configs").size(); ++i) {
      Fields c(f.at("configs")[i], f.file(), f.field("configs") + "[" + std::to_string(i) + "]");
      c.allow_only({"template", "output"});
      ConfigFile config{c.string("template"), c.string("output")};
      if (!is_relative_path(config.template_name)) {
        c.fail(c.field("template"), "expected a path inside the configs directory");
      }
      if (!is_relative_path(config.output)) {
        c.fail(c.field("output"), "expected a path inside the run directory");
      }
      service.configs.push_back(config);
    }
  }
  for (const char* key : {"dirs", "discard"}) {
    std::vector<std::string> paths = f.strings(key);
    for (size_t i = 0; i < paths.size(); ++i) {
      if (!is_relative_path(paths[i])) {
        f.fail(f.field(key) + "[" + std::to_string(i) + "]",
               "expected a path inside the run directory");
      }
    }
    (std::string_view(key) == "dirs" ? service.dirs : service.discard) = std::move(paths);
  }
  service.ready = parse_ready(f.object("ready"), ports);
  service.sample = f.boolean("sample", service.role == Role::gateway);
  return service;
}

PrepareStep parse_prepare(const Fields& f, const std::map<std::string, int>& ports) {
  PrepareStep step;
  step.step = f.string("step");
  if (step.step == "tls-cert") {
    f.allow_only({"step", "cert", "key"});
    step.params["cert"] = f.string("cert", "tls.crt");
    step.params["key"] = f.string("key", "tls.key");
    for (const auto& [name, path] : step.params) {
      if (!is_relative_path(path))
        f.fail(f.field(name), "expected a path inside the run directory");
    }
  } else if (step.step == "cookies") {
    f.allow_only({"step", "port", "get", "headers", "cookie"});
    step.port = f.string("port");
    if (!ports.contains(step.port)) f.fail(f.field("port"), "'" + step.port + "' is not in ports");
    step.get = f.strings("get");
    if (step.get.empty()) f.fail(f.field("get"), "expected a non-empty array of paths");
    for (size_t i = 0; i < step.get.size(); ++i) {
      if (step.get[i].empty() || step.get[i].front() != '/') {
        f.fail(f.field("get") + "[" + std::to_string(i) + "]", "expected a path starting with /");
      }
    }
    step.headers = f.strings("headers");
    for (size_t i = 0; i < step.headers.size(); ++i) {
      if (step.headers[i].find(':') == std::string::npos) {
        f.fail(f.field("headers") + "[" + std::to_string(i) + "]", "expected 'Name: value'");
      }
    }
    step.cookie = f.string("cookie");
    if (!is_name(step.cookie)) f.fail(f.field("cookie"), "expected a cookie name [a-z0-9_-]+");
  } else {
    f.fail(f.field("step"), "expected tls-cert or cookies");
  }
  return step;
}

LoadSpec parse_load(const Fields& f, const std::map<std::string, int>& ports) {
  f.allow_only({"port", "scheme", "host", "path", "headers", "close", "mode", "rate", "requests",
                "slo_p99_us", "connections", "tls_resume"});
  LoadSpec load;
  load.port = f.string("port");
  if (!ports.contains(load.port)) f.fail(f.field("port"), "'" + load.port + "' is not in ports");
  load.scheme = f.string("scheme", "http");
  if (load.scheme != "http" && load.scheme != "https")
    f.fail(f.field("scheme"), "expected http or https");
  load.host = f.string("host", "127.0.0.1");
  load.path = f.string("path", "/");
  if (load.path.empty() || load.path.front() != '/')
    f.fail(f.field("path"), "expected a path starting with /");
  load.headers = f.strings("headers");
  for (size_t i = 0; i < load.headers.size(); ++i) {
    if (load.headers[i].find(':') == std::string::npos) {
      f.fail(f.field("headers") + "[" + std::to_string(i) + "]", "expected 'Name: value'");
    }
  }
  load.close = f.boolean("close", false);
  load.tls_resume = f.boolean("tls_resume", true);
  std::string mode = f.string("mode", "closed");
  if (mode == "closed") {
    load.mode = LoadMode::closed;
  } else if (mode == "rate") {
    load.mode = LoadMode::rate;
  } else if (mode == "search") {
    load.mode = LoadMode::search;
  } else {
    f.fail(f.field("mode"), "expected closed, rate or search");
  }
  load.rate = f.number("rate", 10000, 1, 1e8);
  load.requests = f.string("requests", "");
  if (!load.requests.empty() && !is_relative_path(load.requests)) {
    f.fail(f.field("requests"), "expected a path inside the configs directory");
  }
  load.slo_p99_us = f.number("slo_p99_us", 0, 0, 1e9);
  if (load.mode == LoadMode::search && load.slo_p99_us <= 0) {
    f.fail(f.field("slo_p99_us"), "mode search needs a p99 objective in microseconds");
  }
  load.connections = f.integer("connections", 0, 0, 100000);
  return load;
}

Scenario parse_object(const json& object, const std::string& file) {
  Fields f(object, file, "");
  f.allow_only({"name", "description", "order", "requires", "ports", "services", "prepare", "load",
                "baseline", "latency_baseline"});
  Scenario s;
  s.file = file;
  s.name = f.string("name");
  s.description = f.string("description");
  s.order = f.integer("order", 100, 0, 100000);
  s.requires_tools = f.strings("requires");
  for (size_t i = 0; i < s.requires_tools.size(); ++i) {
    if (!is_name(s.requires_tools[i])) {
      f.fail("requires[" + std::to_string(i) + "]", "expected a tool name");
    }
  }
  Fields ports = f.object("ports");
  for (const auto& [name, value] : f.at("ports").items()) {
    if (!is_name(name)) ports.fail(ports.field(name), "expected a name [a-z0-9_-]+");
    s.ports[name] = ports.integer(name, 0, 1024, 65535);
  }
  if (s.ports.empty()) f.fail("ports", "expected at least one port");
  if (!f.has("services") || !f.at("services").is_array() || f.at("services").empty()) {
    f.fail("services", "expected a non-empty array");
  }
  std::set<std::string> names;
  for (size_t i = 0; i < f.at("services").size(); ++i) {
    Fields sf(f.at("services")[i], file, "services[" + std::to_string(i) + "]");
    ServiceSpec service = parse_service(sf, s.ports);
    if (!names.insert(service.name).second) sf.fail(sf.field("name"), "duplicate service name");
    s.services.push_back(std::move(service));
  }
  // Without a gateway the backend is what the scenario measures (direct).
  if (std::none_of(s.services.begin(), s.services.end(), [](const ServiceSpec& svc) {
        return svc.role == Role::gateway || svc.sample;
      })) {
    for (auto& svc : s.services) svc.sample = true;
  }
  if (f.has("prepare")) {
    if (!f.at("prepare").is_array()) f.fail("prepare", "expected an array");
    for (size_t i = 0; i < f.at("prepare").size(); ++i) {
      s.prepare.push_back(parse_prepare(
          Fields(f.at("prepare")[i], file, "prepare[" + std::to_string(i) + "]"), s.ports));
    }
  }
  s.load = parse_load(f.object("load"), s.ports);
  s.baseline = f.string("baseline", "nginx-baseline");
  s.latency_baseline = f.string("latency_baseline", "");
  return s;
}

json read_json(const fs::path& path) {
  std::ifstream in(path);
  if (!in) throw ScenarioError(path.string() + ": cannot read");
  try {
    return json::parse(in);
  } catch (const json::parse_error& e) {
    throw ScenarioError(path.string() + ": not valid JSON: " + e.what());
  }
}

}  // namespace

Role Scenario::target_role() const {
  bool has_gateway = std::any_of(services.begin(), services.end(),
                                 [](const ServiceSpec& s) { return s.role == Role::gateway; });
  return has_gateway ? Role::gateway : Role::backend;
}

Scenario parse_scenario(const std::string& text, const std::string& file) {
  json object;
  try {
    object = json::parse(text);
  } catch (const json::parse_error& e) {
    throw ScenarioError(file + ": not valid JSON: " + e.what());
  }
  return parse_object(object, file);
}

std::vector<Scenario> load_scenarios(const std::string& dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) throw ScenarioError(dir + ": not a directory of scenario files");
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.is_regular_file() && entry.path().extension() == ".json")
      files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  if (files.empty()) throw ScenarioError(dir + ": no scenario files (*.json)");

  // Plain scenarios first, so "over" files can refer to any of them.
  std::map<std::string, json> plain;
  std::vector<std::pair<fs::path, json>> derived;
  std::vector<Scenario> out;
  for (const auto& path : files) {
    json object = read_json(path);
    resolve_service_blocks(object, path);
    const std::string file = path.string();
    if (object.is_object() && object.contains("name") && object["name"].is_string() &&
        object["name"].get<std::string>() != path.stem().string()) {
      throw ScenarioError(file + ": name: expected '" + path.stem().string() +
                          "' (the file name without .json)");
    }
    if (object.is_object() && object.contains("over")) {
      derived.emplace_back(path, std::move(object));
      continue;
    }
    Scenario s = parse_object(object, file);
    plain[s.name] = object;
    out.push_back(std::move(s));
  }
  for (const auto& [path, object] : derived) {
    const std::string file = path.string();
    Fields f(object, file, "");
    f.allow_only({"name", "description", "order", "over", "load"});
    std::vector<std::string> over = f.strings("over");
    if (over.empty()) f.fail("over", "expected a non-empty array of scenario names");
    Fields load = f.object("load");
    for (size_t i = 0; i < over.size(); ++i) {
      auto base = plain.find(over[i]);
      if (base == plain.end()) {
        f.fail("over[" + std::to_string(i) + "]", "no scenario named '" + over[i] + "'");
      }
      json merged = base->second;
      merged["name"] = f.string("name") + "/" + over[i];
      merged["description"] = f.string("description") + " (" + over[i] + ")";
      merged["order"] = f.integer("order", 100, 0, 100000);
      merged["load"].update(object.at("load"));
      // A derived scenario compares with the same derivation of the nginx baseline.
      merged["baseline"] = f.string("name") + "/nginx-baseline";
      Scenario s = parse_object(merged, file + " (over " + over[i] + ")");
      s.file = file;
      s.group = f.string("name");
      out.push_back(std::move(s));
    }
  }
  std::stable_sort(out.begin(), out.end(), [](const Scenario& a, const Scenario& b) {
    return a.order != b.order ? a.order < b.order : a.name < b.name;
  });
  return out;
}

}  // namespace gatebench::macro
