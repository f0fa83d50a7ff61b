#include "macro/driver/plan/targets.hpp"

#include <algorithm>
#include <array>
#include <filesystem>

#include "macro/common/json_field.hpp"
#include "macro/common/usage_error.hpp"
#include "macro/driver/plan/names.hpp"
#include "macro/driver/plan/scenario_blocks.hpp"
#include "macro/driver/system/env_info.hpp"

namespace gatebench::macro {
namespace {

using common::JsonField;
using nlohmann::json;
namespace fs = std::filesystem;

// The shipped backend of every expansion (services/backend.json) and its port.
constexpr const char* kBackendPort = "backend";
constexpr int kBackendPortNumber = 18080;

// The fields of the target's own service that a target file and each of its features may set.
constexpr std::array<std::string_view, 7> kServiceKeys = {"binary", "args",    "env",  "configs",
                                                          "dirs",   "discard", "ready"};

std::string join(const std::set<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

// `from`'s service fields over `into`: each replaces the field of that name whole, except `env`,
// whose variables are added (as a scenario entry over a block, scenario_blocks.hpp).
void apply_service_fields(json& into, const json& from) {
  for (std::string_view key : kServiceKeys) {
    const std::string k(key);
    if (!from.contains(k)) continue;
    if (k == "env" && into.contains("env") && into["env"].is_object() && from[k].is_object())
      into["env"].update(from[k]);
    else
      into[k] = from[k];
  }
}

// A tls-cert step with its defaults written out, so the target's and the workload's same step
// are recognised as one.
json normalized_step(json step) {
  if (step.is_object() && step.value("step", "") == "tls-cert") {
    if (!step.contains("cert")) step["cert"] = "tls.crt";
    if (!step.contains("key")) step["key"] = "tls.key";
  }
  return step;
}

std::map<std::string, int> port_map(const json& ports) {
  std::map<std::string, int> out;
  for (const auto& [name, value] : ports.items()) out[name] = value.get<int>();
  return out;
}

void read_ports(const JsonField& f, json& into) {
  f.expect_object();
  for (const std::string& name : f.keys()) {
    if (!is_name(name)) f.child(name).fail("expected a name [a-z0-9_-]+");
    if (name == kBackendPort)
      f.child(name).fail("reserved for the shipped backend (port 18080 of every expansion)");
    into[name] = f.child(name).integer(1024, 65535);
  }
}

Workload parse_workload(const fs::path& path) {
  const std::string file = path.string();
  const json doc = common::read_json_file(file);
  const JsonField f(doc, file);
  f.expect_object();
  f.allow_only({"name", "description", "order", "feature", "baseline", "baseline_workload",
                "latency_baseline", "cache", "needs", "prepare", "load"});
  Workload w;
  w.file = file;
  w.name = f.child("name").string();
  if (w.name != path.stem().string())
    f.child("name").fail("expected '" + path.stem().string() + "' (the file name without .json)");
  w.description = f.child("description").string();
  w.order = static_cast<int>(f.integer_or("order", 100, 0, 100000));
  w.feature = f.child("feature").string();
  if (!is_name(w.feature)) f.child("feature").fail("expected a feature name [a-z0-9_-]+");
  w.baseline = f.child("baseline").string();
  if (!is_name(w.baseline)) f.child("baseline").fail("expected a target name [a-z0-9_-]+");
  for (const char* key : {"baseline_workload", "latency_baseline"}) {
    const std::string name = f.string_or(key, "");
    if (f.has(key) && !is_name(name)) f.child(key).fail("expected a workload name [a-z0-9_-]+");
  }
  w.baseline_workload = f.string_or("baseline_workload", "");
  w.latency_baseline = f.string_or("latency_baseline", "");
  if (f.has("cache")) {
    const JsonField cache = f.child("cache");
    cache.expect_object();
    cache.allow_only({"expect_hit_ratio"});
    w.cache = cache.json();
  }
  w.needs = f.child("needs").string_map();
  for (const auto& [field, why] : w.needs) {
    if (field != "headers" && field != "path" && field != "cache")
      f.child("needs").child(field).fail(
          "expected headers, path or cache (what a feature can give)");
  }
  w.prepare = json::array();
  if (f.has("prepare")) {
    const JsonField prepare = f.child("prepare");
    prepare.expect_array();
    for (size_t i = 0; i < prepare.size(); ++i) {
      prepare.at(i).expect_object();
      w.prepare.push_back(normalized_step(prepare.at(i).json()));
    }
  }
  const JsonField load = f.child("load");
  load.expect_object();
  const std::string role = load.child("port").string();
  if (role != "http" && role != "https")
    load.child("port").fail("expected the role of a target port: http or https");
  w.load = load.json();
  return w;
}

// <baseline target>-<baseline workload>: the expansion the ratios of `w`'s expansions divide by.
std::string baseline_of(const Workload& w) {
  return w.baseline + "-" + (w.baseline_workload.empty() ? w.name : w.baseline_workload);
}

}  // namespace

std::string shipped_workloads_dir() {
  return (fs::path(source_dir()) / "macro" / "workloads").string();
}

std::string shipped_targets_dir() {
  return (fs::path(source_dir()) / "macro" / "targets").string();
}

std::vector<Workload> load_workloads(const std::string& dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) throw ScenarioError(dir + ": not a directory of workload files");
  std::vector<Workload> out;
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.is_regular_file() && entry.path().extension() == ".json")
      out.push_back(parse_workload(entry.path()));
  }
  if (out.empty()) throw ScenarioError(dir + ": no workload files (*.json)");
  std::set<std::string> names;
  for (const Workload& w : out) names.insert(w.name);
  for (const Workload& w : out) {
    for (const auto& [key, name] : {std::pair{"baseline_workload", w.baseline_workload},
                                    std::pair{"latency_baseline", w.latency_baseline}}) {
      if (!name.empty() && !names.contains(name))
        JsonField(json{{key, name}}, w.file)
            .child(key)
            .fail("no workload named '" + name + "' (known: " + join(names) + ")");
    }
  }
  std::sort(out.begin(), out.end(), [](const Workload& a, const Workload& b) {
    return a.order != b.order ? a.order < b.order : a.name < b.name;
  });
  return out;
}

