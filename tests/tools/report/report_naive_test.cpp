// The report's slower-than-naive check (tools/src/report/report_naive.hpp,
// MicroRow::slower_than_naive filled by build_report_model) and the --input files in its
// environment, on data/report_naive_micro.json: ratelimit/gatecore/1M is slower than its naive
// peer, 1k is not, cidr/gatecore_single/input is slower than linear, token has no naive peer.
#include "tools/src/report/report_naive.hpp"

#include <gtest/gtest.h>

#include <string>

#include "tests/tools/tool_test_support.hpp"
#include "tools/src/report/report_model.hpp"
#include "tools/src/report/report_writers.hpp"
#include "tools/src/results/json_file.hpp"

namespace gatebench::tools {
namespace {

struct NaiveFixture {
  ResultSet micro = load_result_set(test::data("report_naive_micro.json"));
  ReportModel model = build_report_model(&*micro.micro, nullptr, nullptr, {});

  const MicroRow& row(const std::string& name) const {
    for (const auto& r : model.micro_rows)
      if (r.bench->name == name) return r;
    throw std::runtime_error("no row " + name);
  }
};

using Peers = std::optional<std::vector<std::string>>;

TEST(ReportNaive, GatecoreRowsSlowerThanANaivePeer) {
  const NaiveFixture f;
  EXPECT_EQ(f.row("ratelimit/gatecore/1M").slower_than_naive,
            Peers(std::vector<std::string>{"naive"}));
  EXPECT_EQ(f.row("ratelimit/gatecore/1k").slower_than_naive, Peers(std::vector<std::string>{}));
  EXPECT_EQ(f.row("cidr/gatecore_single/input").slower_than_naive,
            Peers(std::vector<std::string>{"linear"}));
  EXPECT_EQ(f.row("cidr/gatecore/input").slower_than_naive, Peers(std::vector<std::string>{}));
  EXPECT_EQ(f.row("token/gatecore/admission").slower_than_naive, std::nullopt);
  EXPECT_EQ(f.row("ratelimit/naive/1M").slower_than_naive, std::nullopt);
  EXPECT_EQ(slower_than_naive_note(Peers(std::vector<std::string>{"naive", "linear"})),
            "slower than naive, linear");
  EXPECT_EQ(slower_than_naive_note(Peers(std::vector<std::string>{})), "");
}

TEST(ReportNaive, ShownInEveryWriter) {
  const NaiveFixture f;
  const std::string md = report_markdown(f.model);
  EXPECT_NE(md.find("| `ratelimit/gatecore/1M` **slower than naive** |"), std::string::npos) << md;
  EXPECT_NE(md.find("| `cidr/gatecore_single/input` **slower than linear** |"), std::string::npos);
  EXPECT_NE(md.find("| `ratelimit/gatecore/1k` |"), std::string::npos);
  const std::string html = report_html(f.model);
  EXPECT_NE(html.find("<code>ratelimit/gatecore/1M</code> <strong>slower than naive</strong>"),
            std::string::npos);
  EXPECT_EQ(html.find("<code>ratelimit/gatecore/1k</code> <strong>"), std::string::npos);
  const nlohmann::json j = report_json(f.model);
  for (const auto& b : j.at("micro").at("benchmarks")) {
    const std::string name = b.at("name");
    if (name == "ratelimit/gatecore/1M") {
      EXPECT_EQ(b.at("slower_than_naive"), nlohmann::json{"naive"});
    } else if (name == "ratelimit/gatecore/1k") {
      EXPECT_EQ(b.at("slower_than_naive"), nlohmann::json::array());
    } else if (name == "token/gatecore/admission") {
      EXPECT_FALSE(b.contains("slower_than_naive"));
    }
  }
}

TEST(ReportNaive, EnvironmentNamesTheInputFiles) {
  const NaiveFixture f;
  const std::string md = report_markdown(f.model);
  EXPECT_NE(md.find("| micro: gatebench_input_cidr_path | /tmp/blocklist.txt |"), std::string::npos)
      << md;
  std::string sha256;
  for (int i = 0; i < 32; ++i) sha256 += "ab";
  EXPECT_NE(md.find("| micro: gatebench_input_cidr_sha256 | " + sha256 + " |"), std::string::npos);
  EXPECT_NE(report_html(f.model).find("/tmp/blocklist.txt"), std::string::npos);
}

}  // namespace
}  // namespace gatebench::tools
