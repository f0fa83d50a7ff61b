// The three report files, each from the same ReportModel: report.json (gatebench.report/1,
// docs/report.md), report.md (CI job summary) and report.html (self-contained, inline SVG).
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "tools/src/report/report_model.hpp"
#include "tools/src/results/report_file.hpp"

namespace gatebench::tools {

inline constexpr const char* kGatebenchVersion = "0.1.0";

// report.json: the model's parts and tables as its one type, and that type as written.
ReportFile report_file(const ReportModel& m);
nlohmann::json report_json(const ReportModel& m);
std::string report_markdown(const ReportModel& m);
std::string report_html(const ReportModel& m);

}  // namespace gatebench::tools
