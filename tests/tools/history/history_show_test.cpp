// `gatebench history show` and `check` on histories with a known step (history_test_support.hpp):
// the change point found where it is, marked in history.md and history.html, check's exit code
// for a new regression, an old one and an improvement, bad input, every --help, and the HTML in
// headless Chromium (as tests/tools/report/report_test.cpp runs it).
#include <gtest/gtest.h>

#include <filesystem>

#include "macro/common/child_process.hpp"
#include "tests/tools/history/history_test_support.hpp"
#include "tests/tools/tool_test_support.hpp"
#include "tools/src/history/history_report.hpp"
#include "tools/src/results/json_file.hpp"

namespace gatebench::tools {
namespace {

namespace fs = std::filesystem;

struct History {
  fs::path dir;
  std::string db, out, err;
  History(const std::string& name, int points, int step_at, double scale)
      : dir(test::scratch_dir(name)),
        db((dir / "history.sqlite").string()),
        out((dir / "out.txt").string()),
        err((dir / "err.txt").string()) {
    const auto files = test::write_step_history(dir, points, step_at, scale);
    const int rc =
        test::run_gatebench("history add" + test::joined(files) + " --db " + db, out, err);
    EXPECT_EQ(rc, 0) << read_text_file(err);
  }
  ~History() { fs::remove_all(dir); }
  int run(const std::string& args) {
    return test::run_gatebench("history " + args + " --db " + db, out, err);
  }
};

TEST(HistoryShow, FindsTheKnownStepAndNothingElse) {
  History h("history-show-step", 24, 12, 1.10);
  const HistoryDb db(h.db, false);
  const auto analysed = analyse_history(db.series(), {"", {"cpu_time"}, true}, {});
  ASSERT_EQ(analysed.size(), 8u);  // the 8 token benchmarks
  for (const auto& a : analysed) {
    SCOPED_TRACE(a.series.subject);
    ASSERT_EQ(a.series.points.size(), 24u);
    if (a.series.subject == test::kStepped) {
      ASSERT_EQ(a.change_points.size(), 1u);
      EXPECT_EQ(a.change_points[0].index, 12u);
      EXPECT_NEAR(a.change_points[0].size, 0.10, 0.01);
      EXPECT_TRUE(is_regression(a, a.change_points[0]));
      EXPECT_EQ(a.series.points[12].commit, test::fake_commit(12));
    } else {
      EXPECT_TRUE(a.change_points.empty());
    }
  }
}

TEST(HistoryShow, WritesMarkdownAndHtmlWithTheChangePointMarked) {
  History h("history-show-files", 24, 12, 1.10);
  const std::string dir = (h.dir / "show").string();
  ASSERT_EQ(h.run("show -o " + dir + " --filter '^token/gatecore/'"), 0) << read_text_file(h.err);
  const std::string md = read_text_file(dir + "/history.md");
  EXPECT_NE(md.find("| `token/gatecore/admission` | cpu_time |"), std::string::npos) << md;
  EXPECT_NE(md.find("| 13 | " + test::fake_commit(12).substr(0, 10)), std::string::npos) << md;
  EXPECT_NE(md.find("change point +10."), std::string::npos) << md;
  EXPECT_NE(md.find("regression"), std::string::npos);
  EXPECT_EQ(md.find("token/evp_mac"), std::string::npos);  // filtered out
  const std::string html = read_text_file(dir + "/history.html");
  EXPECT_NE(html.find("<polyline"), std::string::npos);
  EXPECT_NE(html.find("segment means"), std::string::npos);
  EXPECT_NE(html.find("<circle"), std::string::npos);  // the change point's marker
  EXPECT_EQ(html.find("<script"), std::string::npos);
  // Without -o the Markdown goes to stdout.
  ASSERT_EQ(h.run("show --filter admission --figure all"), 0);
  EXPECT_NE(read_text_file(h.out).find("items_per_second"), std::string::npos);
}

TEST(HistoryCheck, ANewRegressionIsExit1) {
  History h("history-check-new", 24, 21, 1.10);  // the newest 3 points are 10% slower
  EXPECT_EQ(h.run("check"), 1) << read_text_file(h.out) << read_text_file(h.err);
  const std::string out = read_text_file(h.out);
  EXPECT_NE(out.find("regression: token/gatecore/admission cpu_time +10."), std::string::npos)
      << out;
  EXPECT_NE(out.find("from run 22 of 24, commit " + test::fake_commit(21).substr(0, 10)),
            std::string::npos)
      << out;
  EXPECT_EQ(h.run("check --filter evp_mac"), 0);  // the other series have no change
}

TEST(HistoryCheck, AnOldRegressionOrANewImprovementIsExit0) {
  History old("history-check-old", 24, 12, 1.10);
  EXPECT_EQ(old.run("check"), 0) << read_text_file(old.out);
  EXPECT_EQ(old.run("check --recent 12"), 1);  // within the newest 12 it is new
  History faster("history-check-faster", 24, 21, 0.90);
  EXPECT_EQ(faster.run("check"), 0) << read_text_file(faster.out);
}

TEST(HistoryCheck, BadInputIsExit2) {
  History h("history-check-bad", 4, 4, 1.0);
  const std::string missing = (h.dir / "none.sqlite").string();
  EXPECT_EQ(test::run_gatebench("history check --db " + missing, h.out, h.err), 2);
  EXPECT_NE(read_text_file(h.err).find(missing), std::string::npos);
  EXPECT_FALSE(fs::exists(missing));
  EXPECT_EQ(h.run("check --filter '('"), 2);
  EXPECT_EQ(h.run("check --alpha 2"), 2);
  EXPECT_EQ(h.run("show extra"), 2);
  EXPECT_EQ(test::run_gatebench("history frobnicate", h.out, h.err), 2);
  EXPECT_EQ(test::run_gatebench("history", h.out, h.err), 2);
}

TEST(HistoryCommands, EveryCommandHasHelp) {
  for (const char* c : {"history --help", "history add --help", "history show --help",
                        "history check --help", "history study --help"}) {
    const auto dir = test::scratch_dir("history-help");
    const std::string out = (dir / "out.txt").string();
    EXPECT_EQ(test::run_gatebench(c, out), 0) << c;
    EXPECT_NE(read_text_file(out).find("usage: gatebench history"), std::string::npos) << c;
    fs::remove_all(dir);
  }
}

TEST(HistoryStudy, PrintsTheTable) {
  const auto dir = test::scratch_dir("history-study");
  const std::string out = (dir / "out.txt").string();
  ASSERT_EQ(test::run_gatebench("history study --series 5 --length 40 --cv 1", out), 0);
  const std::string table = read_text_file(out);
  EXPECT_NE(table.find("| 1.0% | 5 | 200 |"), std::string::npos) << table;
  fs::remove_all(dir);
}

// Opens history.html in headless Chromium and fails on any console message or a DOM without
// the charts.
TEST(HistoryHtml, RendersInHeadlessChromiumWithoutConsoleErrors) {
  const std::string chromium = common::find_on_path("chromium");
  if (chromium.empty()) GTEST_SKIP() << "chromium not installed (apt-get install chromium)";
  History h("history-chromium", 24, 12, 1.10);
  const std::string dir = (h.dir / "show").string();
  ASSERT_EQ(h.run("show -o " + dir), 0) << read_text_file(h.err);
  const auto page = test::render_in_chromium(chromium, dir + "/history.html", h.dir);
  ASSERT_EQ(page.exit_code, 0) << read_text_file(page.log_file);
  const std::string rendered = read_text_file(page.dom_file);
  EXPECT_NE(rendered.find("Change points"), std::string::npos);
  EXPECT_NE(rendered.find("<polyline"), std::string::npos);
  EXPECT_NE(rendered.find("regression"), std::string::npos);
  const std::string messages = read_text_file(page.log_file);
  EXPECT_EQ(messages.find(":CONSOLE"), std::string::npos) << messages;
}

}  // namespace
}  // namespace gatebench::tools
