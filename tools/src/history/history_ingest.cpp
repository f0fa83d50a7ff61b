// Result files -> history runs: where each file keeps its commit, date and machine, and which of
// its figures the history keeps (docs/history.md "What a run holds").
#include <openssl/evp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <limits>
#include <stdexcept>

#include "tools/src/history/history_db.hpp"

namespace gatebench::tools {

using nlohmann::json;

namespace {

std::string string_of(const json& obj, const char* key) {
  if (!obj.is_object() || !obj.contains(key)) return "";
  const json& v = obj[key];
  if (v.is_string()) return v.get<std::string>();
  if (v.is_number_integer()) return std::to_string(v.get<long long>());
  return "";
}

// 0 (unknown) for what is missing or not a whole number in int's range: these are descriptive
// fields (CPU count, cache level) of files written elsewhere, and get<int>() of 1e30 is undefined.
int int_of(const json& obj, const char* key) {
  if (!obj.is_object() || !obj.contains(key) || !obj[key].is_number()) return 0;
  const double d = obj[key].get<double>();
  const bool whole_int = d >= std::numeric_limits<int>::min() &&
                         d <= std::numeric_limits<int>::max() && d == std::floor(d);
  return whole_int ? static_cast<int>(d) : 0;
}

std::string iso_utc(std::time_t t) {
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

// Google Benchmark's context.date: "2026-11-29T19:28:36+00:00" (local time with its offset).
// Normalised to UTC so that dates from machines in different zones sort as strings.
std::optional<std::string> parse_iso_date(const std::string& text) {
  std::tm tm{};
  int offset_h = 0, offset_m = 0;
  char sign = '+';
  const int n =
      std::sscanf(text.c_str(), "%4d-%2d-%2dT%2d:%2d:%2d%c%2d:%2d", &tm.tm_year, &tm.tm_mon,
                  &tm.tm_mday, &tm.tm_hour, &tm.tm_min, &tm.tm_sec, &sign, &offset_h, &offset_m);
  if (n < 6) return std::nullopt;
  tm.tm_year -= 1900;
  tm.tm_mon -= 1;
  std::time_t t = timegm(&tm);
  if (n == 9 && (sign == '+' || sign == '-')) {
    const std::time_t offset = offset_h * 3600 + offset_m * 60;
    t += sign == '+' ? -offset : offset;
  }
  return iso_utc(t);
}

// "L1d 32K,L1i 32K,L2 1024K,L3 32768K": the cache sizes Google Benchmark found.
std::string cache_summary(const json& context) {
  std::string out;
  if (!context.contains("caches") || !context["caches"].is_array()) return out;
  for (const json& c : context["caches"]) {
    if (!c.is_object()) continue;
    std::string type = string_of(c, "type");
    const std::string kind = type == "Data" ? "d" : type == "Instruction" ? "i" : "";
    if (!out.empty()) out += ',';
    out += "L" + std::to_string(int_of(c, "level")) + kind + " " +
           std::to_string(c.value("size", 0LL) / 1024) + "K";
  }
  return out;
}

bool truthy(const json& obj, const char* key) {
  if (!obj.is_object() || !obj.contains(key)) return false;
  const json& v = obj[key];
  return (v.is_boolean() && v.get<bool>()) || (v.is_string() && v.get<std::string>() == "true");
}

void add_figure(HistoryRun& run, const std::string& subject, const char* figure, const char* unit,
                bool lower, std::optional<double> value, std::vector<double> samples) {
  if (!value) return;
  run.figures.push_back({subject, figure, unit, lower, *value, std::move(samples)});
}

HistoryRun micro_run(const MicroRun& micro) {
  HistoryRun run;
  run.source = "micro";
  const json& c = micro.context;
  if (const std::string commit = string_of(c, "gatebench_commit"); !commit.empty())
    run.commit = commit;
  run.dirty = truthy(c, "gatebench_dirty");
  run.time = parse_iso_date(string_of(c, "date")).value_or("");
  run.machine.host = string_of(c, "host_name");
  run.machine.cpus = int_of(c, "num_cpus");
  run.machine.caches = cache_summary(c);
  // gatebench-micro adds these; a micro.json of another Google Benchmark binary has none.
  run.machine.cpu_model = string_of(c, "gatebench_cpu_model");
  run.machine.kernel = string_of(c, "gatebench_kernel");
  run.machine.compiler = string_of(c, "gatebench_compiler");
  for (const auto& b : micro.benchmarks) {
    if (!b.error.empty() || b.cpu_ns.empty()) continue;
    add_figure(run, b.name, "cpu_time", "ns", true, median(b.cpu_ns), b.cpu_ns);
    add_figure(run, b.name, "real_time", "ns", true, median(b.real_ns), b.real_ns);
    if (b.items_per_second.size() == b.cpu_ns.size())
      add_figure(run, b.name, "items_per_second", "1/s", false, median(b.items_per_second),
                 b.items_per_second);
  }
  return run;
}

// The per-round values of one figure over the ok rounds.
template <class Get>
std::vector<double> round_values(const MacroScenario& s, Get get) {
  std::vector<double> out;
  for (const auto& r : s.rounds)
    if (r.ok())
      if (const std::optional<double> v = get(static_cast<const MacroFigures&>(r)))
        out.push_back(*v);
  return out;
}

// A macro run's commit, time and machine from the driver's env.
HistoryRun macro_run_of(const common::MacroEnv& env) {
  HistoryRun run;
  run.source = "macro";
  if (!env.commit.empty()) run.commit = env.commit;
  run.dirty = env.dirty;
  // env.date since the driver of 2026-12-01; older files are timed when they are added.
  run.time = parse_iso_date(env.date).value_or("");
  run.machine.cpu_model = env.cpu_model;
  run.machine.cpus = env.cpus;
  run.machine.kernel = env.kernel;
  run.machine.compiler = env.compiler;
  run.machine.runtime = env.runtime;
  return run;
}

// The same members of instructions.json's env, which gatebench.macro_instructions/1 keeps as the
// driver wrote it (JSON): read as leniently as micro.json's context.
common::MacroEnv env_of(const json& env) {
  common::MacroEnv e;
  e.commit = string_of(env, "commit");
  e.dirty = truthy(env, "dirty");
  e.date = string_of(env, "date");
  e.cpu_model = string_of(env, "cpu_model");
  e.cpus = int_of(env, "cpus");
  e.kernel = string_of(env, "kernel");
  e.compiler = string_of(env, "compiler");
  e.runtime = string_of(env, "runtime");
  return e;
}

HistoryRun macro_run(const MacroRun& macro) {
  HistoryRun run = macro_run_of(macro.env);
  run.smoke = macro.smoke();
  struct Figure {
    const char* name;
    const char* unit;
    bool lower;
    std::optional<double> (*get)(const MacroFigures&);
  };
  static const Figure kFigures[] = {
      {"rps", "req/s", false, [](const MacroFigures& f) { return f.rps; }},
      {"cpu_us_per_request", "us", true,
       [](const MacroFigures& f) { return f.cpu_us_per_request.target; }},
      // compare's CPU gate (docs/compare.md): the target's CPU per request over the load
      // generator's, which cancels whole-round shifts of the machine.
      {"cpu_vs_load", "ratio", true,
       [](const MacroFigures& f) -> std::optional<double> {
         const auto t = f.cpu_us_per_request.target, l = f.cpu_us_per_request.load;
         if (!t || !l || *l <= 0) return std::nullopt;
         return *t / *l;
       }},
      {"vs_nginx", "ratio", false, [](const MacroFigures& f) { return f.vs_nginx; }},
      {"cpu_vs_nginx", "ratio", true, [](const MacroFigures& f) { return f.cpu_vs_nginx; }},
      {"p99_us", "us", true, [](const MacroFigures& f) { return f.latency_at(99); }},
      {"p99_vs_nginx", "ratio", true, [](const MacroFigures& f) { return f.p99_vs_nginx; }},
      {"rps_per_gateway_cpu", "req/s", false,
       [](const MacroFigures& f) { return f.rps_per_gateway_cpu; }},
  };
  for (const auto& s : macro.scenarios) {
    if (!s.ok()) continue;
    for (const Figure& f : kFigures) {
      std::vector<double> samples = round_values(s, f.get);
      // The driver's median where it gives one; cpu_vs_load has none: the rounds' median.
      std::optional<double> value = f.get(s);
      if (!value && !samples.empty()) value = median(samples);
      add_figure(run, s.name, f.name, f.unit, f.lower, value, std::move(samples));
    }
  }
  return run;
}

// The exact counts per request of each ok scenario (gatebench.macro_instructions/1). Only the
// per-request figures, not the N and 2N runs' totals: those are how the figure was made.
std::vector<HistoryFigure> count_figures(const common::MacroCountFile& counts) {
  std::vector<HistoryFigure> out;
  for (const auto& s : counts.scenarios) {
    if (s.status != "ok") continue;
    if (s.instructions_per_request)
      out.push_back({s.name,
                     "instructions_per_request",
                     "instructions",
                     true,
                     *s.instructions_per_request,
                     {}});
    if (s.syscalls_per_request)
      out.push_back({s.name, "syscalls_per_request", "calls", true, *s.syscalls_per_request, {}});
  }
  return out;
}

HistoryRun counts_run(const common::MacroCountFile& counts) {
  HistoryRun run = macro_run_of(env_of(counts.env));
  run.figures = count_figures(counts);
  return run;
}

}  // namespace

std::string iso_time_now() {
  return iso_utc(std::chrono::system_clock::to_time_t(std::chrono::system_clock::now()));
}

std::string sha256_hex(const std::string& bytes) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  if (EVP_Digest(bytes.data(), bytes.size(), digest, &length, EVP_sha256(), nullptr) != 1)
    throw std::runtime_error("SHA-256 failed (OpenSSL EVP_Digest)");
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (unsigned int i = 0; i < length; ++i) {
    out += kHex[digest[i] >> 4];
    out += kHex[digest[i] & 15];
  }
  return out;
}

std::string MachineInfo::fingerprint() const {
  const std::string canonical = "gatebench.machine/1\nhost=" + host + "\ncpu_model=" + cpu_model +
                                "\ncpus=" + std::to_string(cpus) + "\nkernel=" + kernel +
                                "\ncompiler=" + compiler + "\ncaches=" + caches +
                                "\nruntime=" + runtime + "\n";
  return sha256_hex(canonical).substr(0, 16);
}

std::string MachineInfo::summary() const {
  std::string out;
  auto add = [&](const std::string& s) {
    if (s.empty()) return;
    if (!out.empty()) out += ", ";
    out += s;
  };
  add(host);
  if (cpus > 0) add(std::to_string(cpus) + " CPUs");
  add(cpu_model);
  add(kernel);
  add(compiler);
  add(runtime);
  return out.empty() ? "unknown machine" : out;
}

std::vector<HistoryRun> history_runs_from(const ResultSet& set, const std::string& now) {
  std::vector<HistoryRun> runs;
  if (set.micro) runs.push_back(micro_run(*set.micro));
  if (set.macro) runs.push_back(macro_run(*set.macro));
  if (set.macro_instructions) {
    // A report's counts belong to its macro run (one run per source and file); an
    // instructions.json is a macro run of its own.
    if (set.macro) {
      for (auto& f : count_figures(*set.macro_instructions)) runs.back().figures.push_back(f);
    } else {
      runs.push_back(counts_run(*set.macro_instructions));
    }
  }
  // A macro.json from before env.date: a report.json's micro date stands for both parts.
  const std::string fallback =
      !runs.empty() && !runs.front().time.empty() ? runs.front().time : now;
  for (auto& r : runs) {
    r.file = set.file;
    r.kind = set.kind;
    if (r.time.empty()) r.time = fallback;
  }
  return runs;
}

}  // namespace gatebench::tools
