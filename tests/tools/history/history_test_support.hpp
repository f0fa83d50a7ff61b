// Histories for the history tests: micro.json files made from data/report_micro.json (a real
// `gatebench micro --filter '^token/'` run) with a chosen commit, date and a known step in
// token/gatecore/admission.
#pragma once

#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "tests/tools/tool_test_support.hpp"
#include "tools/src/results/json_file.hpp"

namespace gatebench::tools::test {

inline const char* kStepped = "token/gatecore/admission";

// 40 hex digits naming point i.
inline std::string fake_commit(int i) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%08x%032x", 0xc0ffee00u + static_cast<unsigned>(i), 0u);
  return buf;
}

// report_micro.json as run i of a history: its admission times scaled by `scale`, every time
// by a small deterministic jitter (so no two runs are equal), its own commit and date.
inline std::string write_micro_point(const std::filesystem::path& dir, int i, double scale,
                                     const std::string& host = "vm") {
  nlohmann::json doc = load_json_file(data("report_micro.json"));
  char date[40];
  std::snprintf(date, sizeof date, "2026-12-01T%02d:%02d:00+00:00", 10 + i / 60, i % 60);
  doc["context"]["date"] = date;
  doc["context"]["host_name"] = host;
  doc["context"]["gatebench_commit"] = fake_commit(i);
  doc["context"]["gatebench_dirty"] = "false";
  const double jitter = 1 + 0.002 * ((i * 7) % 5 - 2);
  for (auto& b : doc["benchmarks"]) {
    const double f = jitter * (b["run_name"] == kStepped ? scale : 1.0);
    b["cpu_time"] = b["cpu_time"].get<double>() * f;
    b["real_time"] = b["real_time"].get<double>() * f;
    if (b.contains("items_per_second"))
      b["items_per_second"] = b["items_per_second"].get<double>() / f;
  }
  const auto file = dir / ("micro-" + host + "-" + std::to_string(i) + ".json");
  write_text_file(file.string(), doc.dump(1));
  return file.string();
}

// `points` runs; from index `step_at` on, admission takes `scale` times as long. Returns the
// files in run order.
inline std::vector<std::string> write_step_history(const std::filesystem::path& dir, int points,
                                                   int step_at, double scale) {
  std::vector<std::string> files;
  for (int i = 0; i < points; ++i)
    files.push_back(write_micro_point(dir, i, i >= step_at ? scale : 1.0));
  return files;
}

inline std::string joined(const std::vector<std::string>& files) {
  std::string out;
  for (const auto& f : files) out += " " + f;
  return out;
}

}  // namespace gatebench::tools::test
