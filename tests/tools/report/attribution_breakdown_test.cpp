// The remainder of the cost attribution split over function groups (gatebench attribution):
// self costs per function and object from callgrind.out (call lines are inclusive, not self),
// the group of each function, per-request differences of the N and 2N runs, which rows agree
// within 20% (or 10 instructions), and the command's output and exit codes. Fixtures:
// data/attribution/, written by data/make_attribution_fixtures.py with known per-request costs.
#include "tools/src/report/attribution_breakdown.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "tests/tools/tool_test_support.hpp"
#include "tools/src/profile/callgrind_file.hpp"
#include "tools/src/profile/callgrind_profile.hpp"
#include "tools/src/results/macro_instructions.hpp"
#include "tools/src/results/results.hpp"

namespace gatebench::tools {
namespace {

using nlohmann::json;

std::string read_all(const std::string& file) {
  std::ifstream in(file);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(CallgrindSelfCosts, AddUpToTheSummaryAndKeepTheCalleeObject) {
  const std::string file = test::data("attribution/ablation-iplist-200.out");
  const auto costs = callgrind_self_costs(file);
  double sum = 0;
  for (const auto& c : costs) sum += c.self;
  EXPECT_DOUBLE_EQ(sum, callgrind_total_instructions(file));
  auto find = [&](const std::string& fn) -> const CallgrindSelfCost* {
    for (const auto& c : costs)
      if (c.function == fn) return &c;
    return nullptr;
  };
  const auto* memcpy = find("__memcpy_avx_unaligned_erms");
  ASSERT_NE(memcpy, nullptr);
  EXPECT_EQ(memcpy->object, "/usr/lib/x86_64-linux-gnu/libc.so.6");  // from cob=
  EXPECT_DOUBLE_EQ(memcpy->self, 240 * 200);
  // Named after a call into libssl without cob=: the caller's object again.
  const auto* lookup = find("gatebench::cidr::PrefixTable::lookup(unsigned int) const");
  ASSERT_NE(lookup, nullptr);
  EXPECT_EQ(lookup->object, "/build/macro/gateway/gatebench-gateway");
  const auto* main = find("main");
  ASSERT_NE(main, nullptr);
  EXPECT_DOUBLE_EQ(main->self, 100000);  // the calls= lines are not main's own cost
  // One parser: the profile's functions, objects and self costs, in the same order.
  const CallgrindProfile p = parse_callgrind(file);
  ASSERT_EQ(p.names.size(), costs.size());
  for (std::size_t i = 0; i < costs.size(); ++i) {
    EXPECT_EQ(p.names[i], costs[i].function);
    EXPECT_EQ(p.objects[i], costs[i].object);
    EXPECT_EQ(p.self[i], costs[i].self);
  }
}

TEST(CallgrindSelfCosts, NamesTheFileAndLineOfAnUndefinedId) {
  const auto dir = test::scratch_dir("cg-bad");
  const std::string file = (dir / "bad.out").string();
  std::ofstream(file) << "events: Ir\nfn=(1) main\n0 10\nfn=(2)\n0 5\n";
  try {
    callgrind_self_costs(file);
    FAIL() << "no error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("bad.out:4"), std::string::npos) << e.what();
  }
  std::filesystem::remove_all(dir);
}

TEST(CostGroup, ByObjectThenName) {
  const std::string gw = "/b/gatebench-gateway", libc = "/lib/libc.so.6";
  EXPECT_EQ(cost_group("/lib/libcrypto.so.3", "aesni_gcm_encrypt"), "OpenSSL");
  EXPECT_EQ(cost_group("/lib/libssl.so.3", "SSL_read"), "OpenSSL");
  EXPECT_EQ(cost_group(gw, "gatebench::gateway::AccessLogSink::add(...)"), "logging");
  EXPECT_EQ(cost_group(gw, "gatebench::access_log::write_tsv(...)"), "logging");
  EXPECT_EQ(cost_group(gw, "gatebench::rules::Program::evaluate(...) const"), "hot path");
  EXPECT_EQ(cost_group(gw, "gatebench::tokens::verify(...)"), "hot path");
  EXPECT_EQ(cost_group(gw, "gatebench::http1::parse_request_head(...)"), "parsing");
  EXPECT_EQ(cost_group(gw, "gatebench::gateway::parse_cookie(...)"), "parsing");
  EXPECT_EQ(cost_group(libc, "_int_malloc"), "allocation");
  EXPECT_EQ(cost_group("/lib/libstdc++.so.6", "operator new(unsigned long)"), "allocation");
  EXPECT_EQ(cost_group(libc, "__memmove_avx_unaligned_erms"), "copying");
  EXPECT_EQ(cost_group(libc, "__strlen_avx2"), "copying");
  EXPECT_EQ(cost_group(libc, "writev"), "libc/syscalls");
  EXPECT_EQ(cost_group(gw, "gatebench::gateway::WorkerLoop::drive(...)"), "gateway");
  // Parameter types do not count: a writer taking an http1 head is no parser.
  EXPECT_EQ(cost_group(gw,
                       "gatebench::gateway::write_client_head(char*, "
                       "gatebench::http1::ResponseHead const&)"),
            "gateway");
  EXPECT_EQ(cost_group(gw, "gatebench::access_log::(anonymous namespace)::write_line(Out&)"),
            "logging");
  EXPECT_EQ(cost_group("/lib/libstdc++.so.6", "std::__cxx11::basic_string<...>::_M_append"),
            "other");
}

struct Fixture {
  MacroInstructionRun macro = load_macro_instructions(test::data("attribution_instructions.json"));
  ResultSet micro = load_result_set(test::data("attribution_micro_instructions.json"));
  ReportModel model = build_report_model(nullptr, nullptr, &*micro.instructions,
                                         default_attribution_rules(), nullptr, &macro);
};

TEST(PerRequestFunctions, AreTheDifferenceOfTheTwoRunsOverN) {
  const Fixture f;
  const auto* s = f.macro.find("ablation-iplist");
  ASSERT_NE(s, nullptr);
  ASSERT_EQ(s->runs.size(), 2u);
  const auto functions = per_request_functions(*s);
  double sum = 0;
  for (const auto& fn : functions) {
    sum += fn.per_request;
    if (fn.function == "main") {
      EXPECT_DOUBLE_EQ(fn.per_request, 0);  // start-up cancels
    }
    if (fn.function == "__memcpy_avx_unaligned_erms") {
      EXPECT_EQ(fn.object, "libc.so.6");
      EXPECT_EQ(fn.group, "copying");
    }
  }
  EXPECT_DOUBLE_EQ(sum, *s->instructions_per_request);
  ScenarioInstructionCount missing = *s;
  missing.runs.pop_back();
  EXPECT_THROW(per_request_functions(missing), std::runtime_error);
}

TEST(AttributionBreakdown, SplitsEachDifferenceByGroupAndSaysWhetherItAgrees) {
  const Fixture f;
  const auto rows = attribution_breakdowns(f.model, 3);
  const AttributionBreakdown* iplist = nullptr;
  const AttributionBreakdown* headers = nullptr;
  for (const auto& r : rows) {
    if (r.row->rule.scenario == "ablation-iplist") iplist = &r;
    if (r.row->rule.scenario == "ablation-headers") headers = &r;
  }
  ASSERT_NE(iplist, nullptr);
  ASSERT_NE(headers, nullptr);
  EXPECT_EQ(rows.size(), 2u);  // only the rows with both scenarios counted
  ASSERT_TRUE(iplist->error.empty()) << iplist->error;
  EXPECT_DOUBLE_EQ(*iplist->row->difference_ir, 660);
  EXPECT_DOUBLE_EQ(*iplist->row->micro_ir_sum, 600);
  EXPECT_EQ(iplist->agrees, true);  // remainder 60 of 660
  EXPECT_DOUBLE_EQ(iplist->groups.at("hot path"), 600);
  EXPECT_DOUBLE_EQ(iplist->groups.at("copying"), 40);
  EXPECT_DOUBLE_EQ(iplist->groups.at("gateway"), 20);
  EXPECT_DOUBLE_EQ(iplist->groups.at("parsing"), 0);
  ASSERT_FALSE(iplist->top.empty());
  EXPECT_EQ(iplist->top[0].function, "__memcpy_avx_unaligned_erms");  // the hot path is left out

  EXPECT_EQ(headers->agrees, false);  // no micro benchmark: all 400 are remainder
  EXPECT_DOUBLE_EQ(headers->groups.at("gateway"), 300);
  EXPECT_DOUBLE_EQ(headers->groups.at("copying"), 100);
  ASSERT_EQ(headers->top.size(), 3u);
  EXPECT_EQ(headers->top[0].function, "gatebench::gateway::write_security_headers(char*)");
  EXPECT_DOUBLE_EQ(headers->top[0].per_request, 300);
  EXPECT_DOUBLE_EQ(headers->top[1].per_request, 100);
}

// Within 20% of the difference, or within 10 instructions: a feature that adds nothing the
// micro side does not (a host name alone, exploit blocking on a host that already detects)
// agrees when the count moves by a few instructions.
TEST(AttributionBreakdown, AgreesWithinAShareOrAFewInstructions) {
  EXPECT_TRUE(agrees_within(660, 60));
  EXPECT_TRUE(agrees_within(-1000, 200));
  EXPECT_FALSE(agrees_within(660, 140));
  EXPECT_TRUE(agrees_within(6, 6));
  EXPECT_TRUE(agrees_within(0, -10));
  EXPECT_FALSE(agrees_within(11, 11));
  Fixture f;
  for (auto& s : f.macro.scenarios)
    if (s.name == "ablation-headers") s.instructions_per_request = 2156;  // gateway-default + 6
  f.model = build_report_model(nullptr, nullptr, &*f.micro.instructions,
                               default_attribution_rules(), nullptr, &f.macro);
  for (const auto& r : attribution_breakdowns(f.model, 3)) {
    if (r.row->rule.scenario == "ablation-headers") {
      EXPECT_EQ(r.agrees, true);
    }
  }
}

TEST(AttributionBreakdown, AScenarioWithoutFilesGetsNoBreakdownAndSaysWhy) {
  Fixture f;
  for (auto& s : f.macro.scenarios)
    if (s.name == "ablation-headers") s.runs.clear();
  const auto rows = attribution_breakdowns(f.model, 3);
  ASSERT_EQ(rows.size(), 2u);
  for (const auto& r : rows) {
    if (r.row->rule.scenario != "ablation-headers") continue;
    EXPECT_NE(r.error.find("no two callgrind files"), std::string::npos) << r.error;
    EXPECT_TRUE(r.groups.empty());
    EXPECT_NE(breakdown_markdown(f.model, rows).find("no breakdown: ablation-headers"),
              std::string::npos);
  }
}

TEST(AttributionCommand, WritesMarkdownAndJson) {
  const auto dir = test::scratch_dir("attribution");
  const std::string md = (dir / "a.md").string(), js = (dir / "a.json").string();
  ASSERT_EQ(
      test::run_gatebench("attribution " + test::data("attribution_instructions.json") +
                          " --instructions " + test::data("attribution_micro_instructions.json") +
                          " --top 2 -o " + md + " --json " + js),
      0);
  const std::string text = read_all(md);
  EXPECT_NE(text.find("| IP list (1,000 CIDRs) | +660 | 600 | +60 | 9.1% | yes |"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("| security headers | +400 | 0 | +400 | 100.0% | no |"), std::string::npos)
      << text;
  const json doc = json::parse(read_all(js));
  EXPECT_EQ(doc["schema"], "gatebench.attribution/1");
  ASSERT_EQ(doc["rows"].size(), 2u);
  EXPECT_EQ(doc["rows"][0]["top"].size(), 2u);
  EXPECT_DOUBLE_EQ(doc["rows"][0]["groups"]["hot path"].get<double>(), 600);
  std::filesystem::remove_all(dir);
}

// A count written before items_per_iteration existed, of a batched benchmark, without --micro:
// no micro figure and no remainder, and the reason on the row (issue 17), exit 0.
TEST(AttributionCommand, ABatchedCountWithoutItemsIsNotAttributable) {
  const auto dir = test::scratch_dir("attribution-items");
  const std::string counts = (dir / "counts.json").string(), md = (dir / "a.md").string(),
                    js = (dir / "a.json").string();
  std::ofstream(counts) << json{{"schema", "gatebench.instructions/1"},
                                {"env", json::object()},
                                {"benchmarks",
                                 {{{"name", "cidr/gatecore/list_1k"},
                                   {"instructions_per_iteration", 600000}}}}}
                               .dump();
  ASSERT_EQ(test::run_gatebench("attribution " + test::data("attribution_instructions.json") +
                                " --instructions " + counts + " -o " + md + " --json " + js),
            0);
  const std::string text = read_all(md);
  EXPECT_NE(text.find("| IP list (1,000 CIDRs) | +660 | – | – | – | – |"), std::string::npos)
      << text;
  EXPECT_NE(text.find("micro cidr/gatecore/list_1k: not attributable"), std::string::npos) << text;
  const json doc = json::parse(read_all(js));
  EXPECT_TRUE(doc["rows"][0]["remainder"].is_null());
  EXPECT_EQ(doc["rows"][0]["micro_not_attributable"].size(), 1u);
  std::filesystem::remove_all(dir);
}

TEST(AttributionCommand, BadInputExitsTwo) {
  EXPECT_EQ(test::run_gatebench("attribution --help"), 0);
  EXPECT_EQ(test::run_gatebench("attribution"), 2);
  EXPECT_EQ(test::run_gatebench("attribution /nonexistent/instructions.json"), 2);
  EXPECT_EQ(test::run_gatebench("attribution " + test::data("attribution_instructions.json") +
                                " --top many"),
            2);
  // A micro.json where instruction counts belong.
  EXPECT_EQ(test::run_gatebench("attribution " + test::data("attribution_instructions.json") +
                                " --instructions " + test::data("report_micro.json")),
            2);
}

}  // namespace
}  // namespace gatebench::tools