std::string target_file(const std::string& name_or_file) {
  if (!is_name(name_or_file)) return name_or_file;
  const fs::path file = fs::path(shipped_targets_dir()) / (name_or_file + ".json");
  std::error_code ec;
  if (!fs::is_regular_file(file, ec)) {
    std::set<std::string> known;
    for (const auto& entry : fs::directory_iterator(shipped_targets_dir(), ec))
      if (entry.path().extension() == ".json") known.insert(entry.path().stem().string());
    throw common::UsageError("--target: no shipped target named '" + name_or_file +
                             "' (known: " + join(known) + "; a file of your own is a path)");
  }
  return file.string();
}

namespace {

// One target file read into a Target (load_target): what every feature shares (the templates,
// the ports, the target's own service, its companions and prepare steps), then each feature's
// offer. Holds JsonFields that point into its document: never copied.
class TargetReader {
 public:
  TargetReader(const std::string& file, const std::string& scenario_dir)
      : file_(file),
        doc_(common::read_json_file(file)),
        root_(doc_, file),
        blocks_dir_(fs::path(scenario_dir) / "services"),
        shipped_configs_(
            fs::absolute(fs::path(scenario_dir) / "configs").lexically_normal().string()) {}
  TargetReader(const TargetReader&) = delete;
  TargetReader& operator=(const TargetReader&) = delete;

  Target read(const std::vector<Workload>& workloads);

 private:
  void read_templates();
  void read_main_service();
  void read_image();
  json read_companions(const JsonField& list);
  Target::Offer read_offer(const std::string& feature, const std::vector<Workload>& workloads);
  void read_offer_fields(const JsonField& fe, Target::Offer& offer) const;
  std::string first_workload_port(const JsonField& fe, const std::string& feature,
                                  const Target::Offer& offer,
                                  const std::vector<Workload>& workloads) const;
  json feature_service(const JsonField& fe);
  void check_feature_files(const JsonField& fe, const std::string& feature, const json& service,
                           const json& companions, const std::map<std::string, int>& ports) const;

