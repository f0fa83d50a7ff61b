#include "macro/driver/measure/runner.hpp"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <sstream>

#include "macro/common/stop_signal.hpp"
#include "macro/driver/measure/measure.hpp"
#include "macro/driver/measure/prepare.hpp"
#include "macro/driver/measure/search.hpp"
#include "macro/driver/plan/cache_check.hpp"
#include "macro/driver/results/run_support.hpp"
#include "macro/driver/runtime/services.hpp"
#include "macro/driver/system/net_probe.hpp"

namespace gatebench::macro {
namespace fs = std::filesystem;

namespace {

std::string percent_text(double fraction) {
  std::ostringstream out;
  out.precision(fraction < 0.01 ? 2 : 3);
  out << fraction * 100 << "%";
  return out.str();
}

class ScenarioRun {
 public:
  ScenarioRun(const ScenarioPlan& plan, const RunContext& context, ScenarioResult& result)
      : plan_(plan), ctx_(context), result_(result), services_(plan, context), load_(plan.load) {}

  void run() {
    for (const auto& [name, port] : plan_.ports) {
      if (!port_free(port)) {
        throw Outcome{Status::skipped, "port " + std::to_string(port) + " (" + name + ") is busy"};
      }
    }
    fs::create_directories(plan_.run_dir);
    prepare_tls(plan_, ctx_.progress);
    write_service_inputs(plan_);
    for (const auto& service : plan_.services) services_.start(service);
    // Cookie flows go through the running gateway, then the load's inputs can be made.
    prepare_cookies(plan_, ctx_.progress, load_);
    write_load_inputs(plan_, load_);
    const double duration = ctx_.options.duration_s;
    if (ctx_.options.warmup_s > 0) {
      ctx_.progress.phase("warm-up", ctx_.options.warmup_s);
      measure(plan_, ctx_, load_, services_, {"warmup", ctx_.options.warmup_s, rate(), false});
    }
    if (load_.mode == LoadMode::search) {
      auto one = [&](const std::string& label, std::optional<double> offered) {
        return measure(plan_, ctx_, load_, services_, {label, duration, offered, true});
      };
      SearchOutcome found = search_max_throughput(one, load_.slo_p99_us, ctx_.progress, duration);
      result_.extra["slo_p99_us"] = load_.slo_p99_us;
      result_.extra["steps"] = found.steps;
      if (!found.best) {
        throw Outcome{Status::failed, "no offered rate kept p99 within " +
                                          std::to_string(static_cast<long long>(load_.slo_p99_us)) +
                                          " us"};
      }
      // Its own 95%-of-offered rule judged the step; the generator's 99% verdict does not apply.
      accept(*found.best, false);
    } else {
      ctx_.progress.phase("measure", duration);
      Measurement m = measure(plan_, ctx_, load_, services_, {"measure", duration, rate(), true});
      if (load_.mode == LoadMode::rate) result_.extra["offered_rate"] = load_.rate;
      accept(m, true);
    }
    services_.stop_all();
  }

  void stop_all() { services_.stop_all(); }

 private:
  std::optional<double> rate() const {
    if (load_.mode == LoadMode::rate) return load_.rate;
    return std::nullopt;
  }

  // Keeps what was measured, then fails the round when it cannot stand as a result.
  void accept(const Measurement& m, bool check_invalid) {
    result_.load = m.load;
    result_.target = m.target;
    result_.cpu_by_role = m.cpu_by_role;
    result_.cpu_s_by_role = m.cpu_s_by_role;
    result_.window_s = m.window_s;
    result_.window_source = m.window_source;
    result_.target_cpu_per_second = m.target_cpu_per_second;
    if (!m.invalid.empty()) result_.extra["load_invalid"] = m.invalid;
    if (!m.load_host_cpu_s.empty()) result_.extra["load_host_cpu_s"] = m.load_host_cpu_s;
    if (m.load.requests == 0) throw Outcome{Status::failed, "no request completed"};
    if (const uint64_t count = plan_.load.requests_total; count > 0) {
      // The count is the method: a round that ran out of time before it is no result.
      result_.extra["requests_total"] = count;
      result_.extra["count_completed"] = m.load.requests >= count;
      if (m.load.requests < count) {
        std::ostringstream why;
        why << "completed " << m.load.requests << " of the " << count
            << " requests within --duration " << ctx_.options.duration_s << " s";
        throw Outcome{Status::failed, why.str()};
      }
    }
    if (const auto& cache = plan_.scenario.cache) {
      result_.hit_ratio = hit_ratio(*cache, m.load);
      if (auto why = hit_ratio_failure(*cache, result_.hit_ratio))
        throw Outcome{Status::failed, *why};
    }
    if (check_invalid && !m.invalid.empty()) {
      throw Outcome{Status::failed, "load invalid: " + m.invalid};
    }
    const double error_rate =
        static_cast<double>(m.load.errors) / static_cast<double>(m.load.requests);
    const double limit =
        std::max(ctx_.options.max_error_rate, plan_.scenario.max_error_rate.value_or(0.0));
    if (error_rate > limit) {
      throw Outcome{Status::failed, "errors: " + percent_text(error_rate) + " of requests (" +
                                        std::to_string(m.load.errors) + " of " +
                                        std::to_string(m.load.requests) + "), above the " +
                                        percent_text(limit) + " limit"};
    }
  }

  const ScenarioPlan& plan_;
  const RunContext& ctx_;
  ScenarioResult& result_;
  Services services_;
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
  if (const auto& cache = plan.scenario.cache)
    result.expect_hit_ratio = std::pair(cache->expect_lo, cache->expect_hi);
  for (const auto& service : plan.services)
    if (!service.image.empty())
      result.images[service.name] = {
          {"image", service.image}, {"id", service.image_id}, {"digest", service.image_digest}};
  if (!plan.skip_reason.empty()) {
    result.status = Status::skipped;
    result.reason = plan.skip_reason;
    return result;
  }
  {
    ScenarioRun run(plan, context, result);
    try {
      run.run();
      result.status = Status::ok;
    } catch (const Outcome& outcome) {
      result.status = outcome.status;
      result.reason = outcome.reason;
    } catch (const Interrupted&) {
      result.status = Status::failed;
      result.reason = "interrupted by signal " + std::to_string(common::stop_signal());
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
  result.artifacts = list_artifacts(plan.run_dir, context.out_dir);
  return result;
}

std::string round_summary(const ScenarioResult& result) {
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
  return summary.str();
}

}  // namespace gatebench::macro
