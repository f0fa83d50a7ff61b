#include "macro/driver/measure/instructions.hpp"

#include <sys/wait.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>

#include "macro/common/duration.hpp"
#include "macro/common/stop_signal.hpp"
#include "macro/driver/measure/prepare.hpp"
#include "macro/driver/results/load_json.hpp"
#include "macro/driver/results/run_support.hpp"
#include "macro/driver/runtime/services.hpp"
#include "macro/driver/system/children.hpp"
#include "macro/driver/system/net_probe.hpp"

namespace gatebench::macro {
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

// Upper bounds only: a run ends when its requests are done. Under callgrind the gateway runs
// about 50x slower, and a start-up that loads rule sets and tables takes seconds.
constexpr double kLoadLimitS = 1200;
constexpr double kReadyTimeoutS = 120;
constexpr auto kStopGrace = std::chrono::seconds(120);

// Requests are paced (open loop, one connection), 20 ms apart: far longer than the gateway needs
// for one request under callgrind (about 1 ms; a new TLS connection takes longer and then the
// pace is simply not kept), so the gateway has always finished a request and found its socket
// empty before the next one arrives. Closed loop, the next request raced the gateway's last
// read of the previous one, and each lost race cost one more SSL_read returning "want read"
// (docs/attribution.md).
constexpr double kPaceRate = 50;
constexpr double kRequestTimeoutS = 60;

const ServicePlan* reference_gateway(const ScenarioPlan& plan) {
  for (const auto& s : plan.services)
    if (s.binary == "gatebench-gateway") return &s;
  return nullptr;
}

bool has_gateway_role(const ScenarioPlan& plan) {
  return std::any_of(plan.services.begin(), plan.services.end(),
                     [](const ServicePlan& s) { return s.role == Role::gateway; });
}

// One worker, so the count is one event loop's and no work moves between threads.
std::string with_one_worker(const std::string& content) {
  json cfg = json::parse(content, nullptr, false);
  if (cfg.is_discarded() || !cfg.is_object() || !cfg.contains("workers")) return content;
  cfg["workers"] = 1;
  return cfg.dump(2) + "\n";
}

// Every process of the measured tree writes its own files here.
std::string tree_dir(const ScenarioPlan& p) {
  return p.run_dir + "/valgrind";
}

// The services valgrind runs: the reference gateway (toggled, or by its tree), else every
// gateway-role service (by its tree).
bool measured(const ServicePlan& s, bool toggle) {
  return toggle ? s.binary == "gatebench-gateway" : s.role == Role::gateway;
}

ScenarioPlan under_callgrind(const ScenarioPlan& plan, const std::string& valgrind, bool toggle) {
  ScenarioPlan p = plan;
  for (auto& s : p.services) {
    if (!measured(s, toggle)) continue;
    if (s.binary == "gatebench-gateway")
      for (auto& [path, content] : s.configs) content = with_one_worker(content);
    // nginx forks its workers (master_process on): each process of the tree, forked or exec'd,
    // writes its own files, %p being its pid.
    std::vector<std::string> args = {"--tool=callgrind", "--trace-children=yes",
                                     "--trace-syscalls=yes",
                                     "--callgrind-out-file=" + tree_dir(p) + "/callgrind.out.%p",
                                     "--log-file=" + tree_dir(p) + "/valgrind.%p.log"};
    if (toggle) args.insert(args.end(), kCollectOptions.begin(), kCollectOptions.end());
    args.push_back(s.exe);
    args.insert(args.end(), s.args.begin(), s.args.end());
    s.exe = valgrind;
    s.args = std::move(args);
    s.ready_timeout_s = std::max(s.ready_timeout_s, kReadyTimeoutS);
  }
  return p;
}

// valgrind's own messages of every process (not the traced calls), for a failure's reason.
std::string valgrind_messages(const ScenarioPlan& p) {
  std::string out;
  for (const auto& file : tree_files(tree_dir(p)).logs) {
    std::istringstream in(read_text(file));
    for (std::string line; std::getline(in, line);)
      if (line.starts_with("==")) out += line + "\n";
  }
  return out;
}

std::string valgrind_problem(const ScenarioPlan& p) {
  const std::string log = valgrind_messages(p);
  if (log.find("unhandled instruction") != std::string::npos ||
      log.find("did not recognise") != std::string::npos) {
    // "==pid==    at 0x471B09: ??? (in /usr/bin/caddy)": which binary holds the instruction.
    std::string where;
    if (const auto at = log.find("(in /"); at != std::string::npos)
      where = " " + log.substr(at, log.find(')', at) + 1 - at);
    return "valgrind cannot decode an instruction" + where +
           ": a gatebench-gateway built with -march=native uses SHA-NI or AVX-512 (build it with "
           "-DGATEBENCH_MARCH=x86-64-v3, as the callgrind preset); other binaries may use "
           "instructions this valgrind lacks (Go's runtime: RDTSCP)";
  }
  return last_line(log);
}

// A measured service stopped by SIGTERM: exit 0, or (a target that does not catch SIGTERM)
// killed by it, which valgrind reports after writing every file.
bool stopped_cleanly(const std::optional<int>& status) {
  return status && ((WIFEXITED(*status) && WEXITSTATUS(*status) == 0) ||
                    (WIFSIGNALED(*status) && WTERMSIG(*status) == SIGTERM));
}

common::MacroCountRun run_once(const ScenarioPlan& p, const RunContext& ctx, bool toggle,
                               uint64_t count) {
  for (const auto& [name, port] : p.ports)
    if (!port_free(port))
      throw Outcome{Status::skipped, "port " + std::to_string(port) + " (" + name + ") is busy"};
  // Private like the rest of the run directory: nginx's configs name the driver's user
  // (`user ${service_user}`), so its workers write their files here as that user.
  fs::create_directories(tree_dir(p));
  prepare_tls(p, ctx.progress);
  write_service_inputs(p);
  Services services(p, ctx);
  try {
    for (const auto& service : p.services) services.start(service);
  } catch (const Outcome&) {
    const std::string why = valgrind_problem(p);
    if (why.starts_with("valgrind cannot decode")) throw Outcome{Status::failed, why};
    throw;
  }
  LoadPlan load = p.load;
  prepare_cookies(p, ctx.progress, load);
  write_load_inputs(p, load);
  // One connection: requests strictly one after another, so the gateway's work per request does
  // not depend on how events happen to batch.
  load.connections = 1;
  load.threads = 1;
  const std::string load_json = p.run_dir + "/load-instructions.json";
  std::vector<std::string> args = load.args(kLoadLimitS, kPaceRate, load_json, "");
  // Under callgrind on a loaded machine a TLS handshake took 2.5 s: the load's default timeout
  // of 2 s would turn that slowness into an error and a second connection.
  // The schedule starts at the first response: a first TLS handshake that took seconds under
  // callgrind left every request it delayed due at once, sent back to back (docs/attribution.md).
  args.insert(args.end() - 1, {"--requests-total", std::to_string(count), "--timeout",
                               common::duration_arg(kRequestTimeoutS), "--rebase-pace"});
  ctx.progress.phase(std::to_string(count) + " requests under callgrind");
  const CaptureResult r = run_capture(
      load.exe, args, std::chrono::milliseconds(static_cast<long>(kLoadLimitS * 1e3 + 30e3)),
      p.run_dir);
  write_text(p.run_dir + "/load-instructions.txt", r.output);
  if (r.interrupted || common::stop_requested()) throw Interrupted{};
  if (r.timed_out) throw Outcome{Status::failed, "gatebench-load did not finish in time"};
  if (!WIFEXITED(r.status) || WEXITSTATUS(r.status) != 0)
    throw Outcome{Status::failed,
                  "gatebench-load " + describe_wait_status(r.status) + ": " + last_line(r.output)};
  LoadResult done;
  try {
    done = parse_load_json(read_text(load_json), load_json);
  } catch (const LoadParseError& e) {
    throw Outcome{Status::failed, e.what()};
  }
  if (done.requests != count)
    throw Outcome{Status::failed, "gatebench-load completed " + std::to_string(done.requests) +
                                      " requests, not " + std::to_string(count)};
  if (done.errors != 0)
    throw Outcome{Status::failed, std::to_string(done.errors) + " of the requests were errors"};
  services.check_alive();
  ctx.progress.phase("stop the measured services (callgrind writes its counts)");
  for (const auto& service : p.services) {
    if (!measured(service, toggle)) continue;
    const auto status = services.stop_one(service.name, kStopGrace);
    if (!stopped_cleanly(status)) {
      services.stop_all();
      throw Outcome{Status::failed,
                    service.name + " under valgrind " +
                        (status ? describe_wait_status(*status)
                                : std::string("did not exit within 120 s of SIGTERM")) +
                        ": " + valgrind_problem(p)};
    }
  }
  services.stop_all();
  return tree_totals(tree_files(tree_dir(p)), count);
}

}  // namespace

