// The request-mix table's rows per class (issue 19): a waf-mix scenario's attack and benign
// templates summed into one row each beside the templates and the whole, with requests, share
// and, from the rounds' gatebench-load files next to macro.json, statuses; and what is left out
// when those files are not all there.
#include "tools/src/report/report_mix.hpp"

#include <gtest/gtest.h>

#include <fstream>

#include "tests/tools/tool_test_support.hpp"
#include "tools/src/report/report_model.hpp"
#include "tools/src/report/report_writers.hpp"
#include "tools/src/results/json_file.hpp"

namespace gatebench::tools {
namespace {

using nlohmann::json;

// 100 attacks (sqli 70, one of them missed; xss 30; traversal drawn in neither round) and 300
// benign requests (get 200, two wrongly blocked; post 100) over two rounds.
json mix_macro_doc() {
  auto round = [](int n) {
    return json{{"round", n},
                {"status", "ok"},
                {"reason", ""},
                {"rps", 1000.0},
                {"artifacts",
                 {"round-" + std::to_string(n) + "/waf-mix/load-measure.json",
                  "round-" + std::to_string(n) + "/waf-mix/load-measure.txt"}}};
  };
  return {{"schema", "gatebench.macro/2"},
          {"env", json::object()},
          {"run", json::object()},
          {"scenarios",
           {{{"name", "waf-mix"},
             {"status", "ok"},
             {"reason", ""},
             {"baseline", "nginx-baseline"},
             {"rps", 1000.0},
             {"counts",
              {{"sqli.as_expected", 69},
               {"sqli.unexpected", 1},
               {"xss.as_expected", 30},
               {"xss.unexpected", 0},
               {"traversal.as_expected", 0},
               {"traversal.unexpected", 0},
               {"get.as_expected", 198},
               {"get.unexpected", 2},
               {"post.as_expected", 100},
               {"post.unexpected", 0}}},
             {"rounds", {round(1), round(2)}}}}}};
}

json load_file(int round) {
  auto t = [](const std::string& name, json status) {
    return json{{"name", name}, {"status", std::move(status)}};
  };
  json sqli = round == 1 ? json{{"403", 34}, {"200", 1}} : json{{"403", 35}};
  return {{"schema", "gatebench.load/1"},
          {"elapsed_s", 2.0},
          {"requests", 200},
          {"requests_per_s", 100.0},
          {"templates",
           {t("sqli", sqli), t("xss", {{"403", 15}}), t("get", {{"200", 99}, {"403", 1}}),
            t("post", {{"200", 50}}), t("traversal", json::object())}}};
}

struct MixRun {
  std::filesystem::path dir = test::scratch_dir("mix");
  std::string macro = (dir / "macro.json").string();
  explicit MixRun(int rounds_with_files) {
    write_text_file(macro, mix_macro_doc().dump());
    for (int r = 1; r <= rounds_with_files; ++r) {
      const auto d = dir / ("round-" + std::to_string(r)) / "waf-mix";
      std::filesystem::create_directories(d);
      write_text_file((d / "load-measure.json").string(), load_file(r).dump());
    }
  }
  ~MixRun() { std::filesystem::remove_all(dir); }
};

std::string markdown(const MixRun& run) {
  const ResultSet set = load_result_set(run.macro);
  ReportModel m = build_report_model(nullptr, &*set.macro, nullptr, {});
  m.mix_statuses = load_mix_statuses(*set.macro, run.dir);
  return report_markdown(m);
}

TEST(ReportMix, StatusesSummedOverTheRoundsFiles) {
  const MixRun run(2);
  const ResultSet set = load_result_set(run.macro);
  const auto statuses = load_mix_statuses(*set.macro, run.dir);
  ASSERT_EQ(statuses.count("waf-mix"), 1u);
  const TemplateStatuses& mix = statuses.at("waf-mix");
  EXPECT_EQ(mix.at("sqli").at("403"), 69.0);
  EXPECT_EQ(mix.at("sqli").at("200"), 1.0);
  EXPECT_EQ(mix.at("get").at("403"), 2.0);
  EXPECT_EQ(mix.at("post").at("200"), 100.0);
  EXPECT_TRUE(mix.at("traversal").empty());  // no response, but its statuses are known
}

TEST(ReportMix, RowsPerTemplatePerClassAndInAll) {
  const MixRun run(2);
  const std::string md = markdown(run);
  for (const char* line :
       {"| scenario | template | kind | blocked as expected | missed | served as expected | "
        "wrongly blocked | requests | share | statuses |",
        "| waf-mix | sqli | attack | 69 | 1 |  |  | 70 | 17.5% | 200: 1, 403: 69 |",
        "| waf-mix | get | benign |  |  | 198 | 2 | 200 | 50.0% | 200: 198, 403: 2 |",
        "| waf-mix | traversal | attack | 0 | 0 |  |  | 0 | 0.0% | – |",
        "| waf-mix | all 3 attack templates | attack | 99 | 1 |  |  | 100 | 25.0% | 200: 1, 403: "
        "99 |",
        "| waf-mix | all 2 benign templates | benign |  |  | 298 | 2 | 300 | 75.0% | 200: 298, "
        "403: 2 |",
        "| waf-mix | all |  | 99 | 1 | 298 | 2 | 400 | 100.0% | 200: 299, 403: 101 |"})
    EXPECT_NE(md.find(line), std::string::npos) << line << "\n" << md;
}

// One round's file missing: a sum over the other round alone would mislead, so no statuses, but
// the classes' requests and shares, which macro.json holds, stay.
TEST(ReportMix, NoStatusesUnlessEveryOkRoundHasItsFile) {
  const MixRun run(1);
  const ResultSet set = load_result_set(run.macro);
  EXPECT_TRUE(load_mix_statuses(*set.macro, run.dir).empty());
  const std::string md = markdown(run);
  EXPECT_NE(
      md.find("| waf-mix | all 3 attack templates | attack | 99 | 1 |  |  | 100 | 25.0% | – |"),
      std::string::npos)
      << md;
  EXPECT_NE(md.find("| waf-mix | all |  | 99 | 1 | 298 | 2 | 400 | 100.0% | – |"),
            std::string::npos)
      << md;
}

// `gatebench report` finds the load files beside macro.json itself.
TEST(ReportMix, TheCommandReadsTheLoadFilesBesideMacroJson) {
  const MixRun run(2);
  const auto out = run.dir / "report";
  ASSERT_EQ(test::run_gatebench("report - " + run.macro + " -o " + out.string()), 0);
  const std::string md = read_text_file((out / "report.md").string());
  EXPECT_NE(md.find("| waf-mix | all 2 benign templates | benign |  |  | 298 | 2 | 300 | 75.0% | "
                    "200: 298, 403: 2 |"),
            std::string::npos)
      << md;
}

}  // namespace
}  // namespace gatebench::tools
