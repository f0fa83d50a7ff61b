#pragma once
// gatebench-load's --json results (schema gatebench.load/1, docs/load.md) to a LoadResult.
#include <string>

#include "macro/driver/results/load_result.hpp"

namespace gatebench::macro {

// Errors = transport errors + responses whose status a request template did not expect (a
// template without an expectation counts 4xx/5xx as unexpected). Per-template counts go to
// LoadResult::counts as "<template>.as_expected" / "<template>.unexpected"; a run the generator
// itself judged invalid (rate not achieved, interrupted) sets counts["invalid"] = 1 and the reasons
// are returned in `invalid_reasons`. Throws LoadParseError naming `source`.
LoadResult parse_load_json(const std::string& text, const std::string& source,
                           std::string* invalid_reasons = nullptr);

}  // namespace gatebench::macro
