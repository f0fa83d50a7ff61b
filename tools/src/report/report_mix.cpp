#include "tools/src/report/report_mix.hpp"

#include <optional>

#include "macro/common/load_report.hpp"
#include "tools/src/results/json_file.hpp"

namespace gatebench::tools {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

// The one closed- or open-loop measurement of a round (a search's steps have files of their own).
constexpr const char* kMeasureFile = "load-measure.json";

std::optional<TemplateStatuses> round_statuses(const common::MacroRound& round,
                                               const fs::path& macro_dir) {
  for (const std::string& a : round.artifacts) {
    if (fs::path(a).filename() != kMeasureFile) continue;
    const fs::path file = macro_dir / a;
    std::error_code ec;
    if (!fs::is_regular_file(file, ec)) return std::nullopt;
    common::LoadReport report;
    try {
      report = common::parse_load_report(read_text_file(file.string()), file.string());
    } catch (const std::exception&) {
      return std::nullopt;  // an artifact the report cannot read adds no statuses
    }
    if (report.templates.empty()) return std::nullopt;
    TemplateStatuses out;
    for (const common::TemplateReport& t : report.templates) {
      StatusCounts& counts = out[t.name];
      for (const auto& [code, n] : t.status) counts[code] += static_cast<double>(n);
    }
    return out;
  }
  return std::nullopt;
}

// More than one template counted: a mix (every gatebench-load run has at least its "default").
bool is_mix(const MacroScenario& s) {
  int templates = 0;
  for (const auto& [key, value] : s.counts.items())
    if (key.ends_with(".as_expected")) ++templates;
  return templates > 1;
}

}  // namespace

std::map<std::string, TemplateStatuses> load_mix_statuses(const MacroRun& run,
                                                          const fs::path& macro_dir) {
  std::map<std::string, TemplateStatuses> out;
  for (const auto& s : run.scenarios) {
    if (s.file.rounds.empty() || !is_mix(s)) continue;
    TemplateStatuses sum;
    bool complete = false;
    for (const common::MacroRound& r : s.file.rounds) {
      if (r.status != "ok") continue;
      const auto statuses = round_statuses(r, macro_dir);
      complete = statuses.has_value();
      if (!complete) break;
      for (const auto& [name, counts] : *statuses) {
        StatusCounts& into = sum[name];  // a template with no response still has its statuses
        for (const auto& [code, n] : counts) into[code] += n;
      }
    }
    if (complete && !sum.empty()) out[s.name] = std::move(sum);
  }
  return out;
}

}  // namespace gatebench::tools