  const std::string file_;
  const json doc_;
  const JsonField root_;
  const fs::path blocks_dir_;
  const std::string shipped_configs_;
  // Empty for the shipped configs directory, so a shipped target's expansions are the shipped
  // scenario files' services field for field.
  std::string own_templates_;
  std::map<std::string, json> blocks_;
  json ports_ = json::object();
  json main_ = json::object();
  json companions_ = json::array();
  json prepare_ = json::array();
};

// Templates beside the target file unless it names another directory (relative to the file):
// a user's target needs nothing copied into the checkout.
void TargetReader::read_templates() {
  const fs::path base = fs::absolute(file_).parent_path();
  fs::path templates_path = (base / root_.string_or("templates", ".")).lexically_normal();
  if (!templates_path.has_filename()) templates_path = templates_path.parent_path();  // "dir/"
  const std::string templates = templates_path.string();
  std::error_code ec;
  if (!fs::is_directory(templates, ec)) root_.child("templates").fail("no directory " + templates);
  if (!fs::equivalent(templates, shipped_configs_, ec)) own_templates_ = templates;
}

// The target's own service: a shipped block ("use") or its own name, measured as the gateway.
void TargetReader::read_main_service() {
  if (root_.has("use")) {
    main_ = resolve_block(json{{"use", doc_["use"]}}, root_.child("use"), blocks_dir_, blocks_);
  } else {
    main_["name"] = root_.string_or("service", doc_.at("name").get<std::string>());
    if (!is_name(main_["name"].get<std::string>()))
      root_.child("service").fail("expected a service name [a-z0-9_-]+");
    if (!own_templates_.empty()) main_["templates"] = own_templates_;
  }
  main_["role"] = "gateway";  // the target is what is measured
  apply_service_fields(main_, doc_);
  read_image();
  if (!main_.contains("binary") && !main_.contains("image"))
    root_.child("binary").fail(
        "missing (expected the target's executable, e.g. lighttpd, or a local \"image\")");
}

// An image is the whole program: it replaces a shipped block's binary ("use" + "image").
void TargetReader::read_image() {
  if (!root_.has("image")) {
    if (root_.has("mount"))
      root_.child("mount").fail("only with \"image\" (a directory inside it)");
    return;
  }
  if (root_.has("binary"))
    root_.child("image").fail("expected either \"binary\" or \"image\", not both");
  if (!is_image_reference(root_.child("image").string()))
    root_.child("image").fail("expected a local image name or ID (localhost/mygw:1, 3f2a...)");
  main_.erase("binary");
  main_["image"] = doc_["image"];
  if (root_.has("mount")) {
    if (!is_container_dir(root_.child("mount").string()))
      root_.child("mount").fail(
          "expected an absolute directory inside the image, such as /etc/mygw");
    main_["mount"] = doc_["mount"];
  }
}

// The target's companions, or a feature's in their place.
json TargetReader::read_companions(const JsonField& list) {
  json out = json::array();
  list.expect_array();
  for (size_t i = 0; i < list.size(); ++i) {
    const JsonField entry = list.at(i);
    entry.expect_object();
    json c = entry.json();
    if (c.contains("use")) {
      c = resolve_block(c, entry.child("use"), blocks_dir_, blocks_);
    } else if (!own_templates_.empty()) {
      c["templates"] = own_templates_;
    }
    out.push_back(std::move(c));
  }
  return out;
}

// The offer's ports, headers, path and port.
void TargetReader::read_offer_fields(const JsonField& fe, Target::Offer& offer) const {
  offer.ports = ports_;
  if (fe.has("ports")) read_ports(fe.child("ports"), offer.ports);
  const std::map<std::string, int> port_names = port_map(offer.ports);
  offer.headers = fe.child("headers").strings();
  for (size_t i = 0; i < offer.headers.size(); ++i) {
    if (offer.headers[i].find(':') == std::string::npos)
      fe.child("headers").at(i).fail("expected 'Name: value'");
  }
  offer.path = fe.string_or("path", "");
  if (fe.has("path") && (offer.path.empty() || offer.path.front() != '/'))
    fe.child("path").fail("expected a path starting with /");
  if (fe.has("port")) {
    offer.port = fe.child("port").string();
    if (!port_names.contains(offer.port))
      fe.child("port").fail("'" + offer.port + "' is not in ports");
  }
}

// What each workload of this feature needs: its port, and the fields it names. Returns the
// first workload's port (the service's readiness probe when it names none).
std::string TargetReader::first_workload_port(const JsonField& fe, const std::string& feature,
                                              const Target::Offer& offer,
                                              const std::vector<Workload>& workloads) const {
  const std::map<std::string, int> port_names = port_map(offer.ports);
  std::string first_port;
  for (const Workload& w : workloads) {
    if (w.feature != feature) continue;
    const std::string role = w.load["port"].get<std::string>();
    const std::string port = offer.port.empty() ? role : offer.port;
    if (!port_names.contains(port)) {
      fe.fail("workload '" + w.name + "' connects to the target's " + role +
              " port: name one in \"port\" or add \"" + role + "\" to /ports");
    }
    if (first_port.empty()) first_port = port;
    for (const auto& [field, why] : w.needs) {
      if (!fe.has(field))
        fe.fail("missing \"" + field + "\": workload '" + w.name + "' needs " + why);
    }
  }
  return first_port;
}

// A feature served by another shipped block (nginx's ModSecurity build) starts from that
// block, without the target's own service fields.
json TargetReader::feature_service(const JsonField& fe) {
  json service = main_;
  if (fe.has("use")) {
    service = resolve_block(json{{"use", fe.json()["use"]}}, fe.child("use"), blocks_dir_, blocks_);
    service["role"] = "gateway";
  }
  apply_service_fields(service, fe.json());
  return service;
}

// The feature's service and companions checked as the scenario loader checks a service, at
// their pointers, and every template there now: nothing starts before the whole run is known to
// be good.
void TargetReader::check_feature_files(const JsonField& fe, const std::string& feature,
                                       const json& service, const json& companions,
                                       const std::map<std::string, int>& ports) const {
  json view = doc_;
  view["features"][feature] = service;
  parse_service_spec(JsonField(view, file_).child("features").child(feature), ports);
  const std::string dir = service.value("templates", shipped_configs_);
  const JsonField configs = fe.has("configs")      ? fe.child("configs")
                            : fe.has("use")        ? fe.child("use")
                            : root_.has("configs") ? root_.child("configs")
                                                   : root_.child("use");
  if (service.contains("configs")) {
    std::error_code ec;
    for (size_t i = 0; i < service["configs"].size(); ++i) {
      const std::string name = service["configs"][i]["template"].get<std::string>();
      if (!fs::is_regular_file(fs::path(dir) / name, ec)) {
        const JsonField at = configs.json().is_array() ? configs.at(i).child("template") : configs;
        at.fail("template '" + name + "' not found in " + dir);
      }
    }
  }
  for (size_t i = 0; i < companions.size(); ++i) {
    json cview = doc_;
    json& at =
        fe.has("companions") ? cview["features"][feature]["companions"] : cview["companions"];
    at[i] = companions[i];
    const JsonField list =
        fe.has("companions")
            ? JsonField(cview, file_).child("features").child(feature).child("companions")
            : JsonField(cview, file_).child("companions");
    parse_service_spec(list.at(i), ports);
  }
}

Target::Offer TargetReader::read_offer(const std::string& feature,
                                       const std::vector<Workload>& workloads) {
  const JsonField fe = root_.child("features").child(feature);
  fe.allow_only({"port", "ports", "headers", "path", "prepare", "configs", "args", "env", "dirs",
                 "discard", "ready", "use", "companions", "requires", "max_error_rate", "cache"});
  Target::Offer offer;
  read_offer_fields(fe, offer);
  const std::string first_port = first_workload_port(fe, feature, offer, workloads);
  json service = feature_service(fe);
  offer.requires_tools = fe.child("requires").strings();
  for (size_t i = 0; i < offer.requires_tools.size(); ++i) {
    const std::string& r = offer.requires_tools[i];
    if (!is_name(r) && (r.empty() || r.front() != '/'))
      fe.child("requires").at(i).fail("expected a tool name or an absolute path");
  }
  if (fe.has("max_error_rate")) {
    offer.max_error_rate = fe.number_or("max_error_rate", 0, 0, 1);
  }
  if (fe.has("cache")) {
    const JsonField cache = fe.child("cache");
    cache.expect_object();
    cache.allow_only({"status_header", "hit_values"});
    cache.child("status_header").string();
    if (cache.child("hit_values").strings().empty())
      cache.child("hit_values").fail("expected the header values that are hits");
    offer.cache = cache.json();
  }
  const json feature_companions =
      fe.has("companions") ? read_companions(fe.child("companions")) : companions_;
  // A TCP connect to the load's port, unless the target says how it is ready.
  if (!service.contains("ready")) service["ready"] = json{{"port", first_port}};
  check_feature_files(fe, feature, service, feature_companions, port_map(offer.ports));
  json backend =
      resolve_block(json{{"use", "backend"}},
                    JsonField(json{{"use", "backend"}}, file_).child("use"), blocks_dir_, blocks_);
  offer.services = feature_companions;
  offer.services.push_back(std::move(backend));
  offer.services.push_back(std::move(service));
  // A feature's steps replace the target's, as its service fields do: the gateway's decision
  // API has no TLS listener, so it skips the certificate every other gateway feature needs.
  offer.prepare = fe.has("prepare") ? json::array() : prepare_;
  if (fe.has("prepare")) {
    fe.child("prepare").expect_array();
    for (const auto& step : fe.json()["prepare"]) offer.prepare.push_back(normalized_step(step));
  }
  return offer;
}

Target TargetReader::read(const std::vector<Workload>& workloads) {
  root_.expect_object();
  root_.allow_only({"name", "description", "service", "templates", "ports", "prepare", "companions",
                    "features", "use", "binary", "image", "mount", "args", "env", "configs", "dirs",
                    "discard", "ready"});
  Target t;
  t.file = file_;
  t.name = root_.child("name").string();
  if (!is_name(t.name)) root_.child("name").fail("expected a target name [a-z0-9_-]+");
  t.description = root_.child("description").string();
  read_templates();
  ports_[kBackendPort] = kBackendPortNumber;
  read_ports(root_.child("ports"), ports_);
  read_main_service();
  if (root_.has("companions")) companions_ = read_companions(root_.child("companions"));
  if (root_.has("prepare")) {
    root_.child("prepare").expect_array();
    for (const auto& step : doc_["prepare"]) prepare_.push_back(normalized_step(step));
  }
  std::set<std::string> known;
  for (const Workload& w : workloads) known.insert(w.feature);
  const JsonField features = root_.child("features");
  features.expect_object();
  if (features.size() == 0) features.fail("expected at least one feature (" + join(known) + ")");
  for (const std::string& feature : features.keys()) {
    const JsonField fe = features.child(feature);
    fe.expect_object();
    if (!known.contains(feature))
      fe.fail("no workload needs feature '" + feature + "' (features: " + join(known) + ")");
    t.offers.emplace(feature, read_offer(feature, workloads));
  }
  return t;
}

}  // namespace

