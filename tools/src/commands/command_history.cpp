// `gatebench history add|show|check|study`: the results history in SQLite and its change points
// (docs/history.md).
#include <filesystem>
#include <iostream>

#include "macro/common/command_line.hpp"
#include "macro/common/usage_error.hpp"
#include "tools/src/commands/commands.hpp"
#include "tools/src/history/history_db.hpp"
#include "tools/src/history/history_report.hpp"
#include "tools/src/history/history_study.hpp"
#include "tools/src/results/format.hpp"
#include "tools/src/results/json_file.hpp"
#include "tools/src/results/report_file.hpp"

namespace gatebench::tools {

namespace {

// Beside `gatebench run`'s default results directory, so the history outlives each run's files.
constexpr const char* kDefaultDb = "gatebench-results/history.sqlite";

constexpr const char* kHistoryHelp =
    R"(usage: gatebench history COMMAND [options]   (docs/history.md)

commands:
  add FILE.json...  add runs (micro.json, macro.json or report.json) to the history database
  show              every series over commits with its change points: Markdown, or with -o DIR
                    DIR/history.md and DIR/history.html (charts)
  check             exit 1 when the newest points of a series start a regression
  study             the detector on generated series with known steps (docs/history.md)

gatebench history COMMAND --help for the options of each.
)";

constexpr const char* kAddHelp =
    R"(usage: gatebench history add FILE.json... [--db PATH] [--commit SHA]

Adds each file's runs to the history database (created when missing, with its directory):
micro.json (Google Benchmark JSON from gatebench micro), macro.json (gatebench.macro/1 or /2),
instructions.json (gatebench.macro_instructions/1 of gatebench-macro --instructions: each ok
scenario's instructions_per_request and syscalls_per_request) or report.json
(gatebench.report/1: its micro and macro parts are one run each, the macro run with the
report's counts per request). A run keeps its
commit (micro: context.gatebench_commit/_dirty; macro: env.commit/dirty), its date (micro:
context.date; macro.json has none: the time of the add), its machine fingerprint and every
figure with its samples. A file already in the database (same content, SHA-256) is not added
again: a message, exit 0. Every file is read and checked before the database is written; each is
added in one transaction.

options:
  --db PATH      history database (default gatebench-results/history.sqlite)
  --commit SHA   the commit of these runs, when the files do not carry it (or carry "unknown")

exit: 0 added (or already there), 1 failure, 2 bad input (a file of another schema, a database
that is not a gatebench history of this version): nothing is written
)";

constexpr const char* kDetectorOptions = R"(
change-point options (E-divisive means, permutation test; docs/history.md):
  --alpha A          significance level of each split (default 0.01)
  --permutations N   permutations per test (default 199)
  --seed N           seed of the permutations (default 1)
  --min-size N       fewest points on either side of a change point (default 2)
  --exact-threshold PCT
                     exact counts per request (instructions_per_request, syscalls_per_request):
                     a change point wherever a point differs from its segment's first point by
                     at least PCT (default 1%, compare's exact gate); no permutation test
)";

constexpr const char* kShowHelp =
    R"(usage: gatebench history show [--db PATH] [-o DIR] [--filter RE] [options]

Per benchmark or scenario, per figure, per machine fingerprint (and quick runs apart from full
ones): the series over the runs, oldest first, with its change points. Without -o, the Markdown
goes to stdout; with -o DIR, DIR/history.md and DIR/history.html (self-contained: inline SVG
charts with the segment means and each change point marked, no script).

options:
  --db PATH          history database (default gatebench-results/history.sqlite)
  -o, --out DIR      write DIR/history.md and DIR/history.html
  --filter RE        only benchmarks/scenarios whose name matches (RE2, anywhere in the name)
  --figure LIST      comma-separated figures, or "all" (default cpu_time, rps,
                     cpu_us_per_request, cpu_vs_load, vs_nginx, p99_us,
                     instructions_per_request, syscalls_per_request)
  --no-smoke         leave out quick (smoke) macro runs
)";

constexpr const char* kCheckHelp =
    R"(usage: gatebench history check [--db PATH] [--filter RE] [options]

The CI gate on the history: exit 1 when, in any selected series, the last change point is a
regression (time or CPU up, throughput or ratio to nginx down) and starts among the newest
--recent points; it is printed with its commit, size and p-value.

options:
  --db PATH          history database (default gatebench-results/history.sqlite)
  --filter RE        only benchmarks/scenarios whose name matches (RE2)
  --figure LIST      as for show (default cpu_time, rps, cpu_us_per_request, cpu_vs_load,
                     vs_nginx, p99_us, instructions_per_request, syscalls_per_request)
  --recent K         how new a change point must be: within the newest K points (default 3;
                     a change point needs --min-size points after it)
  --no-smoke         leave out quick (smoke) macro runs

exit: 0 no new regression, 1 a new regression, 2 bad input
)";

constexpr const char* kStudyHelp = R"(usage: gatebench history study [options]

