#include "macro/driver/measure/instructions.hpp"

#include <sys/wait.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>

#include "macro/driver/measure/prepare.hpp"
#include "macro/driver/results/load_json.hpp"
#include "macro/driver/results/run_support.hpp"
#include "macro/driver/runtime/services.hpp"
#include "macro/driver/system/children.hpp"
#include "macro/driver/system/net_probe.hpp"
#include "macro/driver/system/stop_signal.hpp"

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
constexpr const char* kRequestTimeout = "60s";

const ServicePlan* reference_gateway(const ScenarioPlan& plan) {
  for (const auto& s : plan.services)
    if (s.binary == "gatebench-gateway") return &s;
  return nullptr;
}

// One worker, so the count is one event loop's and no work moves between threads.
std::string with_one_worker(const std::string& content) {
  json cfg = json::parse(content, nullptr, false);
  if (cfg.is_discarded() || !cfg.is_object() || !cfg.contains("workers")) return content;
  cfg["workers"] = 1;
  return cfg.dump(2) + "\n";
}

std::string callgrind_path(const ScenarioPlan& p) {
  return p.run_dir + "/callgrind.out";
}
std::string valgrind_log(const ScenarioPlan& p) {
  return p.run_dir + "/valgrind.txt";
}

ScenarioPlan under_callgrind(const ScenarioPlan& plan, const std::string& valgrind) {
  ScenarioPlan p = plan;
  for (auto& s : p.services) {
    if (s.binary != "gatebench-gateway") continue;
    for (auto& [path, content] : s.configs) content = with_one_worker(content);
    std::vector<std::string> args = {"--tool=callgrind",
                                     "--callgrind-out-file=" + callgrind_path(p),
                                     "--log-file=" + valgrind_log(p)};
    args.insert(args.end(), kCollectOptions.begin(), kCollectOptions.end());
    args.push_back(s.exe);
    args.insert(args.end(), s.args.begin(), s.args.end());
    s.exe = valgrind;
    s.args = std::move(args);
    s.ready_timeout_s = std::max(s.ready_timeout_s, kReadyTimeoutS);
  }
  return p;
}

std::string valgrind_problem(const ScenarioPlan& p) {
  const std::string log = read_text(valgrind_log(p));
  if (log.find("unhandled instruction") != std::string::npos ||
      log.find("did not recognise") != std::string::npos)
    return "valgrind cannot decode an instruction of this gateway build (SHA-NI or AVX-512 from "
           "-march=native): build it with -DGATEBENCH_MARCH=x86-64-v3, as the callgrind preset";
  return last_line(log);
}

InstructionRun run_once(const ScenarioPlan& p, const RunContext& ctx, const std::string& gateway,
                        uint64_t count) {
  for (const auto& [name, port] : p.ports)
    if (!port_free(port))
      throw Outcome{Status::skipped, "port " + std::to_string(port) + " (" + name + ") is busy"};
  fs::create_directories(p.run_dir);
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
  args.insert(args.end() - 1,
              {"--requests-total", std::to_string(count), "--timeout", kRequestTimeout});
  ctx.progress.phase(std::to_string(count) + " requests under callgrind");
  const CaptureResult r = run_capture(
      load.exe, args, std::chrono::milliseconds(static_cast<long>(kLoadLimitS * 1e3 + 30e3)),
      p.run_dir);
  write_text(p.run_dir + "/load-instructions.txt", r.output);
  if (r.interrupted || stop_requested()) throw Interrupted{};
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
  ctx.progress.phase("stop the gateway (callgrind writes its counts)");
  const auto status = services.stop_one(gateway, kStopGrace);
  services.stop_all();
  if (!status || !WIFEXITED(*status) || WEXITSTATUS(*status) != 0)
    throw Outcome{Status::failed,
                  "the gateway under valgrind " +
                      (status ? describe_wait_status(*status)
                              : std::string("did not exit within 120 s of SIGTERM")) +
                      ": " + valgrind_problem(p)};
  return {count, callgrind_file_instructions(callgrind_path(p)), callgrind_path(p)};
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

ScenarioInstructions measure_instructions(const ScenarioPlan& plan_n, const ScenarioPlan& plan_2n,
                                          const RunContext& context, const std::string& valgrind,
                                          uint64_t n) {
  ScenarioInstructions out;
  out.name = plan_n.scenario.name;
  const ServicePlan* gateway = reference_gateway(plan_n);
  auto skip = [&](std::string why) {
    out.status = "skipped";
    out.reason = std::move(why);
    return out;
  };
  if (!plan_n.skip_reason.empty()) return skip(plan_n.skip_reason);
  if (!gateway)
    return skip(
        "no gatebench-gateway in this scenario (instructions are counted for the reference "
        "gateway)");
  if (plan_n.load.tool != "gatebench-load")
    return skip("needs gatebench-load (exact request counts)");
  if (valgrind.empty()) return skip("valgrind not installed");
  try {
    out.runs.push_back(run_once(under_callgrind(plan_n, valgrind), context, gateway->name, n));
    out.runs.push_back(run_once(under_callgrind(plan_2n, valgrind), context, gateway->name, 2 * n));
    out.per_request =
        (out.runs[1].instructions - out.runs[0].instructions) / static_cast<double>(n);
    if (out.per_request <= 0) {
      out.status = "failed";
      out.reason = "I(2N) is not above I(N)";
    }
  } catch (const Outcome& o) {
    out.status = o.status == Status::skipped ? "skipped" : "failed";
    out.reason = o.reason;
  } catch (const Interrupted&) {
    out.status = "failed";
    out.reason = "interrupted by signal " + std::to_string(stop_signal());
  } catch (const std::exception& e) {
    out.status = "failed";
    out.reason = e.what();
  }
  return out;
}

json instructions_json(const EnvInfo& env, uint64_t n, const std::string& valgrind,
                       const std::vector<ScenarioInstructions>& results, bool interrupted) {
  json list = json::array();
  for (const auto& s : results) {
    json runs = json::array();
    for (const auto& r : s.runs)
      runs.push_back({{"requests", r.requests},
                      {"instructions", r.instructions},
                      {"callgrind_file", r.callgrind_file}});
    list.push_back(
        {{"name", s.name},
         {"status", s.status},
         {"reason", s.reason},
         {"runs", runs},
         {"instructions_per_request", s.status == "ok" ? json(s.per_request) : json(nullptr)}});
  }
  return {{"schema", kInstructionsSchema},
          {"env",
           {{"commit", env.commit},
            {"dirty", env.dirty},
            {"cpu_model", env.cpu_model},
            {"cpus", env.cpus},
            {"kernel", env.kernel},
            {"compiler", env.compiler},
            {"date", env.date}}},
          {"method",
           {{"requests", n},
            {"runs", {n, 2 * n}},
            {"connections", 1},
            {"rate", kPaceRate},
            {"gateway_workers", 1},
            {"valgrind", valgrind},
            {"collect", std::vector<std::string>(kCollectOptions.begin(), kCollectOptions.end())}}},
          {"interrupted", interrupted},
          {"scenarios", list}};
}

}  // namespace gatebench::macro
