// Runs the load generator in-process for a test and times it.
#pragma once

#include <string>

#include "macro/load/options.hpp"
#include "macro/load/runner.hpp"

namespace gatebench::load::testing {

struct LoadRun {
  RunResult result;
  double wall_s = 0;  // the whole run, start-up delay and drain included
};

// Runs `options` against `url` (quiet, no progress); `requests_json`, when not empty, is a
// template file's text.
LoadRun run_against(const std::string& url, Options options, const std::string& requests_json = "");

}  // namespace gatebench::load::testing
