#include "macro/driver/plan/scenario.hpp"

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>

#include "macro/common/json_field.hpp"
#include "macro/driver/plan/names.hpp"
#include "macro/driver/plan/scenario_blocks.hpp"
#include "macro/driver/plan/scenario_names.hpp"

namespace gatebench::macro {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

using common::JsonField;

// A member that must be an object ("missing (expected an object)" otherwise).
JsonField object_at(const JsonField& f, const char* key) {
  JsonField child = f.child(key);
  child.expect_object();
  return child;
}

int int_or(const JsonField& f, const char* key, int fallback, int min, int max) {
  return static_cast<int>(f.integer_or(key, fallback, min, max));
}

// Relative paths inside the run or configs directory: no escaping with .. or /.
bool is_relative_path(const std::string& text) {
  if (text.empty() || text.front() == '/') return false;
  for (const auto& part : fs::path(text)) {
    if (part == "..") return false;
  }
  return true;
}

ReadyCheck parse_ready(const JsonField& f, const std::map<std::string, int>& ports) {
  f.allow_only({"port", "http", "timeout_s"});
  ReadyCheck ready;
  ready.port = f.child("port").string();
  if (!ports.contains(ready.port)) f.child("port").fail("'" + ready.port + "' is not in ports");
  ready.http_path = f.string_or("http", "");
  if (!ready.http_path.empty() && ready.http_path.front() != '/') {
    f.child("http").fail("expected a path starting with /");
  }
  ready.timeout_s = f.number_or("timeout_s", 10, 0.1, 300);
  return ready;
}

ServiceSpec parse_service(const JsonField& f, const std::map<std::string, int>& ports) {
  f.allow_only({"name", "role", "binary", "image", "mount", "args", "env", "configs", "dirs",
                "discard", "ready", "sample", "templates"});
  ServiceSpec service;
  service.name = f.child("name").string();
  if (!is_name(service.name)) f.child("name").fail("expected [a-z0-9_-]+");
  std::string role = f.child("role").string();
  auto parsed = parse_role(role);
  if (!parsed || *parsed == Role::load) f.child("role").fail("expected backend or gateway");
  service.role = *parsed;
  if (f.has("image")) {
    if (f.has("binary")) f.child("image").fail("expected either \"binary\" or \"image\", not both");
    service.image = f.child("image").string();
    if (!is_image_reference(service.image))
      f.child("image").fail("expected a local image name or ID (localhost/mygw:1.0, 3f2a...)");
    service.image_at = f.child("image").pointer();
    if (f.has("mount")) {
      service.mount = f.child("mount").string();
      if (!is_container_dir(service.mount))
        f.child("mount").fail("expected an absolute directory inside the image, such as /etc/mygw");
    }
  } else {
    if (f.has("mount")) f.child("mount").fail("only with \"image\" (a directory inside it)");
    service.binary = f.child("binary").string();
    if (!is_name(service.binary)) f.child("binary").fail("expected a tool name such as nginx");
  }
  service.args = f.child("args").strings();
  service.env = f.child("env").string_map();
  // Names go before the command (`env K=V exe` on an ssh host): "-i" or "A=B" would change it.
  for (const auto& [name, value] : service.env)
    if (!is_env_name(name))
      f.child("env").child(name).fail(
          "expected an environment variable name [A-Za-z_][A-Za-z0-9_]*");
  if (f.has("configs")) {
    const JsonField configs = f.child("configs");
    configs.expect_array();
    for (size_t i = 0; i < configs.size(); ++i) {
      const JsonField c = configs.at(i);
      c.allow_only({"template", "output"});
      ConfigFile config{c.child("template").string(), c.child("output").string()};
      if (!is_relative_path(config.template_name)) {
        c.child("template").fail("expected a path inside the configs directory");
      }
      if (!is_relative_path(config.output)) {
        c.child("output").fail("expected a path inside the run directory");
      }
      service.configs.push_back(config);
    }
  }
  for (const char* key : {"dirs", "discard"}) {
    std::vector<std::string> paths = f.child(key).strings();
    for (size_t i = 0; i < paths.size(); ++i) {
      if (!is_relative_path(paths[i])) {
        f.child(key).at(i).fail("expected a path inside the run directory");
      }
    }
    (std::string_view(key) == "dirs" ? service.dirs : service.discard) = std::move(paths);
  }
  service.ready = parse_ready(object_at(f, "ready"), ports);
  service.sample = f.boolean_or("sample", service.role == Role::gateway);
  service.templates = f.string_or("templates", "");
  if (!service.templates.empty() && service.templates.front() != '/')
    f.child("templates").fail("expected an absolute directory");
  return service;
}

PrepareStep parse_prepare(const JsonField& f, const std::map<std::string, int>& ports) {
  f.expect_object();
  PrepareStep step;
  step.step = f.child("step").string();
  if (step.step == "tls-cert") {
    f.allow_only({"step", "cert", "key"});
    step.params["cert"] = f.string_or("cert", "tls.crt");
    step.params["key"] = f.string_or("key", "tls.key");
    for (const auto& [name, path] : step.params) {
      if (!is_relative_path(path)) f.child(name).fail("expected a path inside the run directory");
    }
  } else if (step.step == "cookies") {
    f.allow_only({"step", "port", "get", "headers", "cookie"});
    step.port = f.child("port").string();
    if (!ports.contains(step.port)) f.child("port").fail("'" + step.port + "' is not in ports");
    step.get = f.child("get").strings();
    if (step.get.empty()) f.child("get").fail("expected a non-empty array of paths");
    for (size_t i = 0; i < step.get.size(); ++i) {
      if (step.get[i].empty() || step.get[i].front() != '/') {
        f.child("get").at(i).fail("expected a path starting with /");
      }
    }
    step.headers = f.child("headers").strings();
    for (size_t i = 0; i < step.headers.size(); ++i) {
      if (step.headers[i].find(':') == std::string::npos) {
        f.child("headers").at(i).fail("expected 'Name: value'");
      }
    }
    step.cookie = f.child("cookie").string();
    if (!is_name(step.cookie)) f.child("cookie").fail("expected a cookie name [a-z0-9_-]+");
  } else {
    f.child("step").fail("expected tls-cert or cookies");
  }
  return step;
}

LoadSpec parse_load(const JsonField& f, const std::map<std::string, int>& ports) {
  f.allow_only({"port", "scheme", "host", "path", "headers", "close", "mode", "rate", "requests",
                "slo_p99_us", "connections", "tls_resume", "http2", "streams", "threads",
                "requests_total"});
  LoadSpec load;
  load.port = f.child("port").string();
  if (!ports.contains(load.port)) f.child("port").fail("'" + load.port + "' is not in ports");
  load.scheme = f.string_or("scheme", "http");
  if (load.scheme != "http" && load.scheme != "https")
    f.child("scheme").fail("expected http or https");
  load.host = f.string_or("host", "127.0.0.1");
  load.path = f.string_or("path", "/");
  if (load.path.empty() || load.path.front() != '/')
    f.child("path").fail("expected a path starting with /");
  load.headers = f.child("headers").strings();
  for (size_t i = 0; i < load.headers.size(); ++i) {
    if (load.headers[i].find(':') == std::string::npos) {
      f.child("headers").at(i).fail("expected 'Name: value'");
    }
  }
  load.close = f.boolean_or("close", false);
  load.tls_resume = f.boolean_or("tls_resume", true);
  std::string mode = f.string_or("mode", "closed");
  if (mode == "closed") {
    load.mode = LoadMode::closed;
  } else if (mode == "rate") {
    load.mode = LoadMode::rate;
  } else if (mode == "search") {
    load.mode = LoadMode::search;
  } else {
    f.child("mode").fail("expected closed, rate or search");
  }
  load.rate = f.number_or("rate", 10000, 1, 1e8);
  load.requests = f.string_or("requests", "");
  if (!load.requests.empty() && !is_relative_path(load.requests)) {
    f.child("requests").fail("expected a path inside the configs directory");
  }
  load.slo_p99_us = f.number_or("slo_p99_us", 0, 0, 1e9);
  if (load.mode == LoadMode::search && load.slo_p99_us <= 0) {
    f.child("slo_p99_us").fail("mode search needs a p99 objective in microseconds");
  }
  load.connections = int_or(f, "connections", 0, 0, 100000);
  load.threads = int_or(f, "threads", 0, 1, 1024);
  load.http2 = f.boolean_or("http2", false);
  load.streams = int_or(f, "streams", 1, 1, 1000);
  if (!load.http2 && f.child("streams").present())
    f.child("streams").fail("streams needs \"http2\": true (HTTP/1.1 has one request in flight)");
  if (load.http2 && load.close) f.child("close").fail("close is not supported with http2");
  load.requests_total = static_cast<uint64_t>(f.integer_or("requests_total", 0, 1, 1'000'000'000));
  if (load.requests_total > 0 && load.mode != LoadMode::closed)
    f.child("requests_total").fail("a request count needs mode closed");
  if (load.requests_total > 0 && load.connections == 0)
    f.child("requests_total").fail("a request count needs its \"connections\"");
  return load;
}

Scenario parse_object(const json& object, const std::string& file) {
  const JsonField f(object, file);
  f.allow_only({"name", "description", "order", "requires", "ports", "services", "prepare", "load",
                "baseline", "latency_baseline", "max_error_rate", "cache"});
  Scenario s;
  s.file = file;
  s.name = f.child("name").string();
  // The name is the run directory's name (round-N/<name>, round-N/<name>/<over> for an
  // expansion of an "over" file): no segment may be "..", ".", or empty.
  for (size_t at = 0;;) {
    const size_t slash = s.name.find('/', at);
    if (!is_name(s.name.substr(at, slash - at))) f.child("name").fail("expected [a-z0-9_-]+");
    if (slash == std::string::npos) break;
    at = slash + 1;
  }
  s.description = f.child("description").string();
  s.order = int_or(f, "order", 100, 0, 100000);
  s.requires_tools = f.child("requires").strings();
  for (size_t i = 0; i < s.requires_tools.size(); ++i) {
    const std::string& r = s.requires_tools[i];
    if (!is_name(r) && !(r.size() > 1 && r.front() == '/'))
      f.child("requires").at(i).fail("expected a tool name or an absolute path");
  }
  if (const JsonField rate = f.child("max_error_rate"); rate.present()) {
    if (!rate.json().is_number() || rate.json().get<double>() < 0 || rate.json().get<double>() > 1)
      rate.fail("expected a share of requests from 0 to 1");
    s.max_error_rate = rate.json().get<double>();
  }
  const JsonField ports = object_at(f, "ports");
  for (const std::string& name : ports.keys()) {
    if (!is_name(name)) ports.child(name).fail("expected a name [a-z0-9_-]+");
    s.ports[name] = static_cast<int>(ports.child(name).integer(1024, 65535));
  }
  if (s.ports.empty()) ports.fail("expected at least one port");
  const JsonField services = f.child("services");
  if (!services.present() || !services.json().is_array() || services.size() == 0) {
    services.fail("expected a non-empty array");
  }
  std::set<std::string> names;
  for (size_t i = 0; i < services.size(); ++i) {
    const JsonField sf = services.at(i);
    sf.expect_object();
    ServiceSpec service = parse_service(sf, s.ports);
    if (!names.insert(service.name).second) sf.child("name").fail("duplicate service name");
    s.services.push_back(std::move(service));
  }
  // Without a gateway the backend is what the scenario measures (direct).
  if (std::none_of(s.services.begin(), s.services.end(), [](const ServiceSpec& svc) {
        return svc.role == Role::gateway || svc.sample;
      })) {
    for (auto& svc : s.services) svc.sample = true;
  }
  if (f.has("prepare")) {
    const JsonField prepare = f.child("prepare");
    prepare.expect_array();
    for (size_t i = 0; i < prepare.size(); ++i) {
      s.prepare.push_back(parse_prepare(prepare.at(i), s.ports));
    }
  }
  s.load = parse_load(object_at(f, "load"), s.ports);
  if (f.has("cache")) s.cache = parse_cache_check(f.child("cache"));
  s.baseline = f.string_or("baseline", "nginx-baseline");
  s.latency_baseline = f.string_or("latency_baseline", "");
  return s;
}

}  // namespace

Role Scenario::target_role() const {
  bool has_gateway = std::any_of(services.begin(), services.end(),
                                 [](const ServiceSpec& s) { return s.role == Role::gateway; });
  return has_gateway ? Role::gateway : Role::backend;
}

Scenario parse_scenario(const std::string& text, const std::string& file) {
  return parse_object(common::parse_json_text(text, file), file);
}

Scenario parse_scenario_object(const json& object, const std::string& file) {
  return parse_object(object, file);
}

ServiceSpec parse_service_spec(const JsonField& f, const std::map<std::string, int>& ports) {
  f.expect_object();
  return parse_service(f, ports);
}

namespace {

// The scenario files of `dir` (names.json aside), sorted by name.
std::vector<fs::path> scenario_files(const std::string& dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) throw ScenarioError(dir + ": not a directory of scenario files");
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.is_regular_file() && entry.path().extension() == ".json" &&
        entry.path().filename() != kNamesFile)
      files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  if (files.empty()) throw ScenarioError(dir + ": no scenario files (*.json)");
  return files;
}

// One expansion of an "over" file `name`: the base scenario `base_name` (its object `merged`
// starts as) under the file's load, named <name>/<base_name>.
Scenario expand_over(const JsonField& f, const json& object, const std::string& name,
                     const std::vector<std::string>& over, const std::string& base_name,
                     json merged) {
  merged["name"] = name + "/" + base_name;
  merged["description"] = f.child("description").string() + " (" + base_name + ")";
  merged["order"] = int_or(f, "order", 100, 0, 100000);
  merged["load"].update(object.at("load"));
  // A derived scenario compares with the same derivation of the nginx baseline.
  merged["baseline"] = name + "/nginx-baseline";
  // Its latency baseline is the same derivation of the base's, when the file expands that
  // one too; a plain scenario's latency under another load would compare nothing.
  if (merged.contains("latency_baseline") && merged["latency_baseline"].is_string()) {
    const std::string latency = merged["latency_baseline"].get<std::string>();
    if (std::find(over.begin(), over.end(), latency) != over.end())
      merged["latency_baseline"] = name + "/" + latency;
    else
      merged.erase("latency_baseline");
  }
  // The expansions' error budget: the file's, else the base's.
  if (object.contains("max_error_rate")) merged["max_error_rate"] = object["max_error_rate"];
  const std::string file = f.file();
  Scenario s = parse_object(merged, file + " (over " + base_name + ")");
  s.file = file;
  s.group = name;
  return s;
}

// Every expansion of one "over" file, over the plain scenarios and named pairs.
void expand_over_file(const fs::path& path, const json& object,
                      const std::map<std::string, json>& plain, std::vector<Scenario>& out) {
  const std::string file = path.string();
  const JsonField f(object, file);
  f.allow_only({"name", "description", "order", "over", "load", "max_error_rate"});
  std::vector<std::string> over = f.child("over").strings();
  if (over.empty()) f.child("over").fail("expected a non-empty array of scenario names");
  object_at(f, "load");
  const std::string name = f.child("name").string();
  for (size_t i = 0; i < over.size(); ++i) {
    auto base = plain.find(over[i]);
    if (base == plain.end()) {
      f.child("over").at(i).fail("no scenario named '" + over[i] + "'");
    }
    out.push_back(expand_over(f, object, name, over, over[i], base->second));
  }
}

}  // namespace

