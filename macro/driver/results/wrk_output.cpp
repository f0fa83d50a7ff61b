#include "macro/driver/results/wrk_output.hpp"

#include <cmath>
#include <cstdlib>
#include <sstream>
#include <vector>

#include "macro/common/duration.hpp"

namespace gatebench::macro {
namespace {

std::optional<double> to_number(std::string_view text) {
  std::string s(text);
  char* end = nullptr;
  double value = std::strtod(s.c_str(), &end);
  if (s.empty() || end != s.c_str() + s.size()) return std::nullopt;
  return value;
}

// wrk prints counts with k/M/G suffixes in some columns; the summary lines use plain integers.
std::optional<uint64_t> to_count(std::string_view text) {
  auto value = to_number(text);
  // NaN, negative or beyond 2^64 (a double cast to uint64_t out of range is undefined): not a
  // count.
  if (!value || !(*value >= 0) || *value >= 18446744073709551616.0) return std::nullopt;
  return static_cast<uint64_t>(*value);
}

// A latency of the done() script's line: a finite number of microseconds, not below zero
// (strtod also reads "-1610", "inf" and "nan", which no latency is).
std::optional<double> to_latency_us(std::string_view text) {
  auto value = to_number(text);
  if (!value || !std::isfinite(*value) || *value < 0) return std::nullopt;
  return value;
}

std::vector<std::string> words(std::string_view line) {
  std::istringstream in{std::string(line)};
  std::vector<std::string> out;
  std::string w;
  while (in >> w) out.push_back(w);
  return out;
}

std::string strip(std::string text, char c) {
  if (!text.empty() && text.back() == c) text.pop_back();
  return text;
}

}  // namespace

std::string wrk_done_script() {
  return "-- written by gatebench-macro: exact latency percentiles in microseconds\n"
         "done = function(summary, latency, requests)\n"
         "  io.write(string.format(\"" +
         std::string(kWrkLatencyTag) +
         " %d %d %d %d %.1f\\n\",\n"
         "    latency:percentile(50), latency:percentile(90), latency:percentile(99),\n"
         "    latency:percentile(99.9), latency.mean))\n"
         "end\n";
}

std::optional<double> parse_wrk_duration_us(std::string_view text) {
  // wrk always prints a unit; a bare number (seconds in the common syntax) is not wrk's output.
  if (text.empty() || (text.back() < 'a' || text.back() > 'z')) return std::nullopt;
  const auto seconds = common::duration_s_if_valid(text);
  if (!seconds) return std::nullopt;
  // Whole nanoseconds first: wrk prints at most 10 ns of precision, and the rounding takes away
  // the binary noise of the unit scaling (289.00us is 289, not 289.00000000000006).
  return static_cast<double>(std::llround(*seconds * 1e9)) / 1e3;
}

LoadResult parse_wrk_output(std::string_view text) {
  LoadResult result;
  bool have_summary = false;
  bool have_rps = false;
  bool in_distribution = false;
  std::istringstream in{std::string(text)};
  std::string line;
  while (std::getline(in, line)) {
    std::vector<std::string> w = words(line);
    if (w.empty()) continue;
    if (line.find("Latency Distribution") != std::string::npos) {
      in_distribution = true;
      continue;
    }
    if (in_distribution && w.size() == 2 && w[0].ends_with('%')) {
      auto us = parse_wrk_duration_us(w[1]);
      if (w[0] == "50%") result.p50_us = us;
      if (w[0] == "90%") result.p90_us = us;
      if (w[0] == "99%") result.p99_us = us;
      continue;
    }
    in_distribution = false;
    if (w[0] == std::string(kWrkLatencyTag) && w.size() == 6) {
      result.p50_us = to_latency_us(w[1]);
      result.p90_us = to_latency_us(w[2]);
      result.p99_us = to_latency_us(w[3]);
      result.p999_us = to_latency_us(w[4]);
      result.mean_us = to_latency_us(w[5]);
      if (!result.p50_us || !result.p90_us || !result.p99_us || !result.p999_us || !result.mean_us)
        throw LoadParseError("wrk output: cannot read '" + line + "'");
    } else if (w.size() >= 5 && w[1] == "requests" && w[2] == "in") {
      // "838236 requests in 4.00s, 123.56MB read"
      auto requests = to_count(w[0]);
      auto us = parse_wrk_duration_us(strip(w[3], ','));
      if (!requests || !us) throw LoadParseError("wrk output: cannot read '" + line + "'");
      result.requests = *requests;
      result.duration_s = *us / 1e6;
      have_summary = true;
    } else if (w[0] == "Requests/sec:" && w.size() == 2) {
      auto rps = to_number(w[1]);
      if (!rps) throw LoadParseError("wrk output: cannot read '" + line + "'");
      result.rps = *rps;
      have_rps = true;
    } else if (w.size() >= 2 && w[0] == "Socket" && w[1] == "errors:") {
      // "Socket errors: connect 0, read 0, write 0, timeout 0"
      for (size_t i = 2; i + 1 < w.size(); i += 2) {
        auto n = to_count(strip(w[i + 1], ','));
        if (!n) throw LoadParseError("wrk output: cannot read '" + line + "'");
        result.counts["socket_" + w[i]] = static_cast<double>(*n);
        result.errors += *n;
      }
    } else if (line.find("Non-2xx or 3xx responses:") != std::string::npos) {
      auto n = to_count(w.back());
      if (!n) throw LoadParseError("wrk output: cannot read '" + line + "'");
      result.counts["non_2xx_3xx"] = static_cast<double>(*n);
      result.errors += *n;
    }
  }
  if (!have_summary || !have_rps) {
    throw LoadParseError("wrk output has no summary ('N requests in' and 'Requests/sec:')");
  }
  return result;
}

}  // namespace gatebench::macro
