#include "macro/driver/runner.hpp"

#include <strings.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "macro/driver/load_json.hpp"
#include "macro/driver/net_probe.hpp"
#include "macro/driver/process.hpp"
#include "macro/driver/stop_signal.hpp"
#include "macro/driver/wrk_output.hpp"

namespace gatebench::macro {
namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace {

// Control flow out of a scenario; caught in run_scenario, where RAII has stopped the services.
struct Outcome {
  Status status;
  std::string reason;
};
struct Interrupted {};

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

void write_file(const std::string& path, const std::string& content) {
  fs::create_directories(fs::path(path).parent_path());
  std::ofstream out(path, std::ios::trunc);
  out << content;
  if (!out) throw Outcome{Status::failed, "cannot write " + path};
}

// Last non-empty line of a log, for short failure reasons.
std::string last_line(const std::string& text) {
  std::istringstream in(text);
  std::string line, last;
  while (std::getline(in, line)) {
    if (line.find_first_not_of(" \t\r") != std::string::npos) last = line;
  }
  if (last.size() > 200) last = last.substr(0, 200) + "...";
  return last;
}

// Write syscalls of the load generator: one per request on keep-alive connections, so their rate
// is a cheap live estimate of req/s for the progress line (never reported as a result).
std::optional<uint64_t> write_syscalls(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/io");
  std::string key;
  uint64_t value = 0;
  while (in >> key >> value) {
    if (key == "syscw:") return value;
  }
  return std::nullopt;
}

struct RunningService {
  const ServicePlan* plan;
  ChildProcess process;
  std::string container;  // container runtime: the container's name
};

// Container CPU and memory between two `stats` calls, per container.
class ContainerSampler {
 public:
  ContainerSampler(const ContainerEngine& engine, std::vector<const RunningService*> services)
      : engine_(engine), services_(std::move(services)) {}

  void start() {
    first_ = container_stats(engine_, names());
    last_ = first_;
  }
  // Returns the target's (sampled services') CPU% since the previous call and memory now.
  TreeSample sample(double t_s) {
    TreeSample out;
    out.t_s = t_s;
    auto now = container_stats(engine_, names());
    double cpu_before = 0, cpu_now = 0;
    for (const auto* s : services_) {
      if (!s->plan->sample) continue;
      auto it = now.find(s->container);
      if (it == now.end()) continue;
      cpu_before += last_.contains(s->container) ? last_[s->container].cpu_s : 0;
      cpu_now += it->second.cpu_s;
      out.pss_mb += it->second.mem_mb;
      ++out.processes;
    }
    if (t_s > last_t_) out.cpu_percent = 100 * (cpu_now - cpu_before) / (t_s - last_t_);
    for (auto& [name, stats] : now) last_[name] = stats;
    last_t_ = t_s;
    peak_mb_ = std::max(peak_mb_, out.pss_mb);
    max_containers_ = std::max(max_containers_, out.processes);
    return out;
  }
  TreeUsage usage(double elapsed_s, std::map<std::string, double>& by_role) const {
    TreeUsage u;
    u.peak_mb = peak_mb_;
    u.max_processes = max_containers_;
    if (elapsed_s <= 0) return u;
    for (const auto* s : services_) {
      auto first = first_.find(s->container);
      auto last = last_.find(s->container);
      if (first == first_.end() || last == last_.end()) continue;
      double pct = 100 * (last->second.cpu_s - first->second.cpu_s) / elapsed_s;
      by_role[std::string(role_name(s->plan->role))] += pct;
      if (!s->plan->sample) continue;
      u.cpu_percent += pct;
      u.cpu_by_process[s->plan->binary] += pct;
    }
    return u;
  }

 private:
  std::vector<std::string> names() const {
    std::vector<std::string> out;
    for (const auto* s : services_) out.push_back(s->container);
    return out;
  }
  const ContainerEngine& engine_;
  std::vector<const RunningService*> services_;
  std::map<std::string, ContainerStats> first_, last_;
  double last_t_ = 0;
  double peak_mb_ = 0;
  int max_containers_ = 0;
};

struct Measurement {
  LoadResult load;
  std::optional<TreeUsage> target;
  std::map<std::string, double> cpu_by_role;
  std::vector<double> target_cpu_per_second;
  std::string invalid;  // the generator's own verdict, empty when valid
};

// Samples come every 10 ms (1 s for containers); a second's CPU% is the time-weighted mean of the
// samples that end in it, so the series lines up with the generator's per-second series.
class PerSecondCpu {
 public:
  void add(const TreeSample& s) {
    const double dt = s.t_s - last_t_;
    last_t_ = s.t_s;
    if (dt <= 0) return;
    const auto second = static_cast<std::size_t>(std::max(0.0, s.t_s - 1e-9));
    if (busy_.size() <= second) {
      busy_.resize(second + 1, 0);
      span_.resize(second + 1, 0);
    }
    busy_[second] += s.cpu_percent * dt;
    span_[second] += dt;
  }
  std::vector<double> percent() const {
    std::vector<double> out;
    for (std::size_t i = 0; i < busy_.size(); ++i)
      out.push_back(span_[i] > 0 ? busy_[i] / span_[i] : 0);
    return out;
  }

 private:
  double last_t_ = 0;
  std::vector<double> busy_, span_;
};

class ScenarioRun {
 public:
  ScenarioRun(const ScenarioPlan& plan, const RunContext& context, ScenarioResult& result)
      : plan_(plan), ctx_(context), result_(result), load_(plan.load) {}

  void run() {
    check_ports();
    fs::create_directories(plan_.run_dir);
    prepare_tls();
    write_service_inputs();
    for (const auto& service : plan_.services) start(service);
    // Cookie flows go through the running gateway, then the load's inputs can be made.
    prepare_cookies();
    write_load_inputs();
    if (ctx_.options.warmup_s > 0) {
      ctx_.progress.phase("warm-up", ctx_.options.warmup_s);
      measure("warmup", ctx_.options.warmup_s, rate_of_mode(), false);
    }
    if (load_.mode == LoadMode::search) {
      search();
    } else {
      ctx_.progress.phase("measure", ctx_.options.duration_s);
      Measurement m = measure("measure", ctx_.options.duration_s, rate_of_mode(), true);
      if (load_.mode == LoadMode::rate) result_.extra["offered_rate"] = load_.rate;
      accept(m);
    }
    stop_all();
  }

  // Stops every service (reverse start order) and checks nothing of theirs is left.
  void stop_all() {
    std::string left;
    while (!services_.empty()) {
      RunningService& s = services_.back();
      bool gone = s.container.empty() || remove_container(*ctx_.engine, s.container);
      gone = s.process.stop() && gone;
      if (!gone) left += (left.empty() ? "" : ", ") + s.plan->name;
      services_.pop_back();
    }
    if (!left.empty()) throw Outcome{Status::failed, "processes left behind by " + left};
  }

 private:
  std::optional<double> rate_of_mode() const {
    if (load_.mode == LoadMode::rate) return load_.rate;
    return std::nullopt;
  }

  void check_ports() {
    for (const auto& [name, port] : plan_.ports) {
      if (!port_free(port)) {
        throw Outcome{Status::skipped, "port " + std::to_string(port) + " (" + name + ") is busy"};
      }
    }
  }

  void prepare_tls() {
    for (const auto& step : plan_.prepare) {
      if (step.step != "tls-cert") continue;
      ctx_.progress.phase("prepare tls-cert");
      // A fresh ECDSA P-256 certificate per run: nothing secret is checked in.
      CaptureResult r =
          run_capture(*Toolbox().find("openssl"),
                      {"req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256",
                       "-nodes", "-days", "2", "-subj", "/CN=localhost", "-addext",
                       "subjectAltName=DNS:localhost,IP:127.0.0.1", "-keyout",
                       step.params.at("key"), "-out", step.params.at("cert")},
                      std::chrono::milliseconds(20000));
      if (r.interrupted) throw Interrupted{};
      if (r.timed_out || r.status != 0) {
        throw Outcome{Status::skipped, "prepare tls-cert failed: " + last_line(r.output)};
      }
    }
  }

  // GETs the step's paths in turn, keeping the cookies each reply sets, as a browser would.
  void prepare_cookies() {
    Variables vars = plan_.vars;
    bool any = false;
    for (const auto& step : plan_.prepare) {
      if (step.step != "cookies") continue;
      any = true;
      ctx_.progress.phase("prepare cookie " + step.cookie);
      std::map<std::string, std::string> jar;
      std::string trail;
      for (const auto& path : step.get) {
        if (stop_requested()) throw Interrupted{};
        std::vector<std::string> headers = step.headers;
        std::string cookie_header;
        for (const auto& [name, value] : jar) {
          cookie_header += (cookie_header.empty() ? "" : "; ") + name + "=" + value;
        }
        if (!cookie_header.empty()) headers.push_back("Cookie: " + cookie_header);
        auto reply = http_get(plan_.ports.at(step.port), path, headers, std::chrono::seconds(5));
        trail += " GET " + path + " -> " + (reply ? std::to_string(reply->status) : "no reply");
        if (!reply) break;
        for (const auto& [name, value] : reply->headers) {
          if (strcasecmp(name.c_str(), "set-cookie") != 0) continue;
          std::string pair = value.substr(0, value.find(';'));
          size_t eq = pair.find('=');
          if (eq == std::string::npos) continue;
          std::string cookie_name = pair.substr(0, eq);
          std::string cookie_value = pair.substr(eq + 1);
          if (cookie_value.empty()) {
            jar.erase(cookie_name);
          } else {
            jar[cookie_name] = cookie_value;
          }
        }
      }
      write_file((fs::path(plan_.run_dir) / ("prepare-" + step.cookie + ".txt")).string(),
                 trail.substr(1) + "\n");
      auto it = jar.find(step.cookie);
      if (it == jar.end()) {
        throw Outcome{Status::skipped, "prepare: no " + step.cookie + " cookie after" + trail};
      }
      vars["cookie." + step.cookie] = it->second;
    }
    if (!any) return;
    try {
      load_.headers.clear();
      for (const auto& h : load_.header_templates) {
        load_.headers.push_back(render_template(h, vars, "load.headers"));
      }
      if (!load_.requests_template.empty()) {
        load_.requests_content = render_template(load_.requests_template, vars, "load.requests");
      }
    } catch (const TemplateError& e) {
      throw Outcome{Status::failed, e.what()};
    }
  }

  void write_service_inputs() {
    for (const auto& service : plan_.services) {
      for (const auto& dir : service.dirs) fs::create_directories(dir);
      for (const auto& [path, content] : service.configs) write_file(path, content);
    }
  }

  void write_load_inputs() {
    if (!load_.requests_path.empty()) write_file(load_.requests_path, load_.requests_content);
    if (load_.tool == "wrk") write_file(script_path(), wrk_done_script());
  }

  std::string script_path() const { return (fs::path(plan_.run_dir) / "wrk-done.lua").string(); }

  void start(const ServicePlan& service) {
    ctx_.progress.phase("start " + service.name);
    SpawnSpec spec;
    spec.exe = service.exe;
    spec.args = service.args;
    spec.env = service.env;
    spec.stdout_path = service.stdout_path;
    spec.stderr_path = service.stderr_path;
    spec.cwd = plan_.run_dir;
    spec.cpus = service.cpus;
    std::string container;
    if (ctx_.engine != nullptr) {
      ContainerRun run;
      try {
        run.image =
            ensure_image(*ctx_.engine, service.exe, (fs::path(ctx_.out_dir) / "images").string());
      } catch (const std::exception& e) {
        throw Outcome{Status::skipped, "image for " + service.binary + ": " + e.what()};
      }
      std::string scenario = plan_.scenario.name;
      std::replace(scenario.begin(), scenario.end(), '/', '_');
      container = run.name = container_prefix() + scenario + "-" + service.name;
      run.exe = service.exe;
      run.args = service.args;
      run.env = service.env;
      run.cpus = service.cpus;
      run.volumes = {plan_.run_dir, plan_.vars.at("configs")};
      // The engine client is the driver's child; the service runs in the container.
      spec.exe = ctx_.engine->exe;
      spec.args = container_run_args(*ctx_.engine, run);
      spec.env.clear();
      spec.cpus = CpuSet{};
    }
    try {
      services_.push_back({&service, ChildProcess::spawn(spec), container});
    } catch (const SpawnError& e) {
      throw Outcome{Status::failed, service.name + ": " + e.what()};
    }
    ChildProcess& child = services_.back().process;
    const auto deadline =
        Clock::now() + std::chrono::milliseconds(std::llround(service.ready_timeout_s * 1000));
    for (;;) {
      if (stop_requested()) throw Interrupted{};
      if (auto status = child.exit_status()) {
        throw Outcome{Status::failed,
                      service.name + " " + describe_wait_status(*status) +
                          " before it was ready: " + last_line(read_file(service.stderr_path))};
      }
      bool ready =
          service.ready_http.empty()
              ? tcp_connects(service.ready_port, std::chrono::milliseconds(200))
              : http_status(service.ready_port, service.ready_http, std::chrono::milliseconds(500))
                    .has_value();
      if (ready) return;
      if (Clock::now() >= deadline) {
        throw Outcome{Status::failed, service.name + " not ready on port " +
                                          std::to_string(service.ready_port) + " within " +
                                          std::to_string(service.ready_timeout_s) + " s"};
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(25));
    }
  }

  void check_services_alive() {
    for (auto& s : services_) {
      if (auto status = s.process.exit_status()) {
        throw Outcome{Status::failed,
                      s.plan->name + " " + describe_wait_status(*status) +
                          " during the run: " + last_line(read_file(s.plan->stderr_path))};
      }
    }
  }

  std::vector<pid_t> groups(bool (*select)(const ServicePlan&, Role), Role role) const {
    std::vector<pid_t> out;
    for (const auto& s : services_) {
      if (select(*s.plan, role)) out.push_back(s.process.pid());
    }
    return out;
  }

  Measurement measure(const std::string& label, double duration_s, std::optional<double> rate,
                      bool sample) {
    const fs::path dir(plan_.run_dir);
    const std::string json_path = (dir / ("load-" + label + ".json")).string();
    const std::string stdout_path = (dir / ("load-" + label + ".txt")).string();
    const std::string stderr_path = (dir / ("load-" + label + ".stderr")).string();
    SpawnSpec spec;
    spec.exe = load_.exe;
    spec.args = load_.args(duration_s, rate, json_path, script_path());
    spec.stdout_path = stdout_path;
    spec.stderr_path = stderr_path;
    spec.cwd = plan_.run_dir;
    spec.cpus = load_.cpus;
    write_file((dir / ("load-" + label + ".cmd")).string(), shell_join(spec.exe, spec.args) + "\n");

    ChildProcess load;
    try {
      load = ChildProcess::spawn(spec);
    } catch (const SpawnError& e) {
      throw Outcome{Status::failed, load_.tool + ": " + e.what()};
    }
    const auto start = Clock::now();
    TreeSampler target(groups([](const ServicePlan& s, Role) { return s.sample; }, Role::gateway));
    std::map<std::string, TreeSampler> roles;
    for (Role role : {Role::backend, Role::gateway}) {
      auto g = groups([](const ServicePlan& s, Role r) { return s.role == r; }, role);
      if (!g.empty()) roles.emplace(std::string(role_name(role)), TreeSampler(g, false));
    }
    roles.emplace("load", TreeSampler({load.pid()}, false));
    std::optional<ContainerSampler> containers;
    if (ctx_.engine != nullptr) {
      std::vector<const RunningService*> running;
      for (const auto& s : services_) running.push_back(&s);
      containers.emplace(*ctx_.engine, running);
    }
    std::ofstream samples;
    PerSecondCpu target_cpu;
    if (sample) {
      const std::string samples_path = (dir / ("samples-" + label + ".csv")).string();
      samples.open(samples_path);
      samples << "t_s,role,processes,cpu_percent,pss_mb,rss_mb\n";
      auto snapshot = scan_proc();
      target.start(snapshot, 0);
      for (auto& [name, sampler] : roles) sampler.start(snapshot, 0);
      if (containers) containers->start();
    }
    // An engine `stats` call costs ~0.1 s of CPU: containers are sampled at most once a second.
    const auto interval = std::chrono::milliseconds(std::max<long long>(
        ctx_.engine != nullptr ? 1000 : 10, std::llround(ctx_.options.sample_interval_s * 1000)));
    const double limit_s = duration_s + 30;
    std::optional<uint64_t> last_writes;
    double last_t = 0;
    double elapsed = 0;
    for (;;) {
      if (!sleep_unless_stopped(interval)) throw Interrupted{};
      elapsed = seconds_since(start);
      auto status = load.exit_status();
      check_services_alive();
      if (sample) {
        auto snapshot = scan_proc();
        auto write_row = [&](const std::string& role, const TreeSample& s) {
          samples << s.t_s << ',' << role << ',' << s.processes << ',' << s.cpu_percent << ','
                  << s.pss_mb << ',' << s.rss_mb << '\n';
        };
        if (containers) {
          const TreeSample s = containers->sample(elapsed);
          target_cpu.add(s);
          write_row("target", s);
          write_row("load", roles.at("load").sample(snapshot, elapsed));
        } else {
          const TreeSample s = target.sample(snapshot, elapsed);
          target_cpu.add(s);
          write_row("target", s);
          for (auto& [name, sampler] : roles) write_row(name, sampler.sample(snapshot, elapsed));
        }
      }
      if (status) {
        if (!WIFEXITED(*status) || WEXITSTATUS(*status) != 0) {
          throw Outcome{Status::failed, load_.tool + " " + describe_wait_status(*status) + ": " +
                                            last_line(read_file(stderr_path))};
        }
        break;
      }
      if (elapsed > limit_s) {
        load.stop();
        throw Outcome{Status::failed, load_.tool + " did not finish within " +
                                          std::to_string(static_cast<int>(limit_s)) + " s"};
      }
      auto writes = write_syscalls(load.pid());
      std::optional<double> rps;
      if (writes && last_writes && elapsed > last_t) {
        rps = static_cast<double>(*writes - *last_writes) / (elapsed - last_t);
      }
      last_writes = writes;
      last_t = elapsed;
      ctx_.progress.tick(elapsed, rps);
    }
    load.stop();

    Measurement m;
    try {
      if (load_.tool == "wrk") {
        m.load = parse_wrk_output(read_file(stdout_path));
      } else {
        m.load = parse_load_json(read_file(json_path), json_path, &m.invalid);
      }
    } catch (const LoadParseError& e) {
      throw Outcome{Status::failed, e.what()};
    }
    if (sample) m.target_cpu_per_second = target_cpu.percent();
    if (sample && containers) {
      m.target = containers->usage(elapsed, m.cpu_by_role);
      m.cpu_by_role["load"] = roles.at("load").usage(elapsed).cpu_percent;
    } else if (sample) {
      m.target = target.usage(elapsed);
      for (auto& [name, sampler] : roles) m.cpu_by_role[name] = sampler.usage(elapsed).cpu_percent;
    }
    return m;
  }

  void accept(const Measurement& m) {
    if (m.load.requests == 0) throw Outcome{Status::failed, "no request completed"};
    // A run where nothing got the expected answer measured an error path, not the scenario.
    if (m.load.errors >= m.load.requests) {
      throw Outcome{Status::failed, "every response was an error (" +
                                        std::to_string(m.load.errors) + "), see the load output"};
    }
    result_.load = m.load;
    result_.target = m.target;
    result_.cpu_by_role = m.cpu_by_role;
    result_.target_cpu_per_second = m.target_cpu_per_second;
    if (!m.invalid.empty()) result_.extra["load_invalid"] = m.invalid;
  }

  // The highest offered rate whose p99 stays within the objective, by bisection between 0 and the
  // closed-loop capacity; it stops when the bracket is narrower than 5% of its top or after 8
  // steps. The reported figures are the best passing step's achieved ones.
  void search() {
    const double step_s = ctx_.options.duration_s;
    const double slo = load_.slo_p99_us;
    nlohmann::json steps = nlohmann::json::array();
    ctx_.progress.phase("search: capacity", step_s);
    Measurement capacity = measure("search-capacity", step_s, std::nullopt, true);
    steps.push_back({{"offered", nullptr},
                     {"achieved", capacity.load.rps},
                     {"p99_us", capacity.load.p99_us ? nlohmann::json(*capacity.load.p99_us)
                                                     : nlohmann::json()}});
    if (capacity.load.rps <= 0)
      throw Outcome{Status::failed, "closed-loop run completed no request"};
    double lo = 0, hi = capacity.load.rps, offered = capacity.load.rps;
    std::optional<Measurement> best;
    for (int i = 1; i <= 8; ++i) {
      std::ostringstream label;
      label << "search-" << i;
      ctx_.progress.phase("search: " + std::to_string(static_cast<long long>(offered)) + " req/s",
                          step_s);
      Measurement m = measure(label.str(), step_s, offered, true);
      const bool pass = m.load.errors == 0 && m.load.p99_us && *m.load.p99_us <= slo &&
                        m.load.rps >= 0.95 * offered;
      steps.push_back(
          {{"offered", offered},
           {"achieved", m.load.rps},
           {"p99_us", m.load.p99_us ? nlohmann::json(*m.load.p99_us) : nlohmann::json()},
           {"errors", m.load.errors},
           {"pass", pass}});
      if (pass) {
        lo = offered;
        if (!best || m.load.rps > best->load.rps) best = m;
      } else {
        hi = offered;
      }
      if (pass && i == 1) break;  // the closed-loop capacity itself meets the objective
      if (hi - lo <= 0.05 * hi) break;
      offered = (lo + hi) / 2;
    }
    result_.extra["slo_p99_us"] = slo;
    result_.extra["steps"] = steps;
    if (!best) {
      throw Outcome{Status::failed, "no offered rate kept p99 within " +
                                        std::to_string(static_cast<long long>(slo)) + " us"};
    }
    accept(*best);
  }

  const ScenarioPlan& plan_;
  const RunContext& ctx_;
  ScenarioResult& result_;
  std::vector<RunningService> services_;
  LoadPlan load_;  // the plan's, with cookies from prepare filled in
};

std::vector<std::string> list_artifacts(const std::string& run_dir, const std::string& out_dir) {
  std::vector<std::string> out;
  std::error_code ec;
  for (const auto& entry : fs::recursive_directory_iterator(run_dir, ec)) {
    if (entry.is_regular_file()) out.push_back(fs::relative(entry.path(), out_dir).string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

std::string container_prefix() {
  return "gb-" + std::to_string(getpid()) + "-";
}

ScenarioResult run_scenario(const ScenarioPlan& plan, const RunContext& context) {
  ScenarioResult result;
  result.name = plan.scenario.name;
  result.group = plan.scenario.group;
  result.baseline = plan.scenario.baseline;
  result.latency_baseline = plan.scenario.latency_baseline;
  result.target_role = std::string(role_name(plan.scenario.target_role()));
  result.target_cpus = plan.target_cpus;
  context.progress.begin(plan.scenario.name);
  if (!plan.skip_reason.empty()) {
    result.status = Status::skipped;
    result.reason = plan.skip_reason;
  } else {
    ScenarioRun run(plan, context, result);
    try {
      run.run();
      result.status = Status::ok;
    } catch (const Outcome& outcome) {
      result.status = outcome.status;
      result.reason = outcome.reason;
    } catch (const Interrupted&) {
      result.status = Status::failed;
      result.reason = "interrupted by signal " + std::to_string(stop_signal());
    } catch (const std::exception& e) {
      result.status = Status::failed;
      result.reason = e.what();
    }
    try {
      run.stop_all();
    } catch (const Outcome& outcome) {
      result.status = Status::failed;
      result.reason += (result.reason.empty() ? "" : "; ") + outcome.reason;
    }
    // Access logs grow by hundreds of MB per run: keep their size, not their content.
    for (const auto& service : plan.services) {
      for (const auto& path : service.discard) {
        std::error_code ec;
        auto size = fs::file_size(path, ec);
        if (ec) continue;
        result.extra["discarded_bytes"][fs::relative(path, plan.run_dir).string()] = size;
        fs::remove(path, ec);
      }
    }
    if (result.status != Status::ok) {
      result.load.reset();
      result.target.reset();
    }
    result.artifacts = list_artifacts(plan.run_dir, context.out_dir);
  }
  std::ostringstream summary;
  summary << status_name(result.status);
  if (result.status == Status::ok && result.load) {
    summary << ": " << static_cast<long long>(std::llround(result.load->rps)) << " req/s";
    if (result.load->p99_us) summary << ", p99 " << std::llround(*result.load->p99_us) << " us";
    if (result.target) summary << ", CPU " << std::llround(result.target->cpu_percent) << "%";
    summary << ", errors " << result.load->errors;
  } else {
    summary << ": " << result.reason;
  }
  context.progress.end(summary.str());
  return result;
}

}  // namespace gatebench::macro
