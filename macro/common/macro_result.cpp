#include "macro/common/macro_result.hpp"

#include <limits>

#include "macro/common/json_field.hpp"

namespace gatebench::common {

using nlohmann::json;
using Field = JsonField;

namespace {

// Writers. Every figure is written as the driver rounded it; nothing is rounded here.

json figure_json(const Figure& v) {
  return v ? json(*v) : json(nullptr);
}

json text_or_null(const std::string& s) {
  return s.empty() ? json(nullptr) : json(s);
}

json figure_map_json(const FigureMap& m) {
  json out = json::object();
  for (const auto& [name, v] : m) out[name] = figure_json(v);
  return out;
}

json number_map_json(const std::map<std::string, double>& m) {
  json out = json::object();
  for (const auto& [name, v] : m) out[name] = v;
  return out;
}

json latency_json(const MacroLatency& l) {
  return {{"p50", figure_json(l.p50)},
          {"p90", figure_json(l.p90)},
          {"p99", figure_json(l.p99)},
          {"p999", figure_json(l.p999)},
          {"mean", figure_json(l.mean)}};
}

json delta_json(const MacroLatencyDelta& d) {
  return {{"mean", figure_json(d.mean)},
          {"p50", figure_json(d.p50)},
          {"p90", figure_json(d.p90)},
          {"p99", figure_json(d.p99)}};
}

json per_role_json(const MacroCpuPerRole& c) {
  return {{"target", figure_json(c.target)},
          {"load", figure_json(c.load)},
          {"backend", figure_json(c.backend)}};
}

json seconds_json(const std::vector<MacroSecond>& seconds) {
  json out = json::array();
  for (const auto& s : seconds)
    out.push_back({{"t", s.t},
                   {"rps", s.rps},
                   {"p99_us", figure_json(s.p99_us)},
                   {"errors", s.errors},
                   {"cpu_percent", figure_json(s.cpu_percent)}});
  return out;
}

json interval_json(const std::optional<MacroMedianInterval>& iv) {
  if (!iv) return nullptr;
  return {
      {"median", iv->median}, {"lo", iv->lo}, {"hi", iv->hi}, {"n", iv->n}, {"level", iv->level}};
}

void write_load(json& j, const MacroRoundLoad& l) {
  j["rps"] = l.rps;
  j["requests"] = l.requests;
  j["measured_s"] = l.measured_s;
  j["latency_us"] = latency_json(l.latency_us);
  j["errors"] = l.errors;
  j["error_rate"] = figure_json(l.error_rate);
  if (!l.per_second.empty()) j["per_second"] = seconds_json(l.per_second);
  j["cpu_us_per_request"] = per_role_json(l.cpu_us_per_request);
  j["rps_per_gateway_cpu"] = figure_json(l.rps_per_gateway_cpu);
  j["window"] = {{"source", l.window_source}, {"s", l.window_s}};
  if (l.machine_cpu) {
    j["machine_cpu"] = {{"busy_percent", l.machine_cpu->busy_percent},
                        {"idle_percent", l.machine_cpu->idle_percent}};
    if (l.machine_cpu->steal_percent)
      j["machine_cpu"]["steal_percent"] = *l.machine_cpu->steal_percent;
  }
  if (l.handshakes)
    j["handshakes"] = {{"full", l.handshakes->full},
                       {"resumed", l.handshakes->resumed},
                       {"per_s", figure_json(l.handshakes->per_s)}};
  if (l.cpu_us_per_handshake) j["cpu_us_per_handshake"] = per_role_json(*l.cpu_us_per_handshake);
  j["harness_limit"] = l.harness_limit ? json(*l.harness_limit) : json(nullptr);
  if (l.hit_ratio) j["hit_ratio"] = figure_json(*l.hit_ratio);
}

// The members a scenario without an ok round writes as null.
constexpr const char* kUnmeasured[] = {"rps",
                                       "rps_per_gateway_cpu",
                                       "latency_us",
                                       "cpu_percent",
                                       "cpu_by_process",
                                       "peak_mb",
                                       "vs_nginx",
                                       "cpu_vs_nginx",
                                       "p99_vs_nginx",
                                       "cpu_us_per_request"};

void write_medians(json& s, const MacroMedians& m) {
  s["rps"] = figure_json(m.rps);
  s["rps_per_gateway_cpu"] = figure_json(m.rps_per_gateway_cpu);
  s["latency_us"] = latency_json(m.latency_us);
  s["cpu_percent"] = figure_json(m.cpu_percent);
  s["cpu_by_process"] = figure_map_json(m.cpu_by_process);
  s["cpu_by_role"] = figure_map_json(m.cpu_by_role);
  s["peak_mb"] = figure_json(m.peak_mb);
  s["peak_rss_mb"] = figure_json(m.peak_rss_mb);
  s["cpu_us_per_request"] = figure_map_json(m.cpu_us_per_request);
  if (!m.machine_cpu.empty()) s["machine_cpu"] = figure_map_json(m.machine_cpu);
  if (m.handshakes) {
    s["handshakes"] = {{"per_s", figure_json(m.handshakes->per_s)},
                       {"full", m.handshakes->full},
                       {"resumed", m.handshakes->resumed}};
    s["cpu_us_per_handshake"] = figure_map_json(m.handshakes->cpu_us_per_handshake);
  }
  s["target_role"] = m.target_role;
  s["target_cpus"] = m.target_cpus;
  s["vs_nginx"] = figure_json(m.vs_nginx);
  s["cpu_vs_nginx"] = figure_json(m.cpu_vs_nginx);
  s["p99_vs_nginx"] = figure_json(m.p99_vs_nginx);
  json intervals = json::object();
  for (const auto& [name, iv] : m.intervals) intervals[name] = interval_json(iv);
  s["intervals"] = intervals;
  if (m.hit_ratio) s["hit_ratio"] = figure_json(*m.hit_ratio);
  if (m.latency_delta_us) s["latency_delta_us"] = delta_json(*m.latency_delta_us);
  if (!m.per_second.empty()) s["per_second"] = seconds_json(m.per_second);
  if (!m.details.empty()) s["details"] = m.details;
  if (m.example_round) s["example_round"] = *m.example_round;
}

json scenario_json(const MacroScenario& sc) {
  json s;
  s["name"] = sc.name;
  if (!sc.group.empty()) s["group"] = sc.group;
  if (!sc.workload.empty()) s["workload"] = sc.workload;
  if (!sc.target.empty()) s["target"] = sc.target;
  s["status"] = sc.status;
  s["reason"] = sc.reason;
  s["baseline"] = sc.baseline;
  if (!sc.latency_baseline.empty()) s["latency_baseline"] = sc.latency_baseline;
  if (!sc.images.empty()) s["images"] = sc.images;
  if (sc.expect_hit_ratio)
    s["expect_hit_ratio"] = {sc.expect_hit_ratio->first, sc.expect_hit_ratio->second};
  s["rounds_planned"] = sc.rounds_planned;
  s["rounds_ok"] = sc.rounds_ok;
  if (sc.medians) {
    write_medians(s, *sc.medians);
  } else {
    for (const char* key : kUnmeasured) s[key] = nullptr;
  }
  s["errors"] = sc.errors ? json(*sc.errors) : json(nullptr);
  s["requests"] = sc.requests ? json(*sc.requests) : json(nullptr);
  s["error_rate"] = figure_json(sc.error_rate);
  if (!sc.counts.empty()) s["counts"] = number_map_json(sc.counts);
  s["artifacts"] = sc.artifacts;
  json rounds = json::array();
  for (const auto& r : sc.rounds) rounds.push_back(to_json(r));
  s["rounds"] = std::move(rounds);
  return s;
}

}  // namespace

json to_json(const MacroEnv& e) {
  json out = {{"commit", e.commit},
              {"dirty", e.dirty},
              {"cpu_model", e.cpu_model},
              {"cpus", e.cpus},
              {"kernel", e.kernel},
              {"compiler", e.compiler},
              {"runtime", e.runtime},
              {"pinning",
               {{"load", e.pinning.load ? json(*e.pinning.load) : json(nullptr)},
                {"backend", e.pinning.backend ? json(*e.pinning.backend) : json(nullptr)},
                {"gateway", e.pinning.gateway ? json(*e.pinning.gateway) : json(nullptr)}}},
              {"load_generator", e.load_generator},
              {"date", e.date}};
  if (!e.versions.empty()) out["versions"] = e.versions;
  if (!e.hosts.empty()) {
    json hosts = json::object();
    for (const auto& [name, h] : e.hosts)
      hosts[name] = {{"kind", h.kind},
                     {"address", text_or_null(h.address)},
                     {"roles", h.roles},
                     {"cpu_model", text_or_null(h.cpu_model)},
                     {"cpus", h.cpus > 0 ? json(h.cpus) : json(nullptr)},
                     {"kernel", text_or_null(h.kernel)}};
    out["hosts"] = hosts;
  }
  return out;
}

namespace {

json run_json(const MacroRunSettings& r) {
  return {{"duration_s", r.duration_s},
          {"warmup_s", r.warmup_s},
          {"connections", r.connections},
          {"quick", r.quick},
          {"smoke", r.quick},
          {"rounds", r.rounds},
          {"seed", r.seed},
          {"max_error_rate", r.max_error_rate},
          {"interval", {{"method", kMacroIntervalMethod}, {"level", kMacroIntervalLevel}}},
          {"interrupted", r.interrupted}};
}

// Readers: what is left out (or null) keeps the default (JsonField's *_or_default), a member of
// the wrong type is an error naming its pointer.
constexpr long kMaxInt = std::numeric_limits<int>::max();

// The file's small counts (rounds, positions, CPUs) as the type's int.
int int_or_default(const Field& f, int fallback) {
  return static_cast<int>(f.integer_or_default(fallback, 0, kMaxInt));
}

std::string status(const Field& f) {
  const std::string s = f.string();
  if (s != "ok" && s != "skipped" && s != "failed")
    f.fail("expected ok, skipped or failed, got '" + s + "'");
  return s;
}

FigureMap read_figure_map(const Field& f) {
  FigureMap out;
  if (f.object_if_present())
    for (const std::string& key : f.keys()) out[key] = f.child(key).optional_number();
  return out;
}

std::map<std::string, double> read_number_map(const Field& f) {
  std::map<std::string, double> out;
  if (f.object_if_present())
    for (const std::string& key : f.keys()) out[key] = f.child(key).number();
  return out;
}

MacroLatency read_latency(const Field& f) {
  MacroLatency l;
  if (!f.object_if_present()) return l;
  l.p50 = f.child("p50").optional_number();
  l.p90 = f.child("p90").optional_number();
  l.p99 = f.child("p99").optional_number();
  l.p999 = f.child("p999").optional_number();
  l.mean = f.child("mean").optional_number();
  return l;
}

MacroLatencyDelta read_delta(const Field& f) {
  f.expect_object();
  return {f.child("mean").optional_number(), f.child("p50").optional_number(),
          f.child("p90").optional_number(), f.child("p99").optional_number()};
}

MacroCpuPerRole read_per_role(const Field& f) {
  MacroCpuPerRole c;
  if (!f.object_if_present()) return c;
  return {f.child("target").optional_number(), f.child("load").optional_number(),
          f.child("backend").optional_number()};
}

std::vector<MacroSecond> read_seconds(const Field& f) {
  std::vector<MacroSecond> out;
  if (!f.array_if_present()) return out;
  for (std::size_t i = 0; i < f.size(); ++i) {
    const Field s = f.at(i);
    s.expect_object();
    out.push_back({s.child("t").number(), s.child("rps").number_or_default(),
                   s.child("p99_us").optional_number(), s.child("errors").number_or_default(),
                   s.child("cpu_percent").optional_number()});
  }
  return out;
}

MacroRoundLoad read_load(const Field& r) {
  MacroRoundLoad l;
  l.rps = r.child("rps").number();  // what a measured round is
  l.requests = r.child("requests").count_or_default();
  l.measured_s = r.child("measured_s").number_or_default();
  l.latency_us = read_latency(r.child("latency_us"));
  l.errors = r.child("errors").count_or_default();
  l.error_rate = r.child("error_rate").optional_number();
  l.per_second = read_seconds(r.child("per_second"));
  l.cpu_us_per_request = read_per_role(r.child("cpu_us_per_request"));
  l.rps_per_gateway_cpu = r.child("rps_per_gateway_cpu").optional_number();
  if (const Field w = r.child("window"); w.object_if_present()) {
    l.window_source = w.child("source").string_or_default();
    l.window_s = w.child("s").number_or_default();
  }
  if (const Field m = r.child("machine_cpu"); m.object_if_present())
    l.machine_cpu =
        MacroMachineCpu{m.child("busy_percent").number(), m.child("idle_percent").number(),
                        m.child("steal_percent").optional_number()};
  if (const Field h = r.child("handshakes"); h.object_if_present())
    l.handshakes = MacroRoundHandshakes{h.child("full").count_or_default(),
                                        h.child("resumed").count_or_default(),
                                        h.child("per_s").optional_number()};
  if (const Field c = r.child("cpu_us_per_handshake"); c.object_if_present())
    l.cpu_us_per_handshake = read_per_role(c);
  l.harness_limit = r.child("harness_limit").optional_string();
  if (r.has("hit_ratio")) l.hit_ratio = r.child("hit_ratio").optional_number();
  return l;
}

MacroRound read_round(const Field& r, std::size_t index) {
  r.expect_object();
  MacroRound out;
  out.round = int_or_default(r.child("round"), static_cast<int>(index) + 1);
  out.position = int_or_default(r.child("position"), 1);
  out.status = status(r.child("status"));
  out.reason = r.child("reason").string_or_default();
  // A round that ran its load generator writes requests beside rps; a hand-written one may
  // leave requests out.
  if (r.has("requests") || !r.child("rps").is_null()) out.load = read_load(r);
  if (!r.child("cpu_percent").is_null() || !r.child("cpu_by_process").is_null() ||
      !r.child("peak_mb").is_null()) {
    MacroTargetUsage t;
    t.cpu_percent = r.child("cpu_percent").number_or_default();
    t.cpu_by_process = read_number_map(r.child("cpu_by_process"));
    t.peak_mb = r.child("peak_mb").number_or_default();
    t.peak_rss_mb = r.child("peak_rss_mb").number_or_default();
    out.target = std::move(t);
  }
  out.cpu_by_role = read_number_map(r.child("cpu_by_role"));
  out.counts = read_number_map(r.child("counts"));
  out.vs_nginx = r.child("vs_nginx").optional_number();
  out.cpu_vs_nginx = r.child("cpu_vs_nginx").optional_number();
  out.p99_vs_nginx = r.child("p99_vs_nginx").optional_number();
  if (r.has("latency_delta_us")) {
    const Field d = r.child("latency_delta_us");
    out.latency_delta_us.emplace();
    if (!d.is_null()) *out.latency_delta_us = read_delta(d);
  }
  if (const Field d = r.child("details"); d.object_if_present()) out.details = d.json();
  out.artifacts = r.child("artifacts").strings();
  return out;
}

std::optional<MacroMedianInterval> read_interval(const Field& f) {
  if (f.is_null()) return std::nullopt;
  f.expect_object();
  MacroMedianInterval iv{f.child("median").number(), f.child("lo").number(), f.child("hi").number(),
                         static_cast<int>(f.child("n").integer(0, kMaxInt)),
                         f.child("level").number(0, 1)};
  if (iv.lo > iv.hi) f.child("lo").fail("expected <= hi");
  return iv;
}

MacroMedians read_medians(const Field& s) {
  MacroMedians m;
  m.rps = s.child("rps").optional_number();
  m.rps_per_gateway_cpu = s.child("rps_per_gateway_cpu").optional_number();
  m.latency_us = read_latency(s.child("latency_us"));
  m.cpu_percent = s.child("cpu_percent").optional_number();
  m.cpu_by_process = read_figure_map(s.child("cpu_by_process"));
  m.cpu_by_role = read_figure_map(s.child("cpu_by_role"));
  m.peak_mb = s.child("peak_mb").optional_number();
  m.peak_rss_mb = s.child("peak_rss_mb").optional_number();
  m.cpu_us_per_request = read_figure_map(s.child("cpu_us_per_request"));
  m.machine_cpu = read_figure_map(s.child("machine_cpu"));
  if (const Field h = s.child("handshakes"); h.object_if_present())
    m.handshakes = MacroScenarioHandshakes{
        h.child("per_s").optional_number(), h.child("full").count_or_default(),
        h.child("resumed").count_or_default(), read_figure_map(s.child("cpu_us_per_handshake"))};
  m.target_role = s.child("target_role").string_or_default();
  m.target_cpus = int_or_default(s.child("target_cpus"), 1);
  m.vs_nginx = s.child("vs_nginx").optional_number();
  m.cpu_vs_nginx = s.child("cpu_vs_nginx").optional_number();
  m.p99_vs_nginx = s.child("p99_vs_nginx").optional_number();
  if (const Field iv = s.child("intervals"); iv.object_if_present())
    for (const std::string& key : iv.keys()) m.intervals[key] = read_interval(iv.child(key));
  if (s.has("hit_ratio")) m.hit_ratio = s.child("hit_ratio").optional_number();
  if (const Field d = s.child("latency_delta_us"); !d.is_null()) m.latency_delta_us = read_delta(d);
  m.per_second = read_seconds(s.child("per_second"));
  if (const Field d = s.child("details"); d.object_if_present()) m.details = d.json();
  if (!s.child("example_round").is_null())
    m.example_round = int_or_default(s.child("example_round"), 0);
  return m;
}

MacroScenario read_scenario(const Field& s) {
  s.expect_object();
  MacroScenario out;
  out.name = s.child("name").string();
  out.group = s.child("group").string_or_default();
  out.workload = s.child("workload").string_or_default();
  out.target = s.child("target").string_or_default();
  out.status = status(s.child("status"));
  out.reason = s.child("reason").string_or_default();
  out.baseline = s.child("baseline").string_or_default();
  out.latency_baseline = s.child("latency_baseline").string_or_default();
  if (const Field images = s.child("images"); images.object_if_present())
    out.images = images.json();
  if (const Field e = s.child("expect_hit_ratio"); !e.is_null()) {
    e.expect_array();
    if (e.size() != 2) e.fail("expected [lowest, highest]");
    out.expect_hit_ratio = std::pair(e.at(0).number(0, 1), e.at(1).number(0, 1));
  }
  if (const Field rounds = s.child("rounds"); rounds.array_if_present())
    for (std::size_t i = 0; i < rounds.size(); ++i)
      out.rounds.push_back(read_round(rounds.at(i), i));
  int ok = 0;
  for (const auto& r : out.rounds) ok += r.status == "ok" ? 1 : 0;
  out.rounds_planned =
      int_or_default(s.child("rounds_planned"), static_cast<int>(out.rounds.size()));
  out.rounds_ok = int_or_default(s.child("rounds_ok"), ok);
  // The driver writes the medians exactly when a round was ok; a hand-written scenario (or a
  // /1 one) may have its figures without rounds.
  if (out.rounds_ok > 0 || !s.child("rps").is_null()) out.medians = read_medians(s);
  if (!s.child("errors").is_null()) out.errors = s.child("errors").count_or_default();
  if (!s.child("requests").is_null()) out.requests = s.child("requests").count_or_default();
  out.error_rate = s.child("error_rate").optional_number();
  out.counts = read_number_map(s.child("counts"));
  out.artifacts = s.child("artifacts").strings();
  return out;
}

MacroEnv read_env(const Field& f) {
  MacroEnv e;
  if (!f.object_if_present()) return e;
  e.commit = f.child("commit").string_or_default();
  e.dirty = f.child("dirty").boolean_or_default();
  e.cpu_model = f.child("cpu_model").string_or_default();
  e.cpus = int_or_default(f.child("cpus"), 0);
  e.kernel = f.child("kernel").string_or_default();
  e.compiler = f.child("compiler").string_or_default();
  e.runtime = f.child("runtime").string_or_default();
  if (const Field p = f.child("pinning"); p.object_if_present())
    e.pinning = {p.child("load").optional_string(), p.child("backend").optional_string(),
                 p.child("gateway").optional_string()};
  e.load_generator = f.child("load_generator").string_or_default();
  e.date = f.child("date").string_or_default();
  if (const Field versions = f.child("versions"); versions.object_if_present())
    for (const std::string& name : versions.keys())
      e.versions[name] = versions.child(name).string_or_default();
  if (const Field hosts = f.child("hosts"); hosts.object_if_present()) {
    for (const std::string& name : hosts.keys()) {
      const Field h = hosts.child(name);
      h.expect_object();
      e.hosts[name] = {
          h.child("kind").string_or_default(), h.child("address").string_or_default(),
          h.child("roles").strings(),          h.child("cpu_model").string_or_default(),
          int_or_default(h.child("cpus"), 0),  h.child("kernel").string_or_default()};
    }
  }
  return e;
}

MacroRunSettings read_run(const Field& f) {
  MacroRunSettings r;
  if (!f.object_if_present()) return r;
  r.duration_s = f.child("duration_s").number_or_default();
  r.warmup_s = f.child("warmup_s").number_or_default();
  r.connections = int_or_default(f.child("connections"), 0);
  // quick is the driver's name, smoke the older one; the driver writes both.
  r.quick = f.child("quick").boolean_or_default() || f.child("smoke").boolean_or_default();
  r.rounds = int_or_default(f.child("rounds"), 0);
  r.seed = f.child("seed").count_or_default();
  r.max_error_rate = f.child("max_error_rate").number_or_default();
  r.interrupted = f.child("interrupted").boolean_or_default();
  return r;
}

// gatebench.macro/1 (docs/scenarios.md, schema history): one run per scenario, its figures at the
// top level where /2 writes the medians. report.json of a /1 input wrote the target's CPU per
// request as a number; /2 writes {target, load, backend}.

std::optional<double> per_request_us(const Figure& cpu_percent, double rps) {
  if (!cpu_percent || rps <= 0) return std::nullopt;
  return *cpu_percent / 100.0 / rps * 1e6;
}

Figure figure_of(const FigureMap& m, const char* key) {
  const auto it = m.find(key);
  return it == m.end() ? std::nullopt : it->second;
}

// The one round of a /1 scenario: its figures, as /2 writes a round's.
MacroRound v1_round(const MacroScenario& sc, int position) {
  MacroRound round;
  round.position = position;
  round.status = sc.status;
  round.reason = sc.reason;
  if (!sc.medians) return round;
  const MacroMedians& m = *sc.medians;
  if (m.rps) {
    MacroRoundLoad& l = round.load.emplace();
    l.rps = *m.rps;
    l.requests = sc.requests.value_or(0);
    l.latency_us = m.latency_us;
    l.errors = sc.errors.value_or(0);
    l.error_rate = sc.error_rate;
    l.per_second = m.per_second;
    l.cpu_us_per_request = {figure_of(m.cpu_us_per_request, "target"),
                            figure_of(m.cpu_us_per_request, "load"),
                            figure_of(m.cpu_us_per_request, "backend")};
    l.rps_per_gateway_cpu = m.rps_per_gateway_cpu;
    l.hit_ratio = m.hit_ratio;
  }
  if (m.cpu_percent) {
    MacroTargetUsage& t = round.target.emplace();
    t.cpu_percent = *m.cpu_percent;
    for (const auto& [name, v] : m.cpu_by_process)
      if (v) t.cpu_by_process[name] = *v;
    t.peak_mb = m.peak_mb.value_or(0);
    t.peak_rss_mb = m.peak_rss_mb.value_or(0);
  }
  for (const auto& [name, v] : m.cpu_by_role)
    if (v) round.cpu_by_role[name] = *v;
  round.counts = sc.counts;
  round.vs_nginx = m.vs_nginx;
  round.cpu_vs_nginx = m.cpu_vs_nginx;
  round.p99_vs_nginx = m.p99_vs_nginx;
  round.details = m.details;
  return round;
}

MacroResult read_v1(const Field& root) {
  // The number report.json wrote becomes the object the /2 reader reads, in a copy of the
  // document: the pointers of every other error stay the file's.
  json doc = root.json();
  if (doc.contains("scenarios") && doc["scenarios"].is_array())
    for (json& s : doc["scenarios"])
      if (s.is_object() && s.contains("cpu_us_per_request") && s["cpu_us_per_request"].is_number())
        s["cpu_us_per_request"] = {{"target", s["cpu_us_per_request"]}};
  const Field copy = root.json() == doc ? root : Field(doc, root.file());
  MacroResult r;
  r.env = read_env(copy.child("env"));
  r.run = read_run(copy.child("run"));
  const Field scenarios = copy.child("scenarios");
  scenarios.expect_array();
  for (std::size_t i = 0; i < scenarios.size(); ++i) {
    r.scenarios.push_back(read_scenario(scenarios.at(i)));
    // An ok /1 scenario is one that measured.
    const MacroScenario& s = r.scenarios.back();
    if (s.status == "ok" && !(s.medians && s.medians->rps))
      scenarios.at(i).child("rps").number();  // fails, naming the member
  }
  // Each role's CPU per request, from the one run's CPU% and req/s.
  for (MacroScenario& s : r.scenarios) {
    if (s.baseline.empty()) s.baseline = "nginx-baseline";
    if (s.status != "ok" || !s.medians || !s.medians->rps || *s.medians->rps <= 0) continue;
    MacroMedians& m = *s.medians;
    const double rps = *m.rps;
    if (!figure_of(m.cpu_us_per_request, "target"))
      m.cpu_us_per_request["target"] = per_request_us(m.cpu_percent, rps);
    m.cpu_us_per_request["load"] = per_request_us(figure_of(m.cpu_by_role, "load"), rps);
    m.cpu_us_per_request["backend"] = per_request_us(figure_of(m.cpu_by_role, "backend"), rps);
  }
  // The ratios /2 pairs per round, against the baseline scenario of the same file.
  for (std::size_t i = 0; i < r.scenarios.size(); ++i) {
    MacroScenario& s = r.scenarios[i];
    const MacroScenario* b = nullptr;
    for (const MacroScenario& c : r.scenarios)
      if (!b && c.name == s.baseline) b = &c;
    if (s.status == "ok" && s.medians && b && b->status == "ok" && b->medians) {
      const Figure p99 = s.medians->latency_us.p99, bp99 = b->medians->latency_us.p99;
      if (p99 && bp99 && *bp99 > 0) s.medians->p99_vs_nginx = *p99 / *bp99;
      const Figure cpu = figure_of(s.medians->cpu_us_per_request, "target");
      const Figure bcpu = figure_of(b->medians->cpu_us_per_request, "target");
      if (cpu && bcpu && *bcpu > 0) s.medians->cpu_vs_nginx = *cpu / *bcpu;
    }
  }
  for (std::size_t i = 0; i < r.scenarios.size(); ++i) {
    MacroScenario& s = r.scenarios[i];
    s.rounds = {v1_round(s, static_cast<int>(i) + 1)};
    s.rounds_planned = 1;
    s.rounds_ok = s.status == "ok" ? 1 : 0;
  }
  return r;
}

}  // namespace

json to_json(const MacroRound& r) {
  json j;
  j["round"] = r.round;
  j["position"] = r.position;
  j["status"] = r.status;
  j["reason"] = r.reason;
  if (r.load) write_load(j, *r.load);
  if (r.target) {
    j["cpu_percent"] = r.target->cpu_percent;
    j["cpu_by_process"] = number_map_json(r.target->cpu_by_process);
    j["peak_mb"] = r.target->peak_mb;
    j["peak_rss_mb"] = r.target->peak_rss_mb;
  }
  if (!r.cpu_by_role.empty()) j["cpu_by_role"] = number_map_json(r.cpu_by_role);
  if (!r.counts.empty()) j["counts"] = number_map_json(r.counts);
  j["vs_nginx"] = figure_json(r.vs_nginx);
  j["cpu_vs_nginx"] = figure_json(r.cpu_vs_nginx);
  j["p99_vs_nginx"] = figure_json(r.p99_vs_nginx);
  if (r.latency_delta_us)
    j["latency_delta_us"] = *r.latency_delta_us ? delta_json(**r.latency_delta_us) : json(nullptr);
  if (!r.details.empty()) j["details"] = r.details;
  j["artifacts"] = r.artifacts;
  return j;
}

json to_json(const MacroResult& result) {
  json out;
  out["schema"] = kMacroSchema;
  out["env"] = to_json(result.env);
  out["run"] = run_json(result.run);
  json scenarios = json::array();
  for (const auto& s : result.scenarios) scenarios.push_back(scenario_json(s));
  out["scenarios"] = std::move(scenarios);
  return out;
}

bool is_macro_schema(std::string_view schema) {
  return schema == kMacroSchema || schema == kMacroSchemaV1;
}

MacroResult macro_result_from_json(const Field& root) {
  const json& doc = root.json();
  const bool v1 = root.present() && doc.is_object() && doc.contains("schema") &&
                  doc["schema"].is_string() && doc["schema"].get<std::string>() == kMacroSchemaV1;
  if (!v1 &&
      (!root.present() || !doc.is_object() || !root.has("schema") ||
       !root.child("schema").json().is_string() || root.child("schema").string() != kMacroSchema))
    root.child("schema").fail("expected " + std::string(kMacroSchema));
  if (v1) return read_v1(root);
  MacroResult r;
  r.env = read_env(root.child("env"));
  r.run = read_run(root.child("run"));
  const Field scenarios = root.child("scenarios");
  scenarios.expect_array();
  for (std::size_t i = 0; i < scenarios.size(); ++i)
    r.scenarios.push_back(read_scenario(scenarios.at(i)));
  return r;
}

MacroResult macro_result_from_json(const json& doc, const std::string& source) {
  return macro_result_from_json(Field(doc, source));
}

MacroResult parse_macro_result(const std::string& text, const std::string& source) {
  return macro_result_from_json(parse_json_text(text, source), source);
}

}  // namespace gatebench::common
