#include "tools/src/report/results_page.hpp"

#include <sstream>

#include "tools/src/results/format.hpp"

namespace gatebench::tools {

using nlohmann::json;

namespace {

const json* child(const json& j, std::initializer_list<const char*> path) {
  const json* at = &j;
  for (const char* key : path) {
    if (!at->is_object() || !at->contains(key)) return nullptr;
    at = &(*at)[key];
  }
  return at;
}

std::optional<double> load_1min(const json& run, const char* when) {
  const json* l = child(run, {when, "load_average"});
  if (!l || !l->is_array() || l->empty() || !(*l)[0].is_number()) return std::nullopt;
  return (*l)[0].get<double>();
}

std::optional<double> number_at(const json& run, std::initializer_list<const char*> path) {
  const json* s = child(run, path);
  if (!s || !s->is_number()) return std::nullopt;
  return s->get<double>();
}

std::optional<double> steal(const json& run, const char* when) {
  return number_at(run, {when, "steal_percent"});
}

// An input that says which build it came from: its commit ("–" when it names none) and whether
// its tree had uncommitted changes.
struct Build {
  std::string what, commit;
  bool dirty = false;
};

std::string text(const json* j) {
  if (!j || j->is_null()) return "–";
  return j->is_string() ? j->get<std::string>() : j->dump();
}

Build build_of(std::string what, const json& env) {
  const json* dirty = child(env, {"dirty"});
  return {std::move(what), text(child(env, {"commit"})),
          dirty && dirty->is_boolean() && dirty->get<bool>()};
}

// Every input that says which build it came from: the run's tool, the macro driver and the
// counting driver (each records its own build's commit and tree).
std::vector<Build> builds(const ResultsInputs& in) {
  std::vector<Build> out;
  if (in.run.is_object()) out.push_back(build_of("gatebench run", in.run));
  if (const auto& macro = in.report.macro)
    out.push_back(
        {"macro.json", macro->env.commit.empty() ? "–" : macro->env.commit, macro->env.dirty});
  if (const auto& counts = in.report.macro_instructions)
    out.push_back(build_of("the counts' driver", counts->env));
  return out;
}

std::string machine_line(const json& run, const char* when) {
  std::string line = text(child(run, {when, "time"}));
  if (const json* l = child(run, {when, "load_average"}); l && l->is_array() && l->size() == 3)
    line += ", load average " + fmt_fixed((*l)[0].get<double>(), 2) + " / " +
            fmt_fixed((*l)[1].get<double>(), 2) + " / " + fmt_fixed((*l)[2].get<double>(), 2) +
            " (1 / 5 / 15 min)";
  if (auto s = steal(run, when)) line += ", steal " + fmt_fixed(*s, 1) + "%";
  if (auto b = number_at(run, {when, "busy_percent"})) line += ", busy " + fmt_fixed(*b, 1) + "%";
  return line;
}

// report.md's sections one level down, under the page's own title.
std::string demoted(const std::string& md) {
  std::istringstream in(md);
  std::string out;
  bool first = true;
  for (std::string line; std::getline(in, line);) {
    if (first && line.starts_with("# ")) {  // the report's own title: the page has one
      first = false;
      continue;
    }
    first = false;
    if (out.empty() && line.empty()) continue;  // the header's table already ends in one
    if (line.starts_with("#")) line = "#" + line;
    out += line + "\n";
  }
  return out;
}

}  // namespace

std::vector<std::string> draft_reasons(const ResultsInputs& in) {
  std::vector<std::string> why;
  if (!in.run.is_object()) {
    why.push_back("the run left no run.json: its machine's load and steal are unknown");
  } else {
    const auto busy = number_at(in.run, {"start", "busy_percent"});
    const auto others = number_at(in.run, {"others_percent"});
    if (busy || others) {
      // Measured, not inferred: other processes' share of the CPU in the second before the run
      // and over the run itself (the run's own tree subtracted).
      if (busy && *busy > kQuietBusyPercent)
        why.push_back("other processes took " + fmt_fixed(*busy, 1) +
                      "% of the CPU in the second before the run (quiet: at most " +
                      fmt_fixed(kQuietBusyPercent, 0) + "%)");
      if (!others)
        why.push_back("no share of other processes over the run");
      else if (*others > kQuietOthersPercent)
        why.push_back("other processes took " + fmt_fixed(*others, 1) +
                      "% of the CPU during the run (quiet: at most " +
                      fmt_fixed(kQuietOthersPercent, 0) + "%)");
    } else if (const auto l = load_1min(in.run, "start"); !l) {
      // A run.json from before the shares were recorded. The load average at the end counts
      // the run's own roles, so only the start's says whether other work shared the machine.
      why.push_back("no load average at the run's start");
    } else if (*l >= kQuietLoadAverage) {
      why.push_back("load average " + fmt_fixed(*l, 2) + " at the run's start (quiet: below " +
                    fmt_fixed(kQuietLoadAverage, 1) + ")");
    }
    for (const char* when : {"start", "end"}) {
      if (auto s = steal(in.run, when); s && *s > kQuietStealPercent)
        why.push_back(std::string("steal ") + fmt_fixed(*s, 1) + "% at the run's " + when +
                      " (quiet: at most " + fmt_fixed(kQuietStealPercent, 0) + "%)");
    }
  }
  const std::vector<Build> inputs = builds(in);
  for (const Build& b : inputs)
    if (b.dirty) why.push_back(b.what + " was built from a tree with uncommitted changes");
  std::string commit;
  for (const auto& [what, c, dirty] : inputs) {
    if (c == "–" || c == "unknown") continue;
    if (commit.empty())
      commit = c;
    else if (c != commit)
      why.push_back(what + " was built from " + c.substr(0, 12) + ", not " + commit.substr(0, 12));
  }
  return why;
}

std::string results_page(const ResultsInputs& in) {
  const auto why = draft_reasons(in);
  std::string md = "# Results\n\n";
  md += "<!-- Written by `" + in.command +
        "`; not edited by hand: run it again on a newer run instead. -->\n\n";
  if (!why.empty()) {
    md += "> **Draft**: these figures do not stand for a quiet machine and a clean tree:\n";
    for (const auto& w : why) md += "> - " + w + "\n";
    md += "\n";
  }
  md +=
      "The figures of one `gatebench run` (docs/report.md reads them). The dated studies "
      "(the gate's noise, open-loop tails, TLS, HTTP/2, several hosts, ...) are in "
      "[studies/](studies/README.md), each with its command.\n\n";
  md += "| | |\n|---|---|\n";
  md += "| run | `" + text(child(in.run, {"command"})) + "` |\n";
  std::string commit = text(child(in.run, {"commit"}));
  if (commit == "–" && in.report.macro && !in.report.macro->env.commit.empty())
    commit = in.report.macro->env.commit;
  const json* dirty = child(in.run, {"dirty"});
  md += "| commit | " + commit +
        (dirty && dirty->is_boolean() ? (dirty->get<bool>() ? " (dirty tree)" : " (clean tree)")
                                      : "") +
        " |\n";
  md += "| machine | " + text(child(in.run, {"cpu_model"})) + ", " + text(child(in.run, {"cpus"})) +
        " CPUs, " + text(child(in.run, {"kernel"})) + " |\n";
  md += "| start | " + machine_line(in.run, "start") + " |\n";
  md += "| end | " + machine_line(in.run, "end") + " |\n";
  if (auto o = number_at(in.run, {"others_percent"}))
    md += "| other processes | " + fmt_fixed(*o, 1) +
          "% of the machine's CPU during the run (the run's own processes subtracted) |\n";
  md += "| page | `" + in.command + "` |\n\n";
  md += demoted(in.report_md);
  return md;
}

}  // namespace gatebench::tools