double callgrind_file_instructions(const std::string& file) {
  std::ifstream in(file);
  if (!in) throw Outcome{Status::failed, file + ": no callgrind output"};
  std::string line;
  std::optional<double> totals;
  while (std::getline(in, line)) {
    const bool summary = line.starts_with("summary:");
    if (!summary && !line.starts_with("totals:")) continue;
    std::istringstream fields(line.substr(line.find(':') + 1));
    double ir = 0;
    if (!(fields >> ir)) continue;
    if (summary) return ir;
    totals = ir;
  }
  if (!totals) throw Outcome{Status::failed, file + ": no summary or totals line"};
  return *totals;
}

bool is_wait_syscall(std::string_view name) {
  return std::find(kWaitSyscalls.begin(), kWaitSyscalls.end(), name) != kWaitSyscalls.end();
}

bool is_vdso_call(std::string_view name) {
  return std::find(kVdsoCalls.begin(), kVdsoCalls.end(), name) != kVdsoCalls.end();
}

std::map<std::string, uint64_t> count_syscalls(std::istream& in,
                                               std::map<std::string, uint64_t>* would_block) {
  std::map<std::string, uint64_t> out;
  std::map<std::string, std::string> pending;  // "pid,tid](number" of an async call -> its name
  std::string last;                            // the name of the last call line
  auto failed_eagain = [](std::string_view line) {
    return line.find("Failure(0xb)") != std::string_view::npos;
  };
  for (std::string line; std::getline(in, line);) {
    // A call interrupted by another thread's output ends on a line of its own.
    if (line.starts_with(" --> ")) {
      if (would_block && !last.empty() && failed_eagain(line)) ++(*would_block)[last];
      continue;
    }
    // SYSCALL[pid,tid](number) sys_name ( args ) --> ...  (a completion: "(number) ... [async]")
    if (!line.starts_with("SYSCALL[")) continue;
    const std::size_t close = line.find("](");
    const std::size_t after = close == std::string::npos ? close : line.find(") ", close);
    if (after == std::string::npos) continue;
    const std::string key = line.substr(8, after - 8);
    const std::string_view rest = std::string_view(line).substr(after + 2);
    if (rest.starts_with("... [async] -->")) {
      const auto it = pending.find(key);
      if (it == pending.end()) continue;
      if (would_block && failed_eagain(rest)) ++(*would_block)[it->second];
      pending.erase(it);
      continue;
    }
    if (!rest.starts_with("sys_")) continue;
    std::size_t end = 4;
    while (end < rest.size() &&
           (std::isalnum(static_cast<unsigned char>(rest[end])) != 0 || rest[end] == '_'))
      ++end;
    if (end == 4) continue;
    last = std::string(rest.substr(4, end - 4));
    ++out[last];
    if (rest.ends_with("[async] ... ") || rest.ends_with("[async] ..."))
      pending[key] = last;
    else if (would_block && failed_eagain(rest))
      ++(*would_block)[last];
  }
  return out;
}

