// An access log given with --input access_log.<format>=FILE, checked line by line with gatecore's
// own parser before any benchmark runs. Real logs carry malformed lines (scanners, TLS bytes on the
// HTTP port): they stay in the input, counted and named, because the parser's work on them is part
// of what it costs on that log; only a file with no valid record is a bad input.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "micro/bench/input_options.hpp"
#include "micro/core/access_log/record.hpp"

namespace gatebench::bench {

struct AccessLogInput {
  access_log::Format format;
  std::string log;  // the file, newline-terminated
  std::size_t lines = 0;
  std::size_t rejected = 0;  // lines gatecore's parser rejects
  // "FILE:LINE: <reason>" of the first rejected lines (at most kNamedRejects), for the run's
  // stderr.
  std::vector<std::string> named_rejects;
  static constexpr std::size_t kNamedRejects = 10;
};

// Takes the file's bytes (a real log can be large: no second copy). Throws InputError
// "FILE:LINE: <reason> (no valid <format> record: ...)" when gatecore accepts none of its lines.
AccessLogInput load_access_log_input(InputFile&& file);

}  // namespace gatebench::bench