Target load_target(const std::string& file, const std::vector<Workload>& workloads,
                   const std::string& scenario_dir) {
  return TargetReader(file, scenario_dir).read(workloads);
}

nlohmann::json expansion_object(const Target& target, const Workload& workload) {
  const std::string name = target.name + "-" + workload.name;
  const std::string baseline = baseline_of(workload);
  const Target::Offer& o = target.offers.at(workload.feature);
  const std::string role = workload.load["port"].get<std::string>();
  const std::string port = o.port.empty() ? role : o.port;
  // The workload's steps, then the target's: the last tls-cert step is ${tls.cert}, so a target
  // that needs its own certificate file (haproxy's PEM bundle) gets it in its templates.
  json prepare = json::array();
  for (json step : workload.prepare) {
    // A cookie flow goes through the port the load uses, with the feature's headers (the Host
    // that selects the configuration) before the step's own.
    if (step.value("step", "") == "cookies" && step.contains("port") && step["port"] == role) {
      step["port"] = port;
      json headers = json::array();
      for (const auto& h : o.headers) headers.push_back(h);
      for (const auto& h : step.value("headers", json::array())) headers.push_back(h);
      if (!headers.empty()) step["headers"] = headers;
    }
    prepare.push_back(step);
  }
  for (const json& step : o.prepare)
    if (std::find(prepare.begin(), prepare.end(), step) == prepare.end()) prepare.push_back(step);
  // Certificates first: they are made before the services start, cookie flows after.
  json ordered = json::array();
  for (bool certs : {true, false})
    for (const json& step : prepare)
      if ((step.value("step", "") == "tls-cert") == certs) ordered.push_back(step);
  prepare = std::move(ordered);
  json load = workload.load;
  load["port"] = port;
  json headers = json::array();
  for (const auto& h : o.headers) headers.push_back(h);
  if (load.contains("headers") && load["headers"].is_array())
    for (const auto& h : load["headers"]) headers.push_back(h);
  if (!headers.empty()) load["headers"] = headers;
  if (!o.path.empty()) load["path"] = o.path;
  json scenario = {{"name", name},
                   {"description", workload.description + " (" + target.name + ")"},
                   {"order", workload.order},
                   {"baseline", baseline},
                   {"ports", o.ports},
                   {"services", o.services},
                   {"load", load}};
  if (!prepare.empty()) scenario["prepare"] = prepare;
  if (!o.requires_tools.empty()) scenario["requires"] = o.requires_tools;
  if (!o.max_error_rate.is_null()) scenario["max_error_rate"] = o.max_error_rate;
  if (!workload.latency_baseline.empty())
    scenario["latency_baseline"] = target.name + "-" + workload.latency_baseline;
  if (!workload.cache.is_null()) {
    json cache = o.cache.is_null() ? json::object() : o.cache;
    cache.update(workload.cache);
    scenario["cache"] = cache;
  }
  return scenario;
}