TreeFiles tree_files(const std::string& dir) {
  TreeFiles out;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    const std::string name = entry.path().filename().string();
    if (name.starts_with("callgrind.out.")) out.callgrind.push_back(entry.path().string());
    if (name.starts_with("valgrind.") && name.ends_with(".log"))
      out.logs.push_back(entry.path().string());
  }
  std::sort(out.callgrind.begin(), out.callgrind.end());
  std::sort(out.logs.begin(), out.logs.end());
  return out;
}

common::MacroCountRun tree_totals(const TreeFiles& files, uint64_t requests) {
  if (files.callgrind.empty()) throw Outcome{Status::failed, "no callgrind output was written"};
  common::MacroCountRun run;
  run.requests = requests;
  for (const auto& file : files.callgrind) run.instructions += callgrind_file_instructions(file);
  run.callgrind_files = files.callgrind;
  uint64_t all = 0, waits = 0;
  for (const auto& file : files.logs) {
    std::ifstream in(file);
    if (!in) throw Outcome{Status::failed, file + ": cannot read"};
    std::map<std::string, uint64_t> would_block;
    for (const auto& [name, n] : count_syscalls(in, &would_block)) {
      run.syscalls_by_name[name] += n;
      if (is_vdso_call(name)) continue;
      all += n;
      // A call that found nothing to do yet is a poll whose count follows timing, as a wait's.
      if (is_wait_syscall(name))
        waits += n;
      else if (const auto it = would_block.find(name); it != would_block.end())
        waits += it->second;
    }
  }
  run.syscalls = all - waits;
  run.wait_syscalls = waits;
  return run;
}

