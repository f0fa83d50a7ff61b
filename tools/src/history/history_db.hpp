// The results history: a SQLite database of runs (commit, time, machine fingerprint) and their
// figures with every sample, written by `gatebench history add` and read by `history show` and
// `history check`. Schema gatebench.history/1 (PRAGMA user_version 1), docs/history.md.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "tools/src/results/results.hpp"

struct sqlite3;

namespace gatebench::tools {

inline constexpr int kHistoryUserVersion = 1;
inline constexpr const char* kHistorySchema = "gatebench.history/1";

// The machine a run was measured on. The fingerprint hashes the fields that change what a figure
// means (CPU model, CPU count, kernel, compiler, host, caches, runtime); runs of different
// fingerprints are different series.
struct MachineInfo {
  std::string host, cpu_model, kernel, compiler, caches, runtime;
  int cpus = 0;
  std::string fingerprint() const;  // 16 hex digits
  std::string summary() const;      // "vm, 2 CPUs, AMD EPYC, Linux 6.1" (the known fields)
};

// One figure of one benchmark or scenario in one run: the value series are drawn from (the
// benchmark's median over its repetitions; the scenario's driver median) and its samples
// (repetitions; ok rounds).
struct HistoryFigure {
  std::string subject;  // benchmark or scenario name
  std::string figure;   // cpu_time, real_time, items_per_second, rps, cpu_us_per_request, ...
  std::string unit;     // ns, 1/s, req/s, us, ratio
  bool lower_is_better = true;
  double value = 0;
  std::vector<double> samples;
};

// One run of one part (micro or macro) of a result file. A report.json holding both adds two.
struct HistoryRun {
  std::string source;  // micro | macro
  std::string file, kind;
  std::string commit = "unknown";
  bool dirty = false;
  std::string time;  // ISO 8601 UTC: the file's own date when it has one, else the add time
  bool smoke = false;
  MachineInfo machine;
  std::vector<HistoryFigure> figures;
};

// The runs a result file adds; `now` is the ISO time used when the file carries no date.
std::vector<HistoryRun> history_runs_from(const ResultSet& set, const std::string& now);
std::string sha256_hex(const std::string& bytes);
std::string iso_time_now();

// One point of a series: a run's value of one figure.
struct HistoryPoint {
  std::int64_t run_id = 0;
  std::string commit, time;
  bool dirty = false;
  double value = 0;
  std::vector<double> samples;
};

struct HistorySeries {
  std::string source, subject, figure, unit;
  bool lower_is_better = true, smoke = false;
  std::string fingerprint, machine;  // machine: MachineInfo::summary()
  std::vector<HistoryPoint> points;  // ordered by run time, then insertion
};

class HistoryDb {
 public:
  // Opens `path`. create: a missing file is created with the schema (its directory too);
  // otherwise a missing file is bad input. Throws common::UsageError naming the file when it is
  // not SQLite, or not a gatebench history of a version this build reads.
  HistoryDb(const std::string& path, bool create);
  ~HistoryDb();
  HistoryDb(const HistoryDb&) = delete;
  HistoryDb& operator=(const HistoryDb&) = delete;

  // The run id that already holds this content and source, if any.
  std::optional<std::int64_t> find_run(const std::string& content_sha256,
                                       const std::string& source) const;
  // Adds every run in one transaction: all of them or, on any error, none. Returns their ids.
  std::vector<std::int64_t> add(const std::vector<HistoryRun>& runs,
                                const std::string& content_sha256, const std::string& added_at);
  std::vector<HistorySeries> series() const;
  std::int64_t run_count() const;
  const std::string& path() const { return path_; }

 private:
  struct Closer {
    void operator()(sqlite3* db) const;
  };
  void check_or_create_schema(bool create);

  std::string path_;
  std::unique_ptr<sqlite3, Closer> db_;
};

}  // namespace gatebench::tools
