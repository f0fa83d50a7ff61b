#include "macro/driver/plan/plan.hpp"

#include <pwd.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "macro/common/duration.hpp"
#include "macro/common/json_field.hpp"
#include "macro/common/load_capabilities.hpp"
#include "macro/common/usage_error.hpp"
#include "macro/driver/plan/template.hpp"
#include "macro/driver/results/h2load_output.hpp"
#include "macro/driver/runtime/container.hpp"

namespace gatebench::macro {
namespace fs = std::filesystem;

namespace {

// The name of the user this process runs as (its uid when it has no name).
std::string driver_user() {
  const uid_t uid = geteuid();
  if (const passwd* pw = getpwuid(uid); pw != nullptr) return pw->pw_name;
  return "#" + std::to_string(uid);
}

std::string read_template(const std::string& configs_dir, const std::string& name,
                          const std::string& file, const std::string& field) {
  std::ifstream in(fs::path(configs_dir) / name);
  if (!in) {
    throw ScenarioError(file + ": " + field + ": template '" + name + "' not found in " +
                        configs_dir);
  }
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// Renders one field; the error names the scenario file and field, then the template position.
std::string render(const std::string& text, const Variables& vars, const std::string& file,
                   const std::string& field) {
  try {
    return render_template(text, vars, field);
  } catch (const TemplateError& e) {
    throw ScenarioError(file + ": " + e.what());
  }
}

// ${address.<role>}: where a role's services are reached from the host the template is rendered
// for; ${listen.<role>}: where they bind. On one host both are loopback. With roles on several
// hosts every service listens on all its addresses (the driver's probes connect to the host's
// address, or loopback here), roles on the same host reach each other over loopback and the
// others at their host's address from the hosts file.
void add_address_vars(Variables& vars, const Placement* placement, const std::string& from_role) {
  const bool spread = placement != nullptr && placement->spans_hosts();
  for (const char* role : {"backend", "gateway", "control", "load"}) {
    std::string address = "127.0.0.1";
    if (spread && placement->host_of(role).name != placement->host_of(from_role).name)
      address = placement->host_of(role).address;
    vars[std::string("address.") + role] = address;
    if (std::string_view(role) != "load")
      vars[std::string("listen.") + role] = spread ? "0.0.0.0" : "127.0.0.1";
  }
}

// The --place role of the service the load connects to (the one probed on the load's port).
std::string load_target_role(const Scenario& s) {
  for (const ServiceSpec& service : s.services)
    if (service.ready.port == s.load.port) return place_role(service);
  return std::string(role_name(s.target_role()));
}

std::string safe_dir_name(const std::string& name) {
  std::string out = name;
  std::replace(out.begin(), out.end(), '/', '_');
  return out;
}

}  // namespace

const std::string& session_name() {
  static const std::string name =
      "gb-" + std::to_string(getpid()) + "-" + std::to_string(std::time(nullptr));
  return name;
}

bool own_binary(const std::string& binary) {
  return binary == "gatebench-gateway" || binary == "gatebench-control" ||
         binary == "gatebench-load";
}

std::string ServicePlan::remote_path(const std::string& local, const std::string& run_dir) const {
  if (remote_dir.empty()) return local;
  return (fs::path(remote_dir) / fs::path(local).lexically_relative(run_dir)).lexically_normal();
}

std::string place_role(const ServiceSpec& service) {
  return service.name == "control" ? "control" : std::string(role_name(service.role));
}

std::string shell_join(const std::string& exe, const std::vector<std::string>& args) {
  auto quote = [](const std::string& word) {
    bool plain = !word.empty() && std::all_of(word.begin(), word.end(), [](char c) {
      return std::isalnum(static_cast<unsigned char>(c)) ||
             std::string_view("-_./:=,+@%").find(c) != std::string_view::npos;
    });
    if (plain) return word;
    std::string out = "'";
    for (char c : word) {
      if (c == '\'') {
        out += "'\\''";
      } else {
        out += c;
      }
    }
    return out + "'";
  };
  std::string out = quote(exe);
  for (const auto& a : args) out += " " + quote(a);
  return out;
}

std::vector<std::string> LoadPlan::args(double duration_s, std::optional<double> run_rate,
                                        const std::string& json_path,
                                        const std::string& script_path, bool measured) const {
  std::vector<std::string> a;
  int t = std::max(1, std::min(threads, connections));
  a.insert(a.end(), {"-t", std::to_string(t), "-c", std::to_string(connections)});
  if (tool == "wrk") {
    // wrk takes whole seconds only.
    a.insert(a.end(), {"-d", common::duration_arg(std::max(1.0, std::ceil(duration_s))),
                       "--latency", "-s", script_path});
    if (close) a.insert(a.end(), {"-H", "Connection: close"});
  } else if (tool == "h2load") {
    // ALPN offers h2 alone for an HTTP/2 scenario, so a server without it fails instead of
    // being measured over HTTP/1.1; --h1 speaks HTTP/1.1 over TLS and cleartext alike.
    a.insert(a.end(), {"-m", std::to_string(streams), "-D", common::duration_arg(duration_s),
                       http2 ? "--npn-list=h2" : "--h1"});
  } else {
    a.insert(a.end(),
             {"-d", common::duration_arg(duration_s), "--json", json_path, "--no-progress"});
    if (run_rate) {
      std::ostringstream r;
      r << *run_rate;
      a.insert(a.end(), {"--rate", r.str()});
    }
    if (close) a.push_back("--close");
    if (!tls_resume) a.push_back("--no-tls-resume");
    if (http2) a.insert(a.end(), {"--h2", "--streams", std::to_string(streams)});
    if (!requests_path.empty()) a.insert(a.end(), {"--requests", requests_path});
    if (!count_header.empty()) a.insert(a.end(), {"--count-header", count_header});
    if (requests_total > 0 && measured)
      a.insert(a.end(), {"--requests-total", std::to_string(requests_total)});
  }
  for (const auto& h : headers) a.insert(a.end(), {"-H", h});
  a.push_back(url);
  return a;
}

std::vector<Scenario> select_scenarios(const std::vector<Scenario>& all,
                                       const std::vector<std::string>& names) {
  if (names.empty()) return all;
  std::set<std::string> wanted(names.begin(), names.end());
  for (const auto& name : names) {
    bool known = std::any_of(all.begin(), all.end(),
                             [&](const Scenario& s) { return s.name == name || s.group == name; });
    if (!known) {
      std::string list;
      for (const auto& s : all) list += (list.empty() ? "" : ", ") + s.name;
      throw common::UsageError("--scenarios: no scenario named '" + name + "' (known: " + list +
                               ")");
    }
  }
  std::vector<Scenario> out;
  for (const auto& s : all) {
    if (wanted.contains(s.name) || (!s.group.empty() && wanted.contains(s.group))) out.push_back(s);
  }
  return out;
}

std::string h2load_cannot(const Scenario& s) {
  if (s.load.mode != LoadMode::closed)
    return "h2load cannot hold an open-loop rate without coordinated omission: its --rps paces "
           "each connection and times from the actual send (needs --load gatebench)";
  if (!s.load.requests.empty())
    return "h2load cannot send a weighted request mix (needs --load gatebench)";
  if (s.load.close)
    return "h2load cannot open a new connection per request (needs --load gatebench)";
  if (s.cache)
    return "h2load cannot count the cache's status header for the hit ratio (needs --load "
           "gatebench)";
  return "";
}

namespace {

// A service that is a local image: the runtime must be a container engine's and the image must
// be here (never pulled), both decided before anything starts.
void use_image(const ServiceSpec& spec, const std::string& file, const Options& options,
               const Toolbox& tools, ServicePlan& service) {
  const std::string at = file + ": " + spec.image_at + ": ";
  if (options.runtime != "podman" && options.runtime != "docker")
    throw ScenarioError(at + "image '" + spec.image + "' runs only with --runtime podman or " +
                        "docker (this run: --runtime " + options.runtime + ")");
  service.binary = spec.image;
  service.image = spec.image;
  service.mount = spec.mount;
  // Without the engine the scenario is skipped with the reason, as every other one is.
  const auto engine = tools.find(options.runtime);
  if (!engine || !engine_unreachable(options.runtime, *engine).empty()) return;
  try {
    const ImageInfo info = inspect_image(*engine, spec.image);
    service.image_id = info.id;
    service.image_digest = info.digest;
  } catch (const ContainerError& e) {
    throw ScenarioError(at + "no image '" + spec.image + "' on this machine (" + options.runtime +
                        " image inspect: " + e.what() + "); gatebench never pulls: build it " +
                        "(" + options.runtime + " build -t " + spec.image +
                        " ...) or load it first");
  }
}

// What every plan of one make_plans call shares.
struct PlanInputs {
  const Options& options;
  const CpuLayout& layout;
  const Toolbox& tools;
  const std::string& configs_dir;
  const std::string& out_dir;
  const Placement* placement;
  std::string load_tool;
};

// The tools a scenario needs, found here; the reasons of those that are not, each once, in the
// order they were asked for (the plan's skip reason).
class ToolNeeds {
 public:
  explicit ToolNeeds(const Toolbox& tools) : tools_(tools) {}

