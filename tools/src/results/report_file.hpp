// report.json (docs/report.md): what `gatebench report` writes and `gatebench compare`, `history
// add` and `results` read.
#pragma once

namespace gatebench::tools {

inline constexpr const char* kReportSchema = "gatebench.report/1";

}  // namespace gatebench::tools
