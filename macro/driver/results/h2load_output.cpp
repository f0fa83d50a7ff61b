#include "macro/driver/results/h2load_output.hpp"

#include <algorithm>
#include <cmath>
#include <regex>
#include <stdexcept>
#include <string>

#include "macro/driver/results/wrk_output.hpp"

namespace gatebench::macro {
namespace {

// A number the expressions matched that std::stoull or std::stod still refuse (over 2^64, over
// DBL_MAX, a lone "."): damaged output, reported as such rather than as std::out_of_range.
template <class Convert>
auto number(const std::string& text, Convert convert) {
  try {
    return convert(text);
  } catch (const std::logic_error&) {
    throw LoadParseError("h2load output has a number out of range: '" + text.substr(0, 40) + "'");
  }
}

uint64_t count_at(const std::smatch& m, std::size_t i) {
  return number(m[static_cast<int>(i)].str(), [](const std::string& t) { return std::stoull(t); });
}

}  // namespace

LoadResult parse_h2load_output(std::string_view text) {
  // The output is parsed once per run, off the measured path: regular expressions read best.
  static const std::regex finished(R"(finished in (\S+), ([0-9.]+) req/s)");
  static const std::regex requests(
      R"(requests: (\d+) total, (\d+) started, (\d+) done, (\d+) succeeded, (\d+) failed, (\d+) )"
      R"(errored, (\d+) timeout)");
  static const std::regex statuses(R"(status codes: (\d+) 2xx, (\d+) 3xx, (\d+) 4xx, (\d+) 5xx)");
  static const std::regex request_time(R"(time for request:\s+(\S+)\s+(\S+)\s+(\S+)\s+(\S+))");
  const std::string s(text);
  std::smatch m;
  LoadResult r;
  if (!std::regex_search(s, m, finished) || !parse_wrk_duration_us(m[1].str()))
    throw LoadParseError("h2load output has no summary ('finished in D, R req/s')");
  r.duration_s = *parse_wrk_duration_us(m[1].str()) / 1e6;
  r.rps = number(m[2].str(), [](const std::string& t) { return std::stod(t); });
  if (!std::regex_search(s, m, requests))
    throw LoadParseError(
        "h2load output has no 'requests: N total, N started, N done, N succeeded, N failed, N "
        "errored, N timeout' line");
  r.requests = count_at(m, 3);
  r.errors = count_at(m, 5);
  const char* names[] = {"h2load_started", "h2load_succeeded", "h2load_failed", "h2load_errored",
                         "h2load_timeout"};
  for (std::size_t i = 0; i < 5; ++i)
    r.counts[names[i]] = static_cast<double>(count_at(m, i == 0 ? 2 : i + 3));
  if (std::regex_search(s, m, statuses)) {
    for (std::size_t i = 0; i < 4; ++i)
      r.counts["status_" + std::to_string(i + 2) + "xx"] = static_cast<double>(count_at(m, i + 1));
  }
  // min, max, mean, sd over the requests that succeeded; none when nothing did.
  if (std::regex_search(s, m, request_time)) r.mean_us = parse_wrk_duration_us(m[3].str());
  return r;
}

}  // namespace gatebench::macro