  // The tool's path, or "" when it is missing (its reason is kept).
  std::string need(const std::string& tool) {
    const bool path = !tool.empty() && tool.front() == '/';
    auto exe = path ? (fs::exists(tool) ? std::optional<std::string>(tool) : std::nullopt)
                    : tools_.find(tool);
    if (!exe) {
      std::string reason = path ? tool + " not installed" : Toolbox::missing_reason(tool);
      if (std::find(missing_.begin(), missing_.end(), reason) == missing_.end()) {
        missing_.push_back(reason);
      }
      return "";
    }
    return *exe;
  }
  const std::vector<std::string>& missing() const { return missing_; }

 private:
  const Toolbox& tools_;
  std::vector<std::string> missing_;
};

// The plan's run directory and ports, and the variables every template of the scenario sees
// (as the load and the controller see them; each service adds its own host's addresses).
Variables scenario_vars(const Scenario& s, const PlanInputs& in, ScenarioPlan& plan) {
  plan.run_dir = (fs::absolute(in.out_dir) / safe_dir_name(s.name)).lexically_normal().string();
  Variables vars;
  vars["run_dir"] = plan.run_dir;
  vars["configs"] = fs::absolute(in.configs_dir).lexically_normal().string();
  vars["scenario"] = s.name;
  // Services run as the driver's user; nginx is told so (its workers would otherwise run as
  // nobody, who cannot reach a run directory under a private --out).
  vars["service_user"] = driver_user();
  for (const auto& [name, port] : s.ports) {
    int shifted = port + in.options.port_offset;
    if (shifted < 1024 || shifted > 65535) {
      throw ScenarioError(s.file + ": " + common::pointer_token("ports") +
                          common::pointer_token(name) + ": " + std::to_string(port) + " + offset " +
                          std::to_string(in.options.port_offset) + " is outside 1024-65535");
    }
    plan.ports[name] = shifted;
    vars["port." + name] = std::to_string(shifted);
  }
  add_address_vars(vars, in.placement, "load");
  for (Role role : {Role::load, Role::backend, Role::gateway}) {
    vars["cpus." + std::string(role_name(role))] = in.layout.of(role).to_string();
    vars["workers." + std::string(role_name(role))] = std::to_string(in.layout.usable(role));
  }
  return vars;
}

// The prepare steps with their paths in the run directory; their outputs become variables
// (tls.cert, tls.key, a cookie's placeholder) before the steps' own headers are rendered.
void plan_prepare(const Scenario& s, ScenarioPlan& plan, Variables& vars) {
  for (size_t i = 0; i < s.prepare.size(); ++i) {
    PrepareStep step = s.prepare[i];
    for (auto& [key, path] : step.params) path = (fs::path(plan.run_dir) / path).string();
    if (step.step == "tls-cert") {
      vars["tls.cert"] = step.params["cert"];
      vars["tls.key"] = step.params["key"];
    }
    if (step.step == "cookies") {
      // Known only after the prepare step ran: a visible placeholder until then (dry run).
      vars["cookie." + step.cookie] = "<" + step.cookie + " cookie from prepare>";
    }
    plan.prepare.push_back(step);
  }
  for (size_t i = 0; i < plan.prepare.size(); ++i) {
    for (size_t h = 0; h < plan.prepare[i].headers.size(); ++h) {
      plan.prepare[i].headers[h] =
          render(plan.prepare[i].headers[h], vars, s.file,
                 "prepare[" + std::to_string(i) + "].headers[" + std::to_string(h) + "]");
    }
  }
}

// Where the service runs (an ssh host, a podman host, a local image or a local process) and the
// executable it starts; on an ssh host its variables become that host's paths.
void place_service(const Scenario& s, const ServiceSpec& spec, const ScenarioPlan& plan,
                   const PlanInputs& in, ToolNeeds& tools, Variables& svars, ServicePlan& service) {
  const Host* on = in.placement != nullptr ? &in.placement->host_of(place_role(spec)) : nullptr;
  if (!spec.image.empty() && on != nullptr && on->kind != HostKind::local)
    throw ScenarioError(s.file + ": " + spec.image_at + ": an image runs on this machine's " +
                        "engine only, not placed on " + on->name);
  if (on != nullptr && on->kind == HostKind::ssh) {
    // Rendered for the host it runs on: its run directory and configs there.
    service.host = on->name;
    service.host_kind = HostKind::ssh;
    service.address = on->address;
    const std::string session = on->workdir + "/" + session_name();
    service.remote_dir =
        session + "/" + fs::path(in.out_dir).filename().string() + "/" + safe_dir_name(s.name);
    svars["run_dir"] = service.remote_dir;
    // The ssh login (ssh's own default, this user's name, when the host names none).
    if (!on->user.empty()) svars["service_user"] = on->user;
    svars["configs"] = session + "/configs";
    for (const char* v : {"tls.cert", "tls.key"})
      if (svars.contains(v)) svars[v] = service.remote_path(svars[v], plan.run_dir);
    service.copy_binary = own_binary(spec.binary);
    // A system binary is looked up on its host when the service starts.
    service.exe = service.copy_binary ? tools.need(spec.binary) : spec.binary;
  } else if (on != nullptr && on->kind == HostKind::podman) {
    // An image of this machine's binary, run with this machine's paths (copied in).
    service.host = on->name;
    service.host_kind = HostKind::podman;
    service.address = on->address;
    service.exe = tools.need(spec.binary);
  } else if (!spec.image.empty()) {
    use_image(spec, s.file, in.options, in.tools, service);
  } else {
    service.exe = tools.need(spec.binary);
  }
}

// Service `i` of the scenario: where it runs, its arguments, environment and configs rendered
// for its host, its paths in the run directory, its readiness probe and CPUs.
ServicePlan plan_service(const Scenario& s, size_t i, const ScenarioPlan& plan,
                         const Variables& vars, const PlanInputs& in, ToolNeeds& tools) {
  const ServiceSpec& spec = s.services[i];
  const std::string field = "/services/" + std::to_string(i);
  Variables svars = vars;
  add_address_vars(svars, in.placement, place_role(spec));
  if (!spec.templates.empty()) svars["configs"] = spec.templates;
  ServicePlan service;
  service.name = spec.name;
  service.role = spec.role;
  service.sample = spec.sample;
  service.binary = spec.binary;
  place_service(s, spec, plan, in, tools, svars, service);
  for (size_t a = 0; a < spec.args.size(); ++a) {
    service.args.push_back(
        render(spec.args[a], svars, s.file, field + "/args/" + std::to_string(a)));
  }
  for (const auto& [name, value] : spec.env) {
    service.env[name] = render(value, svars, s.file, field + "/env" + common::pointer_token(name));
  }
  const std::string& templates = spec.templates.empty() ? in.configs_dir : spec.templates;
  for (size_t c = 0; c < spec.configs.size(); ++c) {
    const std::string cfield = field + "/configs/" + std::to_string(c) + "/template";
    std::string text = read_template(templates, spec.configs[c].template_name, s.file, cfield);
    service.configs.emplace_back(
        (fs::path(plan.run_dir) / spec.configs[c].output).string(),
        render(text, svars, s.file, cfield + " " + spec.configs[c].template_name));
  }
  for (const auto& dir : spec.dirs) service.dirs.push_back((fs::path(plan.run_dir) / dir).string());
  for (const auto& file : spec.discard) {
    service.discard.push_back((fs::path(plan.run_dir) / file).string());
  }
  service.ready_port = plan.ports.at(spec.ready.port);
  service.ready_http = spec.ready.http_path;
  service.ready_timeout_s = spec.ready.timeout_s;
  // The CPU layout is this machine's: a service on another host runs unpinned there. A Pod
  // has no CPU set (a cluster pins through its kubelet's CPU manager, not the manifest).
  if (service.host.empty() && in.options.runtime != "kube") service.cpus = in.layout.of(spec.role);
  service.stdout_path = (fs::path(plan.run_dir) / (spec.name + ".stdout")).string();
  service.stderr_path = (fs::path(plan.run_dir) / (spec.name + ".stderr")).string();
  return service;
}

// The load generator's URL as it reaches the target: one on another host than the target uses
// the target host's address.
std::string load_url(const Scenario& s, const ScenarioPlan& plan, const Placement* placement) {
  const LoadSpec& ls = s.load;
  std::string host = ls.host;
  if (placement != nullptr && (host == "127.0.0.1" || host == "localhost")) {
    const Host& target = placement->host_of(load_target_role(s));
    if (placement->remote_load() || target.name != placement->host_of("load").name)
      host = target.address;
  }
  return ls.scheme + "://" + host + ":" + std::to_string(plan.ports.at(ls.port)) + ls.path;
}

// The load of the scenario: the generator, its URL, headers and request mix rendered, its mode,
// connections, CPUs and threads.
void plan_load(const Scenario& s, const PlanInputs& in, const Variables& vars, ToolNeeds& tools,
               ScenarioPlan& plan) {
  const Options& options = in.options;
  LoadPlan& load = plan.load;
  const LoadSpec& ls = s.load;
  load.tool = in.load_tool;
  load.exe = tools.need(in.load_tool);
  load.fanout = in.placement != nullptr &&
                (in.placement->remote_load() || in.placement->roles.at("load").size() > 1);
  load.url = load_url(s, plan, in.placement);
  for (size_t h = 0; h < ls.headers.size(); ++h) {
    load.headers.push_back(
        render(ls.headers[h], vars, s.file, "load.headers[" + std::to_string(h) + "]"));
    load.header_templates.push_back(ls.headers[h]);
  }
  load.close = ls.close;
  load.tls_resume = ls.tls_resume;
  load.http2 = ls.http2;
  load.streams = ls.streams;
  if (s.cache) load.count_header = s.cache->status_header;
  load.mode = ls.mode;
  load.rate = options.rate > 0 ? options.rate : ls.rate;
  load.slo_p99_us = options.slo_p99_us > 0 ? options.slo_p99_us : ls.slo_p99_us;
  if (!ls.requests.empty()) {
    std::string text = read_template(in.configs_dir, ls.requests, s.file, "load.requests");
    load.requests_content = render(text, vars, s.file, "load.requests " + ls.requests);
    load.requests_template = text;
    load.requests_path = (fs::path(plan.run_dir) / fs::path(ls.requests).filename()).string();
  }
  // A request count's connections are part of its method: --quick keeps them.
  load.connections = ls.connections > 0 && (!options.quick || ls.requests_total > 0)
                         ? ls.connections
                         : options.connections;
  load.requests_total = ls.requests_total;
  load.cpus = in.layout.of(Role::load);
  // --threads first, then the scenario's own, then one per load CPU.
  load.threads = options.threads > 0 ? options.threads
                 : ls.threads > 0    ? ls.threads
                                     : std::max(1, load.cpus.count());
}

// Why the chosen load generator cannot run the scenario, or "".
std::string load_tool_cannot(const Scenario& s, const std::string& load_tool,
                             const Toolbox& tools) {
  const LoadSpec& ls = s.load;
  if (load_tool != "gatebench-load" && ls.requests_total > 0)
    return load_tool + " cannot send an exact request count (needs --load gatebench)";
  if (load_tool == "wrk" && ls.http2) return "wrk cannot speak HTTP/2 (needs --load gatebench)";
  if (load_tool == "wrk" && ls.mode != LoadMode::closed)
    return "wrk cannot hold a fixed request rate (needs --load gatebench)";
  if (load_tool == "wrk" && !ls.requests.empty())
    return "wrk cannot send a request mix (needs --load gatebench)";
  if (load_tool == "wrk" && s.cache)
    return "wrk cannot count the cache's status header for the hit ratio (needs --load gatebench)";
  if (load_tool == "h2load") return h2load_cannot(s);
  if (load_tool != "gatebench-load") return "";
  const auto caps = tools.capabilities(load_tool);
  if (!caps)
    return "gatebench-load --capabilities printed no " +
           std::string(common::kLoadCapabilitiesSchema) +
           " (a gatebench-load older than this driver? rebuild it)";
  if (ls.mode != LoadMode::closed && !caps->has("rate")) return "gatebench-load has no --rate";
  if (!ls.requests.empty() && !caps->has("requests")) return "gatebench-load has no --requests";
  if (ls.http2 && !caps->has("h2")) return "gatebench-load has no --h2";
  if (s.cache && !caps->has("count-header")) return "gatebench-load has no --count-header";
  return "";
}

// Why the runtime cannot run any scenario here, or "".
std::string runtime_cannot(const Options& options, const Toolbox& tools) {
  if (options.runtime == "docker") {
    const auto docker = tools.find("docker");
    return docker ? engine_unreachable("docker", *docker) : "docker not installed";
  }
  if ((options.runtime == "podman" || options.runtime == "kube") && !tools.find("podman"))
    return "podman not installed";
  if (options.runtime == "kube" && !tools.find("catatonit"))
    return "catatonit not installed (podman kube play's pause process)";
  return "";
}

// What decides before anything starts that the scenario is skipped: it is unavailable, a tool
// is missing, the load generator or the runtime cannot run it. "" when it runs.
std::string skip_reason(const Scenario& s, const PlanInputs& in, const ToolNeeds& tools) {
  std::string reason;
  if (!s.unavailable.empty()) {
    reason = s.unavailable;
  } else if (!tools.missing().empty()) {
    for (const auto& m : tools.missing()) reason += (reason.empty() ? "" : "; ") + m;
  } else {
    reason = load_tool_cannot(s, in.load_tool, in.tools);
  }
  if (reason.empty()) reason = runtime_cannot(in.options, in.tools);
  return reason;
}

ScenarioPlan make_plan(const Scenario& s, const PlanInputs& in) {
  ScenarioPlan plan;
  plan.scenario = s;
  Variables vars = scenario_vars(s, in, plan);
  plan_prepare(s, plan, vars);
  ToolNeeds tools(in.tools);
  for (const auto& tool : s.requires_tools) tools.need(tool);
  for (const auto& step : s.prepare) {
    if (step.step == "tls-cert") tools.need("openssl");
  }
  for (size_t i = 0; i < s.services.size(); ++i)
    plan.services.push_back(plan_service(s, i, plan, vars, in, tools));
  plan_load(s, in, vars, tools, plan);
  plan.target_cpus = in.layout.usable(s.target_role());
  plan.vars = vars;
  plan.skip_reason = skip_reason(s, in, tools);
  return plan;
}

}  // namespace

std::vector<ScenarioPlan> make_plans(const std::vector<Scenario>& selected, const Options& options,
                                     const CpuLayout& layout, const Toolbox& tools,
                                     const std::string& configs_dir, const std::string& out_dir,
                                     const Placement* placement) {
  const PlanInputs in{options,
                      layout,
                      tools,
                      configs_dir,
                      out_dir,
                      placement,
                      options.load == "gatebench" ? "gatebench-load" : options.load};
  std::vector<ScenarioPlan> plans;
  for (const Scenario& s : selected) plans.push_back(make_plan(s, in));
  return plans;
}

std::string describe_plan(const ScenarioPlan& plan, const Options& options) {
  std::ostringstream out;
  const Scenario& s = plan.scenario;
  auto pin = [](const CpuSet& cpus) {
    return cpus.empty() ? std::string("not pinned") : "cpus " + cpus.to_string();
  };
  out << "scenario " << s.name << " (" << s.file << ")\n  " << s.description << "\n";
  out << "  run dir  " << plan.run_dir << "\n  ports   ";
  for (const auto& [name, port] : plan.ports) out << " " << name << "=" << port;
  out << "\n";
  for (const auto& step : plan.prepare) {
    out << "  prepare  " << step.step;
    for (const auto& [k, v] : step.params) out << " " << k << "=" << v;
    if (step.step == "cookies") {
      out << " " << step.cookie << " from port " << plan.ports.at(step.port) << ": GET";
      for (const auto& path : step.get) out << " " << path;
      for (const auto& h : step.headers) out << " [" << h << "]";
    }
    out << "\n";
  }
  for (const auto& svc : plan.services) {
    out << "  service  " << svc.name << " (" << role_name(svc.role) << ", " << pin(svc.cpus)
        << (svc.sample ? ", sampled" : "") << ")\n";
    for (const auto& [path, content] : svc.configs) out << "    config " << path << "\n";
    for (const auto& [name, value] : svc.env) out << "    env    " << name << "=" << value << "\n";
    out << "    run    " << shell_join(svc.exe.empty() ? svc.binary : svc.exe, svc.args) << "\n";
    if (!svc.image.empty())
      out << "    image  " << svc.image << " (id " << svc.image_id << ", digest "
          << (svc.image_digest.empty() ? "-" : svc.image_digest) << ")"
          << (svc.mount.empty() ? "" : ", run directory at " + svc.mount + " (read-only)") << "\n";
    if (svc.host_kind == HostKind::ssh)
      out << "    on     " << svc.host << ", in " << svc.remote_dir << "\n";
    if (svc.host_kind == HostKind::podman)
      out << "    on     " << svc.host << ", "
          << (options.runtime == "kube" ? "a Pod (node " + svc.host + ")" : "a container")
          << " through the engine's remote API, with this run directory copied in\n";
    out << "    ready  " << (svc.ready_http.empty() ? "tcp" : "http") << "://" << svc.address << ":"
        << svc.ready_port << svc.ready_http << " within " << svc.ready_timeout_s << "s\n";
  }
  const LoadPlan& load = plan.load;
  const std::string json = (std::filesystem::path(plan.run_dir) / "load.json").string();
  const std::string script = (std::filesystem::path(plan.run_dir) / "wrk-done.lua").string();
  std::optional<double> rate;
  if (load.mode == LoadMode::rate) rate = load.rate;
  out << "  load     " << load.tool << " (" << pin(load.cpus) << ")";
  if (load.mode == LoadMode::search) {
    out << ", search for the highest rate with p99 <= " << load.slo_p99_us << " us";
  }
  out << "\n";
  if (options.warmup_s > 0) {
    out << "    warm-up "
        << shell_join(load.exe.empty() ? load.tool : load.exe,
                      load.args(options.warmup_s, rate, json, script))
        << "\n";
  }
  out << "    measure "
      << shell_join(load.exe.empty() ? load.tool : load.exe,
                    load.args(options.duration_s, rate, json, script))
      << "\n";
  if (load.fanout)
    out << "    spread over the load hosts of --place, each its share of the connections "
           "(commands per host below)\n";
  if (!plan.skip_reason.empty()) out << "  skipped: " << plan.skip_reason << "\n";
  return out.str();
}

void wrap_gateway_services(ScenarioPlan& plan, const std::vector<std::string>& wrapper) {
  if (wrapper.empty()) return;
  auto render = [&](std::string word, const ServicePlan& s) {
    for (const auto& [key, value] :
         {std::pair<std::string, std::string>{"{scenario}", plan.scenario.name},
          std::pair<std::string, std::string>{"{service}", s.name}})
      for (auto at = word.find(key); at != std::string::npos;
           at = word.find(key, at + value.size()))
        word.replace(at, key.size(), value);
    return word;
  };
  for (auto& s : plan.services) {
    if (s.role != Role::gateway || s.exe.empty() || !s.image.empty() ||
        s.host_kind != HostKind::local || !s.host.empty())
      continue;
    std::vector<std::string> args;
    for (std::size_t i = 1; i < wrapper.size(); ++i) args.push_back(render(wrapper[i], s));
    args.push_back(s.exe);
    args.insert(args.end(), s.args.begin(), s.args.end());
    s.exe = render(wrapper[0], s);
    s.args = std::move(args);
  }
}

}  // namespace gatebench::macro