std::string unoffered(const Target& target, const Workload& workload) {
  if (target.offers.contains(workload.feature)) return "";
  return target.name + " does not offer feature '" + workload.feature + "' (workload " +
         workload.name + ")";
}

Scenario scenario_of(const json& object, const Target& target, const Workload& workload) {
  // Errors here are the workload's (its load and prepare steps, at their own pointers).
  Scenario s = parse_scenario_object(object, workload.file + " (target " + target.file + ")");
  s.file = target.file;
  // Only the target file's root names an image: errors about it point there.
  for (ServiceSpec& service : s.services)
    if (!service.image.empty()) service.image_at = "/image";
  return s;
}

Scenario expand(const Target& target, const Workload& workload) {
  if (const std::string why = unoffered(target, workload); !why.empty()) {
    Scenario s;
    s.name = target.name + "-" + workload.name;
    s.description = workload.description;
    s.file = target.file;
    s.order = workload.order;
    s.baseline = baseline_of(workload);
    s.ports[kBackendPort] = kBackendPortNumber;
    s.load.port = kBackendPort;
    s.unavailable = why;
    return s;
  }
  return scenario_of(expansion_object(target, workload), target, workload);
}

TargetRun target_scenarios(const std::vector<std::string>& targets,
                           const std::vector<std::string>& workload_names,
                           const std::string& workloads_dir, const std::string& scenario_dir) {
  const std::vector<Workload> all = load_workloads(workloads_dir);
  std::vector<Workload> chosen;
  if (workload_names.empty()) {
    chosen = all;
  } else {
    std::set<std::string> known;
    for (const auto& w : all) known.insert(w.name);
    for (const auto& name : workload_names) {
      if (!known.contains(name))
        throw common::UsageError("--workloads: no workload named '" + name +
                                 "' (known: " + join(known) + ")");
    }
    for (const auto& w : all)
      if (std::find(workload_names.begin(), workload_names.end(), w.name) != workload_names.end())
        chosen.push_back(w);
  }
  TargetRun run;
  std::map<std::string, Target> loaded;  // by name: the named targets, then baselines
  std::set<std::string> expanded;
  auto add = [&](const Target& target, const Workload& w) {
    if (expanded.insert(target.name + "-" + w.name).second)
      run.scenarios.push_back(expand(target, w));
  };
  auto workload = [&](const std::string& name) -> const Workload& {
    return *std::find_if(all.begin(), all.end(), [&](const Workload& w) { return w.name == name; });
  };
  std::vector<const Target*> named;
  for (const auto& t : targets) {
    Target target = load_target(target_file(t), all, scenario_dir);
    const std::string name = target.name;
    if (!loaded.emplace(name, std::move(target)).second)
      throw common::UsageError("--target: two targets named '" + name + "'");
    named.push_back(&loaded.at(name));
    for (const auto& w : chosen) {
      add(loaded.at(name), w);
      run.selected.push_back(name + "-" + w.name);
    }
  }
  // The workloads the named targets' latency is compared with (waf-mix: plain), and each
  // workload's baseline target on its baseline workload, unless expanded already.
  for (const Target* target : named)
    for (const auto& w : chosen)
      if (!w.latency_baseline.empty()) add(*target, workload(w.latency_baseline));
  for (const auto& w : chosen) {
    auto it = loaded.find(w.baseline);
    if (it == loaded.end()) {
      const std::string file = target_file(w.baseline);
      if (!fs::is_regular_file(file))
        JsonField(json{{"baseline", w.baseline}}, w.file)
            .child("baseline")
            .fail("no shipped target '" + w.baseline + "' (" + file + ")");
      it = loaded.emplace(w.baseline, load_target(file, all, scenario_dir)).first;
    }
    add(it->second, w.baseline_workload.empty() ? w : workload(w.baseline_workload));
  }
  return run;
}

}  // namespace gatebench::macro