void set_per_request(ScenarioInstructions& s) {
  if (s.runs.size() != 2) return;
  const auto& [a, b] = std::tie(s.runs[0], s.runs[1]);
  auto opt = [](const std::optional<uint64_t>& v) {
    return v ? std::optional<double>(static_cast<double>(*v)) : std::nullopt;
  };
  s.instructions_per_request =
      common::per_request_difference(a.instructions, b.instructions, a.requests, b.requests);
  s.syscalls_per_request =
      common::per_request_difference(opt(a.syscalls), opt(b.syscalls), a.requests, b.requests);
  s.wait_syscalls_per_request = common::per_request_difference(
      opt(a.wait_syscalls), opt(b.wait_syscalls), a.requests, b.requests);
}

ScenarioInstructions measure_instructions(const ScenarioPlan& plan_n, const ScenarioPlan& plan_2n,
                                          const RunContext& context, const std::string& valgrind,
                                          uint64_t n, bool process_tree) {
  ScenarioInstructions out;
  out.name = plan_n.scenario.name;
  auto skip = [&](std::string why) {
    out.status = "skipped";
    out.reason = std::move(why);
    return out;
  };
  if (!plan_n.skip_reason.empty()) return skip(plan_n.skip_reason);
  const bool toggle = !process_tree && reference_gateway(plan_n) != nullptr;
  out.method = toggle ? "toggle" : "process-tree";
  if (!toggle && !has_gateway_role(plan_n))
    return skip(
        "no gateway-role service in this scenario (the process tree measured is the "
        "gateway's)");
  if (plan_n.load.tool != "gatebench-load")
    return skip("needs gatebench-load (exact request counts)");
  if (valgrind.empty()) return skip("valgrind not installed");
  try {
    out.runs.push_back(run_once(under_callgrind(plan_n, valgrind, toggle), context, toggle, n));
    out.runs.push_back(
        run_once(under_callgrind(plan_2n, valgrind, toggle), context, toggle, 2 * n));
    set_per_request(out);
    if (out.instructions_per_request.value_or(0) <= 0) {
      out.status = "failed";
      out.reason = "I(2N) is not above I(N)";
    }
  } catch (const Outcome& o) {
    out.status = o.status == Status::skipped ? "skipped" : "failed";
    out.reason = o.reason;
  } catch (const Interrupted&) {
    out.status = "failed";
    out.reason = "interrupted by signal " + std::to_string(common::stop_signal());
  } catch (const std::exception& e) {
    out.status = "failed";
    out.reason = e.what();
  }
  return out;
}

json instructions_json(const EnvInfo& env, uint64_t n, const std::string& valgrind,
                       const std::vector<ScenarioInstructions>& results, bool interrupted) {
  common::MacroCountFile file;
  file.env = {{"commit", env.commit}, {"dirty", env.dirty},   {"cpu_model", env.cpu_model},
              {"cpus", env.cpus},     {"kernel", env.kernel}, {"compiler", env.compiler},
              {"date", env.date}};
  file.method = {
      {"requests", n},
      {"runs", {n, 2 * n}},
      {"connections", 1},
      {"rate", kPaceRate},
      {"gateway_workers", 1},
      {"valgrind", valgrind},
      {"collect", std::vector<std::string>(kCollectOptions.begin(), kCollectOptions.end())},
      {"syscalls",
       "valgrind --trace-syscalls=yes; syscalls_per_request leaves out the calls "
       "that wait (wait_syscalls_per_request)"},
      {"wait_syscalls", std::vector<std::string>(kWaitSyscalls.begin(), kWaitSyscalls.end())}};
  file.interrupted = interrupted;
  file.scenarios = results;
  return common::to_json(file);
}

}  // namespace gatebench::macro
