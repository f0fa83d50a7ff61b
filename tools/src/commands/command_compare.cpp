#include <charconv>
#include <iostream>

#include "macro/common/command_line.hpp"
#include "macro/common/usage_error.hpp"
#include "tools/src/commands/commands.hpp"
#include "tools/src/compare/compare.hpp"
#include "tools/src/results/json_file.hpp"

namespace gatebench::tools {

namespace {

constexpr const char* kCompareHelp = R"(usage: gatebench compare BASE HEAD [options]

Regression gate. BASE and HEAD are two files of the same kind: Google Benchmark JSON (micro.json),
gatebench reports (report.json), instruction counts (gatebench micro --instructions), macro.json
or per-request counts (instructions.json of gatebench-macro --instructions).

Time mode (micro): per benchmark a two-sided Mann-Whitney U test over the repetitions and the
change of the median; regression when p < alpha and the median grew by >= the minimum change.
Instruction mode: deterministic counts; regression when they grew by >= the threshold.
Macro (macro.json gatebench.macro/2, or report.json holding one): per scenario, HEAD failed
while BASE was ok (invalid load, errors above the driver's threshold, failed baseline) is a
regression; otherwise a two-sided Mann-Whitney U test over the ok rounds of CPU us per request
of the target, the paired vs-nginx ratio and p99 (paired with the baseline's, else absolute),
each with its minimum change. Fewer ok rounds than --min-rounds: "too few rounds", no verdict
(a gatebench.macro/1 file has one round per scenario).
Exact mode (instructions.json): per scenario, instructions and system calls per request,
deterministic; regression when either rose by >= the exact threshold, improvement when it fell
as much; HEAD failed while BASE was ok is a regression. The functions whose instructions moved
most are named, from both sides' callgrind files.

options:
  --alpha A                    significance level (default 0.05)
  --min-change PCT             minimum change of the median, time mode (default 5%)
  --min-repetitions N          repetitions needed per side (default 9)
  --metric cpu_time|real_time  time measure compared (default cpu_time)
  --instructions-threshold PCT instruction mode threshold (default 1%)
  --min-rounds N               macro: ok rounds needed per side (default 5)
  --cpu-threshold PCT          macro: minimum rise of CPU us per request (default 5%)
  --vs-nginx-threshold PCT     macro: minimum drop of the vs-nginx ratio (default 5%)
  --p99-threshold PCT          macro: minimum rise of p99 (default 10%)
  --exact-threshold PCT        exact mode: minimum change of instructions or system calls
                               per request (default 1%)
  --exact-threshold-for SCENARIO=PCT
                               exact mode: this scenario's threshold instead (repeatable), for
                               counts that repeat less closely than 1% (docs/gating.md)
  --top N                      exact mode: functions named per scenario that moved (default 8)
  --md FILE                    also write the Markdown table to FILE
  --json FILE                  write the comparison as JSON (schema gatebench.compare/1)
  --quiet                      do not print the Markdown table on stdout

exit: 0 no regression, 1 regression, 2 bad input (the message names the file and field)
)";

}  // namespace

// Thresholds are percentages: "5" and "5%" both mean 0.05. `what` names the option in errors.
double percent_value(const std::string& given, const std::string& what) {
  std::string text = given;
  if (!text.empty() && text.back() == '%') text.pop_back();
  double out = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size() || out < 0)
    throw common::UsageError(what + ": expected a percentage like 5 or 5%, got '" + given + "'");
  return out / 100.0;
}

double percent_or(const common::CommandLine& args, const std::string& name, double fallback) {
  auto v = args.value(name);
  return v ? percent_value(*v, "--" + name) : fallback;
}

void exact_thresholds_from(const common::CommandLine& args, CompareOptions& opt) {
  for (const std::string& item : args.values("exact-threshold-for")) {
    const std::size_t eq = item.find('=');
    if (eq == std::string::npos || eq == 0)
      throw common::UsageError("--exact-threshold-for: expected SCENARIO=PCT, got '" + item + "'");
    opt.exact_threshold_by_scenario[item.substr(0, eq)] =
        percent_value(item.substr(eq + 1), "--exact-threshold-for " + item.substr(0, eq));
  }
}

int command_compare(const CommandArgs& argv) {
  const common::CommandLine args(
      argv,
      {"alpha", "min-change", "min-repetitions", "metric", "instructions-threshold", "min-rounds",
       "cpu-threshold", "vs-nginx-threshold", "p99-threshold", "exact-threshold", "top", "md",
       "json", "exact-threshold-for"},
      {"help", "quiet"});
  if (args.flag("help")) {
    std::cout << kCompareHelp;
    return 0;
  }
  if (args.positionals().size() != 2)
    throw common::UsageError("compare needs exactly two files, BASE and HEAD (see --help)");

  CompareOptions opt;
  opt.alpha = args.number("alpha").value_or(opt.alpha);
  if (!(opt.alpha > 0 && opt.alpha < 1))
    throw common::UsageError("option --alpha: expected 0 < A < 1");
  opt.min_change = percent_or(args, "min-change", opt.min_change);
  const long reps = args.integer("min-repetitions", 2, 1'000'000).value_or(9);
  opt.min_repetitions = static_cast<std::size_t>(reps);
  const std::string metric = args.choice("metric", {"cpu_time", "real_time"}).value_or("cpu_time");
  opt.metric = metric == "real_time" ? TimeMetric::real_time : TimeMetric::cpu_time;
  opt.instructions_threshold =
      percent_or(args, "instructions-threshold", opt.instructions_threshold);
  const long rounds = args.integer("min-rounds", 2, 1'000'000).value_or(5);
  opt.min_rounds = static_cast<std::size_t>(rounds);
  opt.cpu_threshold = percent_or(args, "cpu-threshold", opt.cpu_threshold);
  opt.vs_nginx_threshold = percent_or(args, "vs-nginx-threshold", opt.vs_nginx_threshold);
  opt.p99_threshold = percent_or(args, "p99-threshold", opt.p99_threshold);
  opt.exact_threshold = percent_or(args, "exact-threshold", opt.exact_threshold);
  exact_thresholds_from(args, opt);
  opt.top_functions = static_cast<std::size_t>(args.integer("top", 0, 1000).value_or(8));

  const ResultSet base = load_result_set(args.positionals()[0]);
  const ResultSet head = load_result_set(args.positionals()[1]);
  const Comparison c = compare_result_sets(base, head, opt);

  const std::string md = comparison_markdown(c);
  if (!args.flag("quiet")) std::cout << md;
  if (auto path = args.value("md")) write_text_file(*path, md);
  if (auto path = args.value("json")) write_text_file(*path, comparison_json(c).dump(2) + "\n");
  return c.has_regression() ? 1 : 0;
}

}  // namespace gatebench::tools
