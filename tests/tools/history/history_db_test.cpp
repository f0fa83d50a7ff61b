// `gatebench history add` and the history database (tools/src/history/history_db.cpp,
// history_ingest.cpp): the versioned schema, what a run keeps from micro.json, macro.json and
// report.json, duplicates, machines kept apart, and bad input (another schema, a file that is
// not a database, a database of another version): exit 2 and the database unchanged.
#include "tools/src/history/history_db.hpp"

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <filesystem>
#include <fstream>

#include "tests/tools/history/history_test_support.hpp"
#include "tests/tools/tool_test_support.hpp"
#include "tools/src/results/json_file.hpp"

namespace gatebench::tools {
namespace {

namespace fs = std::filesystem;

std::int64_t query_int(const std::string& db, const std::string& sql) {
  sqlite3* h = nullptr;
  EXPECT_EQ(sqlite3_open_v2(db.c_str(), &h, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
  sqlite3_stmt* s = nullptr;
  EXPECT_EQ(sqlite3_prepare_v2(h, sql.c_str(), -1, &s, nullptr), SQLITE_OK) << sqlite3_errmsg(h);
  std::int64_t v = -1;
  if (sqlite3_step(s) == SQLITE_ROW) v = sqlite3_column_int64(s, 0);
  sqlite3_finalize(s);
  sqlite3_close(h);
  return v;
}

void exec(const std::string& db, const std::string& sql) {
  sqlite3* h = nullptr;
  ASSERT_EQ(sqlite3_open(db.c_str(), &h), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(h, sql.c_str(), nullptr, nullptr, nullptr), SQLITE_OK)
      << sqlite3_errmsg(h);
  sqlite3_close(h);
}

const HistorySeries* find(const std::vector<HistorySeries>& all, const std::string& subject,
                          const std::string& figure) {
  for (const auto& s : all)
    if (s.subject == subject && s.figure == figure) return &s;
  return nullptr;
}

struct Scratch {
  fs::path dir;
  std::string db, out, err;
  explicit Scratch(const std::string& name)
      : dir(test::scratch_dir(name)),
        db((dir / "h" / "history.sqlite").string()),
        out((dir / "out.txt").string()),
        err((dir / "err.txt").string()) {}
  ~Scratch() { fs::remove_all(dir); }
  int add(const std::string& files) {
    return test::run_gatebench("history add" + files + " --db " + db, out, err);
  }
};

TEST(HistoryDb, NewDatabaseHasTheVersionedSchema) {
  Scratch s("history-schema");
  { HistoryDb db(s.db, true); }  // creates the file and its directory
  EXPECT_EQ(query_int(s.db, "PRAGMA user_version"), kHistoryUserVersion);
  EXPECT_EQ(query_int(s.db,
                      "SELECT count(*) FROM meta WHERE key = 'schema' AND value = "
                      "'gatebench.history/1'"),
            1);
  for (const char* table : {"meta", "machines", "runs", "figures", "samples"})
    EXPECT_EQ(query_int(s.db, std::string("SELECT count(*) FROM sqlite_master WHERE type = "
                                          "'table' AND name = '") +
                                  table + "'"),
              1)
        << table;
}

TEST(HistoryAdd, MicroJsonKeepsEveryRepetitionCommitDateAndMachine) {
  Scratch s("history-micro");
  ASSERT_EQ(s.add(" " + test::data("report_micro.json") + " --commit abc123"), 0)
      << read_text_file(s.err);
  EXPECT_NE(read_text_file(s.out).find("run 1 (micro"), std::string::npos);
  const HistoryDb db(s.db, false);
  const auto all = db.series();
  const HistorySeries* cpu = find(all, "token/gatecore/admission", "cpu_time");
  ASSERT_NE(cpu, nullptr);
  ASSERT_EQ(cpu->points.size(), 1u);
  const HistoryPoint& p = cpu->points[0];
  EXPECT_EQ(p.samples.size(), 9u);
  EXPECT_DOUBLE_EQ(p.value, median(p.samples));
  EXPECT_EQ(p.commit, "abc123");
  EXPECT_EQ(p.time, "2026-11-29T19:28:36Z");
  EXPECT_EQ(cpu->source, "micro");
  EXPECT_TRUE(cpu->lower_is_better);
  EXPECT_NE(cpu->machine.find("vm, 2 CPUs"), std::string::npos) << cpu->machine;
  ASSERT_NE(find(all, "token/gatecore/admission", "items_per_second"), nullptr);
  EXPECT_FALSE(find(all, "token/gatecore/admission", "items_per_second")->lower_is_better);
  EXPECT_EQ(query_int(s.db, "SELECT count(*) FROM samples"),
            8 * 3 * 9);  // 8 benchmarks x (cpu, real, items) x 9 repetitions
}

// A descriptive number out of int's range (1e30 CPUs) was converted with undefined behaviour (on
// x86, INT_MIN CPUs); it is now an unknown count.
TEST(HistoryAdd, AnOutOfRangeCpuCountIsUnknown) {
  Scratch s("history-cpus");
  nlohmann::json micro = load_json_file(test::data("report_micro.json"));
  micro["context"]["num_cpus"] = 1e30;
  const std::string file = (s.dir / "micro.json").string();
  std::ofstream(file) << micro.dump();
  ASSERT_EQ(s.add(" " + file + " --commit abc123"), 0) << read_text_file(s.err);
  const HistoryDb db(s.db, false);
  const auto all = db.series();
  const HistorySeries* cpu = find(all, "token/gatecore/admission", "cpu_time");
  ASSERT_NE(cpu, nullptr);
  EXPECT_EQ(cpu->machine.find("-2147483648"), std::string::npos) << cpu->machine;
  EXPECT_EQ(cpu->machine.find("1e+30"), std::string::npos) << cpu->machine;
}

TEST(HistoryAdd, MacroJsonKeepsTheOkRoundsOfOkScenarios) {
  Scratch s("history-macro");
  ASSERT_EQ(s.add(" " + test::data("report_macro.json")), 0) << read_text_file(s.err);
  const HistoryDb db(s.db, false);
  const auto all = db.series();
  const HistorySeries* rps = find(all, "gateway-default", "rps");
  ASSERT_NE(rps, nullptr);
  EXPECT_EQ(rps->points[0].samples.size(), 5u);
  EXPECT_FALSE(rps->lower_is_better);
  EXPECT_EQ(rps->points[0].commit, "fixture");
  for (const char* f : {"cpu_us_per_request", "cpu_vs_load", "vs_nginx", "p99_us"})
    EXPECT_NE(find(all, "gateway-default", f), nullptr) << f;
  EXPECT_EQ(find(all, "gateway-https-keepalive", "rps"), nullptr);  // failed: no figures
  EXPECT_EQ(find(all, "gateway-https-newconn", "rps"), nullptr);    // skipped
}

TEST(HistoryAdd, MacroJsonIsTimedByItsEnvDate) {
  Scratch s("history-macro-date");
  nlohmann::json doc = load_json_file(test::data("report_macro.json"));
  doc["env"]["date"] = "2026-11-30T08:15:00+00:00";
  const std::string file = (s.dir / "macro.json").string();
  write_text_file(file, doc.dump());
  ASSERT_EQ(s.add(" " + file), 0) << read_text_file(s.err);
  const HistoryDb db(s.db, false);
  const auto all = db.series();
  const HistorySeries* rps = find(all, "gateway-default", "rps");
  ASSERT_NE(rps, nullptr);
  EXPECT_EQ(rps->points[0].time.substr(0, 16), "2026-11-30T08:15") << rps->points[0].time;
}

TEST(HistoryAdd, ReportJsonAddsItsMicroAndMacroRuns) {
  Scratch s("history-report");
  ASSERT_EQ(s.add(" " + test::data("report_golden.json")), 0) << read_text_file(s.err);
  EXPECT_EQ(query_int(s.db, "SELECT count(*) FROM runs WHERE source = 'micro'"), 1);
  EXPECT_EQ(query_int(s.db, "SELECT count(*) FROM runs WHERE source = 'macro'"), 1);
  EXPECT_EQ(query_int(s.db, "SELECT count(DISTINCT content_sha256) FROM runs"), 1);
}

TEST(HistoryAdd, TheSameFileTwiceIsAddedOnce) {
  Scratch s("history-duplicate");
  const std::string file = " " + test::data("report_micro.json");
  ASSERT_EQ(s.add(file), 0);
  EXPECT_EQ(s.add(file), 0);
  EXPECT_NE(read_text_file(s.err).find("already run 1"), std::string::npos)
      << read_text_file(s.err);
  EXPECT_EQ(query_int(s.db, "SELECT count(*) FROM runs"), 1);
}

TEST(HistoryAdd, MachinesAreKeptApart) {
  Scratch s("history-machines");
  const std::string a = test::write_micro_point(s.dir, 0, 1.0, "vm-a");
  const std::string b = test::write_micro_point(s.dir, 1, 1.0, "vm-b");
  ASSERT_EQ(s.add(" " + a + " " + b), 0) << read_text_file(s.err);
  const HistoryDb db(s.db, false);
  int series = 0;
  for (const auto& x : db.series())
    if (x.subject == test::kStepped && x.figure == "cpu_time") ++series;
  EXPECT_EQ(series, 2);
  EXPECT_EQ(query_int(s.db, "SELECT count(*) FROM machines"), 2);
}

// Same host name, another CPU model (gatebench-micro's context): another machine.
TEST(HistoryAdd, MicroRunsOfAnotherCpuModelAreKeptApart) {
  Scratch s("history-cpu-model");
  std::vector<std::string> files;
  for (const char* model : {"EPYC A", "EPYC A", "EPYC B"}) {
    const auto file = test::write_micro_point(s.dir, static_cast<int>(files.size()), 1.0, "vm");
    nlohmann::json doc = load_json_file(file);
    doc["context"]["gatebench_cpu_model"] = model;
    doc["context"]["gatebench_kernel"] = "Linux 6.1";
    write_text_file(file, doc.dump());
    files.push_back(file);
  }
  ASSERT_EQ(s.add(" " + files[0] + " " + files[1] + " " + files[2]), 0) << read_text_file(s.err);
  EXPECT_EQ(query_int(s.db, "SELECT count(*) FROM machines"), 2);
  EXPECT_EQ(query_int(s.db, "SELECT count(*) FROM machines WHERE cpu_model = 'EPYC B'"), 1);
}

TEST(HistoryAdd, AnotherSchemaIsExit2AndWritesNothing) {
  Scratch s("history-schema-bad");
  const std::string bad = (s.dir / "other.json").string();
  write_text_file(bad, R"({"schema": "gatebench.other/1"})");
  // Before any database exists: none is created, also when a good file comes first.
  EXPECT_EQ(s.add(" " + test::data("report_micro.json") + " " + bad), 2);
  EXPECT_NE(read_text_file(s.err).find(bad), std::string::npos) << read_text_file(s.err);
  EXPECT_NE(read_text_file(s.err).find("unknown schema"), std::string::npos);
  EXPECT_FALSE(fs::exists(s.db));
  // With a database: byte for byte the same afterwards.
  ASSERT_EQ(s.add(" " + test::data("report_micro.json")), 0);
  const std::string before = read_text_file(s.db);
  EXPECT_EQ(s.add(" " + test::data("report_macro.json") + " " + bad), 2);
  EXPECT_EQ(read_text_file(s.db), before);
  const std::string instructions = " " + test::data("instructions_base.json");
  EXPECT_EQ(s.add(instructions), 2);
  EXPECT_NE(read_text_file(s.err).find("instruction counts"), std::string::npos);
}

TEST(HistoryAdd, AFileThatIsNotADatabaseIsExit2AndUntouched) {
  Scratch s("history-notadb");
  fs::create_directories(fs::path(s.db).parent_path());
  const std::string junk(4096, 'x');
  write_text_file(s.db, junk);
  EXPECT_EQ(s.add(" " + test::data("report_micro.json")), 2);
  const std::string err = read_text_file(s.err);
  EXPECT_NE(err.find(s.db), std::string::npos) << err;
  EXPECT_NE(err.find("not a database"), std::string::npos) << err;
  EXPECT_EQ(read_text_file(s.db), junk);
  EXPECT_EQ(test::run_gatebench("history show --db " + s.db, s.out, s.err), 2);
  EXPECT_EQ(test::run_gatebench("history check --db " + s.db, s.out, s.err), 2);
}

TEST(HistoryAdd, ADatabaseOfAnotherVersionIsExit2AndUntouched) {
  Scratch s("history-version");
  ASSERT_EQ(s.add(" " + test::data("report_micro.json")), 0);
  exec(s.db, "PRAGMA user_version = 9");
  const std::string before = read_text_file(s.db);
  EXPECT_EQ(s.add(" " + test::data("report_macro.json")), 2);
  const std::string err = read_text_file(s.err);
  EXPECT_NE(err.find(s.db), std::string::npos) << err;
  EXPECT_NE(err.find("user_version is 9"), std::string::npos) << err;
  EXPECT_EQ(read_text_file(s.db), before);
  // Another application's SQLite file (tables, user_version 0) is refused too.
  const std::string other = (s.dir / "other.sqlite").string();
  exec(other, "CREATE TABLE t(x)");
  EXPECT_EQ(test::run_gatebench("history add " + test::data("report_micro.json") + " --db " + other,
                                s.out, s.err),
            2);
  EXPECT_EQ(query_int(other, "SELECT count(*) FROM sqlite_master"), 1);
}

// The history's rows are HistoryRun, written by add and read back by series: every member a
// series carries comes back as it was added.
TEST(HistoryDb, ARunReadsBackAsItWasAdded) {
  Scratch s("history-round-trip");
  HistoryRun run;
  run.source = "macro";
  run.file = "out/macro.json";
  run.kind = "macro";
  run.commit = "c0ffee0100000000000000000000000000000000";
  run.dirty = true;
  run.time = "2026-12-07T10:00:00Z";
  run.smoke = true;
  run.machine = {"vm", "AMD EPYC 9B14", "Linux 6.1.0", "g++ 12.2.0", "L1d 32K", "podman", 2};
  run.figures = {{"gateway-default", "rps", "req/s", false, 1234.5, {1200, 1234.5, 1300.25}},
                 {"gateway-default", "p99_us", "us", true, 99.9, {}}};
  HistoryDb db(s.db, true);
  const auto ids = db.add({run}, "sha", "2026-12-07T11:00:00Z");
  ASSERT_EQ(ids.size(), 1u);
  EXPECT_EQ(db.find_run("sha", "macro"), ids[0]);
  EXPECT_EQ(db.find_run("sha", "micro"), std::nullopt);
  const auto all = db.series();
  ASSERT_EQ(all.size(), 2u);
  for (const HistoryFigure& f : run.figures) {
    const HistorySeries* series = find(all, f.subject, f.figure);
    ASSERT_NE(series, nullptr) << f.figure;
    EXPECT_EQ(series->source, run.source);
    EXPECT_EQ(series->unit, f.unit);
    EXPECT_EQ(series->lower_is_better, f.lower_is_better);
    EXPECT_EQ(series->smoke, run.smoke);
    EXPECT_EQ(series->fingerprint, run.machine.fingerprint());
    EXPECT_EQ(series->machine, run.machine.summary());
    ASSERT_EQ(series->points.size(), 1u);
    const HistoryPoint& p = series->points[0];
    EXPECT_EQ(p.run_id, ids[0]);
    EXPECT_EQ(p.commit, run.commit);
    EXPECT_EQ(p.time, run.time);
    EXPECT_EQ(p.dirty, run.dirty);
    EXPECT_EQ(p.value, f.value);
    EXPECT_EQ(p.samples, f.samples);
  }
}

TEST(HistoryDb, AFailedAddRollsBackWholly) {
  Scratch s("history-rollback");
  HistoryDb db(s.db, true);
  const ResultSet set = load_result_set(test::data("report_micro.json"));
  std::vector<HistoryRun> runs = history_runs_from(set, iso_time_now());
  ASSERT_EQ(runs.size(), 1u);
  runs.push_back(runs[0]);
  runs[1].figures.push_back(runs[1].figures[0]);  // a figure twice in one run: UNIQUE fails
  EXPECT_THROW(db.add(runs, "sha", iso_time_now()), std::runtime_error);
  EXPECT_EQ(db.run_count(), 0);
  EXPECT_EQ(query_int(s.db, "SELECT count(*) FROM figures"), 0);
}

}  // namespace
}  // namespace gatebench::tools
