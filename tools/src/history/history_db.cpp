#include "tools/src/history/history_db.hpp"

#include <sqlite3.h>

#include <filesystem>
#include <map>
#include <stdexcept>

#include "macro/common/usage_error.hpp"

namespace gatebench::tools {

namespace {

// The schema of gatebench.history/1 (docs/history.md). Only added to within version 1; anything
// else moves PRAGMA user_version.
constexpr const char* kSchemaSql = R"(
CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE machines(
  id INTEGER PRIMARY KEY,
  fingerprint TEXT NOT NULL UNIQUE,
  host TEXT NOT NULL, cpu_model TEXT NOT NULL, cpus INTEGER NOT NULL, kernel TEXT NOT NULL,
  compiler TEXT NOT NULL, caches TEXT NOT NULL, runtime TEXT NOT NULL);
CREATE TABLE runs(
  id INTEGER PRIMARY KEY,
  content_sha256 TEXT NOT NULL,
  source TEXT NOT NULL CHECK (source IN ('micro', 'macro')),
  file TEXT NOT NULL, kind TEXT NOT NULL,
  commit_id TEXT NOT NULL, dirty INTEGER NOT NULL, time TEXT NOT NULL, added_at TEXT NOT NULL,
  smoke INTEGER NOT NULL,
  machine_id INTEGER NOT NULL REFERENCES machines(id),
  UNIQUE (content_sha256, source));
CREATE TABLE figures(
  id INTEGER PRIMARY KEY,
  run_id INTEGER NOT NULL REFERENCES runs(id),
  subject TEXT NOT NULL, figure TEXT NOT NULL, unit TEXT NOT NULL,
  lower_is_better INTEGER NOT NULL, value REAL NOT NULL,
  UNIQUE (run_id, subject, figure));
CREATE TABLE samples(
  figure_id INTEGER NOT NULL REFERENCES figures(id),
  idx INTEGER NOT NULL, value REAL NOT NULL,
  PRIMARY KEY (figure_id, idx)) WITHOUT ROWID;
)";

// A file that is not a database, or a damaged one, is bad input (exit 2); other SQLite errors
// (disk full, locked past the timeout) are failures (exit 1).
[[noreturn]] void fail(sqlite3* db, int code, const std::string& path, const std::string& what) {
  const std::string msg =
      path + ": " + what + ": " + (db ? sqlite3_errmsg(db) : sqlite3_errstr(code));
  const int primary = code & 0xff;
  if (primary == SQLITE_NOTADB || primary == SQLITE_CORRUPT) throw common::UsageError(msg);
  throw std::runtime_error(msg);
}

class Statement {
 public:
  Statement(sqlite3* db, const char* sql, const std::string& path) : db_(db), path_(path) {
    sqlite3_stmt* s = nullptr;
    const int rc = sqlite3_prepare_v2(db, sql, -1, &s, nullptr);
    stmt_.reset(s);
    if (rc != SQLITE_OK) fail(db, rc, path, "cannot read the database");
  }
  Statement& bind(int i, const std::string& v) {
    check(
        sqlite3_bind_text(stmt_.get(), i, v.c_str(), static_cast<int>(v.size()), SQLITE_TRANSIENT));
    return *this;
  }
  Statement& bind(int i, double v) {
    check(sqlite3_bind_double(stmt_.get(), i, v));
    return *this;
  }
  Statement& bind(int i, std::int64_t v) {
    check(sqlite3_bind_int64(stmt_.get(), i, v));
    return *this;
  }
  bool step() {  // true while there is a row
    const int rc = sqlite3_step(stmt_.get());
    if (rc == SQLITE_ROW) return true;
    if (rc == SQLITE_DONE) return false;
    fail(db_, rc, path_, "database error");
  }
  void reset() {
    sqlite3_reset(stmt_.get());
    sqlite3_clear_bindings(stmt_.get());
  }
  std::string text(int col) const {
    const auto* p = sqlite3_column_text(stmt_.get(), col);
    return p ? reinterpret_cast<const char*>(p) : "";
  }
  double real(int col) const { return sqlite3_column_double(stmt_.get(), col); }
  std::int64_t integer(int col) const { return sqlite3_column_int64(stmt_.get(), col); }