std::vector<Scenario> load_scenarios(const std::string& dir) {
  const std::vector<fs::path> files = scenario_files(dir);
  // Plain scenarios first, so "over" files can refer to any of them.
  std::map<std::string, json> plain;
  std::vector<std::pair<fs::path, json>> derived;
  std::vector<Scenario> out;
  for (const auto& path : files) {
    json object = common::read_json_file(path.string());
    resolve_service_blocks(object, path);
    const std::string file = path.string();
    if (object.is_object() && object.contains("name") && object["name"].is_string() &&
        object["name"].get<std::string>() != path.stem().string()) {
      JsonField(object, file)
          .child("name")
          .fail("expected '" + path.stem().string() + "' (the file name without .json)");
    }
    if (object.is_object() && object.contains("over")) {
      derived.emplace_back(path, std::move(object));
      continue;
    }
    Scenario s = parse_object(object, file);
    plain[s.name] = object;
    out.push_back(std::move(s));
  }
  // The names of pairs (names.json), beside the files: "over" files may name them too.
  for (NamedScenario& named : named_scenarios(dir)) {
    if (plain.contains(named.pair.name))
      throw ScenarioError((fs::path(dir) / kNamesFile).string() + ": " +
                          common::pointer_token(named.pair.name) + ": also the scenario file " +
                          named.pair.name + ".json: one or the other");
    plain[named.pair.name] = std::move(named.object);
    out.push_back(std::move(named.scenario));
  }
  for (const auto& [path, object] : derived) expand_over_file(path, object, plain, out);
  std::stable_sort(out.begin(), out.end(), [](const Scenario& a, const Scenario& b) {
    return a.order != b.order ? a.order < b.order : a.name < b.name;
  });
  return out;
}

}  // namespace gatebench::macro