Runs the change-point detector on generated series with known steps and prints, per noise level,
the share of steps found within --tolerance points and the false change points per 100 points.
Generator (tools/src/history/history_study.cpp): --length points around 1.0 with Gaussian noise of
standard deviation CV x level; 0 to 3 steps per series (drawn), each x(1 + step) or x(1 - step)
(direction drawn), every segment at least 10 points long; fixed seed.

options:
  --series N         series per noise level (default 200)
  --length N         points per series (default 100)
  --cv LIST          comma-separated noise levels, percent (default 1,2.2)
  --step PCT         step size (default 5%)
  --tolerance N      distance within which a step counts as found (default 2)
  --study-seed N     seed of the generator (default 1)
)";

double percent(const std::string& text, const std::string& what) {
  std::string t = text;
  if (!t.empty() && t.back() == '%') t.pop_back();
  const double v = common::parse_number(t, what);
  if (v < 0) throw common::UsageError(what + ": expected a percentage >= 0, got '" + text + "'");
  return v / 100.0;
}

const std::vector<std::string> kDetectorValues = {"alpha", "permutations", "seed", "min-size",
                                                  "exact-threshold"};

ChangePointOptions detector_options(const common::CommandLine& args) {
  ChangePointOptions o;
  o.alpha = args.number("alpha").value_or(o.alpha);
  if (!(o.alpha > 0 && o.alpha < 1)) throw common::UsageError("--alpha: expected 0 < A < 1");
  o.permutations = static_cast<int>(args.integer("permutations", 19, 100'000).value_or(199));
  o.seed = static_cast<std::uint64_t>(args.integer("seed", 0, 1L << 62).value_or(1));
  o.min_size = static_cast<std::size_t>(args.integer("min-size", 1, 1000).value_or(2));
  return o;
}

common::CommandLine parse(const CommandArgs& argv, std::vector<std::string> values,
                          std::vector<std::string> flags, bool detector, bool out_alias = false) {
  std::vector<common::OptionSpec> specs;
  if (detector) values.insert(values.end(), kDetectorValues.begin(), kDetectorValues.end());
  for (auto& v : values)
    specs.push_back(common::value_option(v, v == "out" && out_alias ? 'o' : 0));
  flags.push_back("help");
  for (auto& f : flags) specs.push_back(common::flag_option(f));
  return common::CommandLine(argv, specs);
}

HistorySelection selection(const common::CommandLine& args) {
  HistorySelection sel;
  sel.filter = args.value_or("filter", "");
  const std::string figures = args.value_or("figure", "");
  if (figures == "all") {
    sel.figures.clear();
  } else if (!figures.empty()) {
    for (const auto& f : split_list(figures)) sel.figures.insert(f);
  } else {
    sel.figures = default_history_figures();
  }
  sel.include_smoke = !args.flag("no-smoke");
  if (const auto t = args.value("exact-threshold"))
    sel.exact_threshold = percent(*t, "--exact-threshold");
  return sel;
}

// A report's exact counts per request (report.json "macro_instructions"); none when the report
// has none.
std::optional<common::MacroCountFile> report_counts(const std::string& text,
                                                    const std::string& file) {
  const nlohmann::json doc = common::parse_json_text(text, file);
  const ReportFile report = report_file_from_json(common::JsonField(doc, file));
  if (!report.macro_instructions) return std::nullopt;
  return macro_count_from(*report.macro_instructions);
}

int history_add(const CommandArgs& argv) {
  const auto args = parse(argv, {"db", "commit"}, {}, false);
  if (args.flag("help")) {
    std::cout << kAddHelp;
    return 0;
  }
  if (args.positionals().empty())
    throw common::UsageError("add needs at least one result file (see --help)");
  const std::string db_path = args.value_or("db", kDefaultDb);
  const std::string now = iso_time_now();
  struct Input {
    std::string file, sha256;
    std::vector<HistoryRun> runs;
  };
  // Every file is read and checked first: bad input writes nothing, not even a new database.
  std::vector<Input> inputs;
  for (const std::string& file : args.positionals()) {
    const std::string text = read_text_file(file);
    ResultSet set = load_result_set(file);
    if (set.kind == "instructions")
      throw common::UsageError(file +
                               ": micro instruction counts are not kept in the history (expected "
                               "micro.json, macro.json, instructions.json of gatebench-macro "
                               "--instructions, or report.json)");
    if (set.kind == "report") set.macro_instructions = report_counts(text, file);
    Input in{file, sha256_hex(text), history_runs_from(set, now)};
    if (in.runs.empty()) throw common::UsageError(file + ": holds neither micro nor macro results");
    if (const auto commit = args.value("commit"))
      for (auto& r : in.runs) r.commit = *commit;
    inputs.push_back(std::move(in));
  }
  HistoryDb db(db_path, true);
  for (Input& in : inputs) {
    std::vector<HistoryRun> fresh;
    for (auto& r : in.runs) {
      if (const auto id = db.find_run(in.sha256, r.source)) {
        std::cerr << "gatebench history add: " << in.file << " (" << r.source << ") is already run "
                  << *id << " of " << db_path << ": not added again\n";
        continue;
      }
      fresh.push_back(std::move(r));
    }
    if (fresh.empty()) continue;
    const auto ids = db.add(fresh, in.sha256, now);
    for (std::size_t i = 0; i < ids.size(); ++i)
      std::cout << db_path << ": run " << ids[i] << " (" << fresh[i].source << ", "
                << fresh[i].figures.size() << " figures, commit " << fresh[i].commit.substr(0, 10)
                << (fresh[i].dirty ? "+dirty" : "") << ", machine "
                << fresh[i].machine.fingerprint() << ") from " << in.file << "\n";
  }
  return 0;
}

struct Analysis {
  std::string db;
  ChangePointOptions detector;
  std::vector<AnalysedSeries> series;
};

// What show and check share: no positional argument, the database, the selection, the detector.
Analysis analyse(const common::CommandLine& args, const std::string& command) {
  if (!args.positionals().empty())
    throw common::UsageError(command + " takes no positional argument, got '" +
                             args.positionals().front() + "' (see --help)");
  Analysis a;
  a.db = args.value_or("db", kDefaultDb);
  a.detector = detector_options(args);
  const HistorySelection sel = selection(args);
  const HistoryDb db(a.db, false);
  a.series = analyse_history(db.series(), sel, a.detector);
  return a;
}

int history_show(const CommandArgs& argv) {
  const auto args = parse(argv, {"db", "out", "filter", "figure"}, {"no-smoke"}, true, true);
  if (args.flag("help")) {
    std::cout << kShowHelp << kDetectorOptions;
    return 0;
  }
  const Analysis a = analyse(args, "show");
  const std::string md = history_markdown(a.series, a.db, a.detector);
  if (const auto out = args.value("out")) {
    std::filesystem::create_directories(*out);
    write_text_file(*out + "/history.md", md);
    write_text_file(*out + "/history.html", history_html(a.series, a.db, a.detector));
    std::cout << *out << "/history.md, " << *out << "/history.html: " << a.series.size()
              << " series\n";
  } else {
    std::cout << md;
  }
  return 0;
}

int history_check(const CommandArgs& argv) {
  const auto args = parse(argv, {"db", "filter", "figure", "recent"}, {"no-smoke"}, true);
  if (args.flag("help")) {
    std::cout << kCheckHelp << kDetectorOptions;
    return 0;
  }
  const auto recent = static_cast<std::size_t>(args.integer("recent", 1, 1'000'000).value_or(3));
  const Analysis analysis = analyse(args, "check");
  const auto& analysed = analysis.series;
  const std::string& db_path = analysis.db;
  int regressions = 0;
  for (const auto& a : analysed) {
    const ChangePoint* c = newest_regression(a, recent);
    if (!c) continue;
    ++regressions;
    std::cout << "regression: " << a.series.subject << " " << a.series.figure << " "
              << fmt_percent(c->size) << " ("
              << (is_exact_figure(a.series.figure) ? "exact" : "p = " + fmt_sig(c->p_value, 2))
              << ") from run " << c->index + 1 << " of " << a.series.points.size() << ", commit "
              << short_commit(a.series.points[c->index]) << ", machine " << a.series.fingerprint
              << "\n";
  }
  std::cout << db_path << ": " << analysed.size() << " series checked, " << regressions
            << " new regression" << (regressions == 1 ? "" : "s") << "\n";
  return regressions > 0 ? 1 : 0;
}

int history_study(const CommandArgs& argv) {
  const auto args =
      parse(argv, {"series", "length", "cv", "step", "tolerance", "study-seed"}, {}, true);
  if (args.flag("help")) {
    std::cout << kStudyHelp << kDetectorOptions;
    return 0;
  }
  StudyOptions o;
  o.detector = detector_options(args);
  o.series = static_cast<std::size_t>(args.integer("series", 1, 1'000'000).value_or(200));
  o.length = static_cast<std::size_t>(args.integer("length", 20, 100'000).value_or(100));
  if (const auto cv = args.value("cv")) {
    o.cvs.clear();
    for (const auto& item : split_list(*cv)) o.cvs.push_back(percent(item, "--cv"));
  }
  if (const auto step = args.value("step")) o.step = percent(*step, "--step");
  o.tolerance = static_cast<std::size_t>(args.integer("tolerance", 0, 1000).value_or(2));
  o.seed = static_cast<std::uint64_t>(args.integer("study-seed", 0, 1L << 62).value_or(1));
  const auto rows = run_change_point_study(o);
  std::cout << study_markdown(o, rows);
  return 0;
}

}  // namespace

int command_history(const CommandArgs& args) {
  if (args.empty()) {
    std::cerr << kHistoryHelp;
    return common::kUsageExit;
  }
  if (args[0] == "--help" || args[0] == "-h" || args[0] == "help") {
    std::cout << kHistoryHelp;
    return 0;
  }
  const CommandArgs rest(args.begin() + 1, args.end());
  if (args[0] == "add") return history_add(rest);
  if (args[0] == "show") return history_show(rest);
  if (args[0] == "check") return history_check(rest);
  if (args[0] == "study") return history_study(rest);
  throw common::UsageError("unknown history command '" + args[0] + "' (add, show, check, study)");
}

}  // namespace gatebench::tools