 private:
  void check(int rc) const {
    if (rc != SQLITE_OK) fail(db_, rc, path_, "database error");
  }
  struct Finalizer {
    void operator()(sqlite3_stmt* s) const { sqlite3_finalize(s); }
  };
  sqlite3* db_;
  const std::string& path_;
  std::unique_ptr<sqlite3_stmt, Finalizer> stmt_;
};

void exec(sqlite3* db, const char* sql, const std::string& path) {
  const int rc = sqlite3_exec(db, sql, nullptr, nullptr, nullptr);
  if (rc != SQLITE_OK) fail(db, rc, path, "database error");
}

// BEGIN IMMEDIATE ... COMMIT; destroyed before commit() (an exception), it rolls back, so a
// failed add leaves the database as it was.
class Transaction {
 public:
  Transaction(sqlite3* db, const std::string& path) : db_(db), path_(path) {
    exec(db, "BEGIN IMMEDIATE", path);
  }
  ~Transaction() {
    if (!done_) sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
  }
  Transaction(const Transaction&) = delete;
  Transaction& operator=(const Transaction&) = delete;
  void commit() {
    exec(db_, "COMMIT", path_);
    done_ = true;
  }

 private:
  sqlite3* db_;
  const std::string& path_;
  bool done_ = false;
};

std::int64_t machine_id(sqlite3* db, const MachineInfo& m, const std::string& path) {
  const std::string fp = m.fingerprint();
  Statement find(db, "SELECT id FROM machines WHERE fingerprint = ?", path);
  find.bind(1, fp);
  if (find.step()) return find.integer(0);
  Statement insert(db,
                   "INSERT INTO machines(fingerprint, host, cpu_model, cpus, kernel, compiler, "
                   "caches, runtime) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                   path);
  insert.bind(1, fp).bind(2, m.host).bind(3, m.cpu_model).bind(4, std::int64_t{m.cpus});
  insert.bind(5, m.kernel).bind(6, m.compiler).bind(7, m.caches).bind(8, m.runtime);
  insert.step();
  return sqlite3_last_insert_rowid(db);
}

}  // namespace

void HistoryDb::Closer::operator()(sqlite3* db) const {
  sqlite3_close_v2(db);
}

HistoryDb::HistoryDb(const std::string& path, bool create) : path_(path) {
  const bool exists = std::filesystem::exists(path);
  if (!exists && !create)
    throw common::UsageError(path +
                             ": no such history database (gatebench history add creates it)");
  if (!exists) {
    const auto dir = std::filesystem::path(path).parent_path();
    if (!dir.empty()) std::filesystem::create_directories(dir);
  }
  sqlite3* db = nullptr;
  const int flags = SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0);
  const int rc = sqlite3_open_v2(path.c_str(), &db, flags, nullptr);
  db_.reset(db);
  if (rc != SQLITE_OK) fail(db, rc, path, "cannot open");
  sqlite3_busy_timeout(db, 10'000);  // CI jobs adding to one database at once wait their turn
  exec(db, "PRAGMA foreign_keys = ON", path);
  check_or_create_schema(create);
}

HistoryDb::~HistoryDb() = default;

void HistoryDb::check_or_create_schema(bool create) {
  sqlite3* db = db_.get();
  std::int64_t version = 0, tables = 0;
  {
    Statement v(db, "PRAGMA user_version", path_);
    if (v.step()) version = v.integer(0);
    Statement t(db, "SELECT count(*) FROM sqlite_master", path_);
    if (t.step()) tables = t.integer(0);
  }
  if (version == 0 && tables == 0 && !create)
    throw common::UsageError(path_ +
                             ": an empty database, not a gatebench history (add a run "
                             "with gatebench history add)");
  if (version == 0 && tables == 0) {  // a new (empty) file: the schema, in one transaction
    Transaction tx(db, path_);
    exec(db, kSchemaSql, path_);
    Statement meta(db, "INSERT INTO meta(key, value) VALUES ('schema', ?), ('created_at', ?)",
                   path_);
    meta.bind(1, std::string(kHistorySchema)).bind(2, iso_time_now());
    meta.step();
    exec(db, ("PRAGMA user_version = " + std::to_string(kHistoryUserVersion)).c_str(), path_);
    tx.commit();
    return;
  }
  if (version != kHistoryUserVersion)
    throw common::UsageError(path_ + ": not a gatebench history database of version " +
                             std::to_string(kHistoryUserVersion) + " (PRAGMA user_version is " +
                             std::to_string(version) + ")");
  std::string schema;
  {
    Statement m(db, "SELECT value FROM meta WHERE key = 'schema'", path_);
    if (m.step()) schema = m.text(0);
  }
  if (schema != kHistorySchema)
    throw common::UsageError(path_ + ": meta schema is '" + schema + "', expected " +
                             kHistorySchema);
}

std::optional<std::int64_t> HistoryDb::find_run(const std::string& content_sha256,
                                                const std::string& source) const {
  Statement s(db_.get(), "SELECT id FROM runs WHERE content_sha256 = ? AND source = ?", path_);
  s.bind(1, content_sha256).bind(2, source);
  if (s.step()) return s.integer(0);
  return std::nullopt;
}

std::int64_t HistoryDb::run_count() const {
  Statement s(db_.get(), "SELECT count(*) FROM runs", path_);
  return s.step() ? s.integer(0) : 0;
}

std::vector<std::int64_t> HistoryDb::add(const std::vector<HistoryRun>& runs,
                                         const std::string& content_sha256,
                                         const std::string& added_at) {
  sqlite3* db = db_.get();
  Transaction tx(db, path_);
  std::vector<std::int64_t> ids;
  Statement run_insert(db,
                       "INSERT INTO runs(content_sha256, source, file, kind, commit_id, dirty, "
                       "time, added_at, smoke, machine_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                       path_);
  Statement figure_insert(db,
                          "INSERT INTO figures(run_id, subject, figure, unit, lower_is_better, "
                          "value) VALUES (?, ?, ?, ?, ?, ?)",
                          path_);
  Statement sample_insert(db, "INSERT INTO samples(figure_id, idx, value) VALUES (?, ?, ?)", path_);
  for (const HistoryRun& r : runs) {
    const std::int64_t machine = machine_id(db, r.machine, path_);
    run_insert.reset();
    run_insert.bind(1, content_sha256).bind(2, r.source).bind(3, r.file).bind(4, r.kind);
    run_insert.bind(5, r.commit).bind(6, std::int64_t{r.dirty}).bind(7, r.time).bind(8, added_at);
    run_insert.bind(9, std::int64_t{r.smoke}).bind(10, machine);
    run_insert.step();
    const std::int64_t run_id = sqlite3_last_insert_rowid(db);
    ids.push_back(run_id);
    for (const HistoryFigure& f : r.figures) {
      figure_insert.reset();
      figure_insert.bind(1, run_id).bind(2, f.subject).bind(3, f.figure).bind(4, f.unit);
      figure_insert.bind(5, std::int64_t{f.lower_is_better}).bind(6, f.value);
      figure_insert.step();
      const std::int64_t figure_id = sqlite3_last_insert_rowid(db);
      for (std::size_t i = 0; i < f.samples.size(); ++i) {
        sample_insert.reset();
        sample_insert.bind(1, figure_id)
            .bind(2, static_cast<std::int64_t>(i))
            .bind(3, f.samples[i]);
        sample_insert.step();
      }
    }
  }
  tx.commit();
  return ids;
}

std::vector<HistorySeries> HistoryDb::series() const {
  sqlite3* db = db_.get();
  std::map<std::int64_t, std::vector<double>> samples;
  {
    Statement s(db, "SELECT figure_id, value FROM samples ORDER BY figure_id, idx", path_);
    while (s.step()) samples[s.integer(0)].push_back(s.real(1));
  }
  Statement s(
      db,
      "SELECT r.source, f.subject, f.figure, f.unit, f.lower_is_better, r.smoke, "
      "m.fingerprint, m.host, m.cpu_model, m.cpus, m.kernel, m.compiler, m.caches, "
      "m.runtime, r.id, r.commit_id, r.time, r.dirty, f.value, f.id "
      "FROM figures f JOIN runs r ON f.run_id = r.id JOIN machines m ON r.machine_id = m.id "
      "ORDER BY r.source, f.subject, f.figure, m.fingerprint, r.smoke, r.time, r.id",
      path_);
  std::vector<HistorySeries> out;
  while (s.step()) {
    HistorySeries key;
    key.source = s.text(0);
    key.subject = s.text(1);
    key.figure = s.text(2);
    key.unit = s.text(3);
    key.lower_is_better = s.integer(4) != 0;
    key.smoke = s.integer(5) != 0;
    key.fingerprint = s.text(6);
    if (out.empty() || out.back().source != key.source || out.back().subject != key.subject ||
        out.back().figure != key.figure || out.back().fingerprint != key.fingerprint ||
        out.back().smoke != key.smoke) {
      MachineInfo m{s.text(7),
                    s.text(8),
                    s.text(10),
                    s.text(11),
                    s.text(12),
                    s.text(13),
                    static_cast<int>(s.integer(9))};
      key.machine = m.summary();
      out.push_back(std::move(key));
    }
    HistoryPoint p;
    p.run_id = s.integer(14);
    p.commit = s.text(15);
    p.time = s.text(16);
    p.dirty = s.integer(17) != 0;
    p.value = s.real(18);
    if (auto it = samples.find(s.integer(19)); it != samples.end()) p.samples = it->second;
    out.back().points.push_back(std::move(p));
  }
  return out;
}

}  // namespace gatebench::tools
