// An access log given with --input access_log.<format>=FILE, checked line by line with gatecore's
// own parser before any benchmark runs: a line gatecore rejects is a bad input, not a data point.
#pragma once

#include <string>

#include "micro/bench/input_options.hpp"
#include "micro/core/access_log/record.hpp"

namespace gatebench::bench {

struct AccessLogInput {
  access_log::Format format;
  std::string log;  // the file, newline-terminated
};

// Takes the file's bytes (a real log can be large: no second copy). Throws InputError
// "FILE:LINE: <reason>" at the first line gatecore rejects.
AccessLogInput load_access_log_input(InputFile&& file);

}  // namespace gatebench::bench
