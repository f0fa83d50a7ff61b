// The cost attribution in instructions per request (gatebench.macro_instructions/1 beside
// gatebench.instructions/1): differences, micro sums, remainders and their shares, TLS's
// server-side part by its counter; and time rows whose intervals overlap read "not resolved".
#include <gtest/gtest.h>

#include "macro/common/usage_error.hpp"
#include "tools/src/report/report_model.hpp"
#include "tools/src/report/report_tables.hpp"
#include "tools/src/report/report_writers.hpp"
#include "tools/src/results/macro_instructions.hpp"
#include "tools/src/results/micro_counters.hpp"

namespace gatebench::tools {
namespace {

using nlohmann::json;

json macro_instructions_doc() {
  auto ok = [](const std::string& name, double per_request) {
    return json{{"name", name},
                {"status", "ok"},
                {"reason", ""},
                {"runs", json::array()},
                {"instructions_per_request", per_request}};
  };
  return {{"schema", "gatebench.macro_instructions/1"},
          {"env", json::object()},
          {"method", {{"requests", 200}}},
          {"scenarios",
           {ok("gateway-default", 40000),
            ok("gateway-protected", 43000),
            ok("gateway-queue", 41000),
            ok("gateway-https-keepalive", 52000),
            ok("gateway-https-newconn", 2'052'000),
            {{"name", "gateway-challenge-pass"},
             {"status", "failed"},
             {"reason", "gatebench-load completed 10 requests, not 200"},
             {"runs", json::array()},
             {"instructions_per_request", nullptr}}}}};
}

json instructions_doc() {
  auto count = [](const std::string& name, double v) {
    return json{{"name", name}, {"instructions_per_iteration", v}};
  };
  return {{"schema", "gatebench.instructions/1"},
          {"env", json::object()},
          {"benchmarks",
           {count("rules/gatecore/protected/clean", 2500), count("token/gatecore/admission", 1200),
            count("tls/handshake_tls13_full", 3'000'000)}}};
}

json micro_doc() {
  // The handshake runs both sides: 600 µs of CPU per iteration, 200 µs of it the server's.
  auto row = [](const std::string& name, double cpu_ns, std::optional<double> server_ns) {
    json r = {{"name", name},
              {"run_name", name},
              {"run_type", "iteration"},
              {"repetitions", 1},
              {"repetition_index", 0},
              {"iterations", 100},
              {"real_time", cpu_ns},
              {"cpu_time", cpu_ns},
              {"time_unit", "ns"},
              {"items_per_second", 1e9 / cpu_ns}};
    if (server_ns) r["server_ns"] = *server_ns;
    return r;
  };
  return {{"context", json::object()},
          {"benchmarks",
           {row("rules/gatecore/protected/clean", 300, std::nullopt),
            row("token/gatecore/admission", 120, std::nullopt),
            row("tls/handshake_tls13_full", 600000, 200000.0)}}};
}

// Time: protected's interval is clear of default's; queue's overlaps it.
json macro_doc() {
  auto scenario = [](const std::string& name, double us, double lo, double hi) {
    return json{{"name", name},
                {"status", "ok"},
                {"baseline", "nginx-baseline"},
                {"rps", 10000.0},
                {"cpu_us_per_request", {{"target", us}}},
                {"intervals",
                 {{"cpu_us_per_request",
                   {{"median", us}, {"lo", lo}, {"hi", hi}, {"n", 5}, {"level", 0.9375}}}}},
                {"rounds", json::array()}};
  };
  return {{"schema", "gatebench.macro/2"},
          {"env", json::object()},
          {"run", json::object()},
          {"scenarios",
           {scenario("gateway-default", 20.0, 19.5, 20.6),
            scenario("gateway-protected", 22.0, 21.4, 22.5),
            scenario("gateway-queue", 20.3, 19.9, 20.8)}}};
}

struct Inputs {
  ResultSet micro = parse_result_set(micro_doc(), "micro.json");
  ResultSet macro = parse_result_set(macro_doc(), "macro.json");
  ResultSet instr = parse_result_set(instructions_doc(), "instructions.json");
  MacroInstructionRun counted = parse_macro_instructions(macro_instructions_doc(), "ir.json");
  MicroCounters counters = MicroCounters::from_gbench_json(micro_doc());
  ReportModel model(bool with_macro = true) const {
    return build_report_model(&*micro.micro, with_macro ? &*macro.macro : nullptr,
                              &*instr.instructions, default_attribution_rules(), &counters,
                              &counted);
  }
};

const Attribution& find(const ReportModel& m, const std::string& scenario) {
  for (const auto& a : m.attribution)
    if (a.rule.scenario == scenario) return a;
  throw std::runtime_error("no attribution for " + scenario);
}

TEST(AttributionInstructions, DifferenceMicroAndRemainder) {
  const Inputs in;
  const ReportModel m = in.model();
  const Attribution& p = find(m, "gateway-protected");
  EXPECT_EQ(p.difference_ir, 3000.0);
  ASSERT_EQ(p.micro_ir.size(), 1u);
  EXPECT_EQ(p.micro_ir[0].second, 2500.0);
  EXPECT_EQ(p.remainder_ir, 500.0);
  EXPECT_DOUBLE_EQ(*p.remainder_share, 500.0 / 3000.0);
  EXPECT_FALSE(p.micro_ir_scaled);
  // No micro benchmark: the whole difference is the remainder.
  const Attribution& https = find(m, "gateway-https-keepalive");
  EXPECT_EQ(https.micro_ir_sum, 0.0);
  EXPECT_EQ(https.remainder_share, 1.0);
}

TEST(AttributionInstructions, TlsCountsOnlyTheServerSide) {
  const Inputs in;
  const ReportModel m = in.model();
  const Attribution& tls = find(m, "gateway-https-newconn");
  ASSERT_EQ(tls.micro_ir.size(), 1u);
  EXPECT_TRUE(tls.micro_ir_scaled);
  EXPECT_DOUBLE_EQ(tls.micro_ir[0].second, 3'000'000.0 / 3);  // 200 of 600 µs
  EXPECT_DOUBLE_EQ(*tls.difference_ir, 2'000'000.0);
  EXPECT_DOUBLE_EQ(*tls.remainder_share, 0.5);
  ASSERT_EQ(tls.micro.size(), 1u);  // time: the server_ns counter, not the two-sided time
  EXPECT_EQ(tls.micro[0].first, "tls/handshake_tls13_full server_ns");
  EXPECT_EQ(tls.micro[0].second, 200000.0);
}

TEST(AttributionInstructions, AFailedCountHasNoDifference) {
  const Inputs in;
  const ReportModel m = in.model();
  const Attribution& c = find(m, "gateway-challenge-pass");
  EXPECT_FALSE(c.scenario_ir);
  EXPECT_FALSE(c.difference_ir);
  EXPECT_FALSE(c.remainder_share);
}

TEST(AttributionTime, OverlappingIntervalsPrintNotResolved) {
  const Inputs in;
  const ReportModel m = in.model();
  const Attribution& queue = find(m, "gateway-queue");
  EXPECT_EQ(queue.resolved, false);
  EXPECT_FALSE(queue.explained_share);
  const Attribution& prot = find(m, "gateway-protected");
  EXPECT_EQ(prot.resolved, true);
  const auto tables = attribution_tables(m);
  const ReportTable* time = nullptr;
  for (const auto& t : tables)
    if (t.title.find("(time)") != std::string::npos) time = &t;
  ASSERT_NE(time, nullptr);
  bool saw_queue = false;
  for (const auto& row : time->rows) {
    if (row[0] == "queue − default") {
      saw_queue = true;
      EXPECT_EQ(row[4], "not resolved");
      EXPECT_EQ(row[4].find('%'), std::string::npos);
    }
    if (row[0] == "protected − default") {
      EXPECT_NE(row[4].find('%'), std::string::npos);
    }
  }
  EXPECT_TRUE(saw_queue);
  const std::string md = report_markdown(m);
  EXPECT_NE(md.find("| queue − default | 20.3 [19.9, 20.8] − 20.0 [19.5, 20.6] = 0.300 |"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("not resolved"), std::string::npos);
}

TEST(AttributionInstructions, WithoutMacroJsonTheInstructionRowsStillShow) {
  const Inputs in;
  const ReportModel m = in.model(false);
  EXPECT_EQ(find(m, "gateway-protected").difference_ir, 3000.0);
  const json j = report_json(m);
  ASSERT_TRUE(j["cost_attribution"].is_array());
  EXPECT_EQ(j["macro_instructions"]["scenarios"].size(), 6u);
  bool found = false;
  for (const auto& a : j["cost_attribution"]) {
    if (a["scenario"] != "gateway-protected") continue;
    found = true;
    EXPECT_EQ(a["instructions"]["remainder_per_request"], 500.0);
  }
  EXPECT_TRUE(found);
  const std::string html = report_html(m);
  EXPECT_NE(html.find("Cost attribution in instructions per request"), std::string::npos);
}

// gatebench report --instructions (or gatebench attribution) without --micro: a batched benchmark
// (1,000 items per iteration here; cidr/gatecore/list_1k counts 65,536) is divided by the items
// its instruction count records, and without them its row is not attributable rather than a
// whole batch taken for one op.
struct BatchedInputs {
  json instructions = {{"schema", "gatebench.instructions/1"},
                       {"env", json::object()},
                       {"benchmarks",
                        {{{"name", "cidr/gatecore/list_1k"},
                          {"instructions_per_iteration", 1'200'000},
                          {"items_per_iteration", 1000}},
                         {{"name", "tls/handshake_tls13_full"},
                          {"instructions_per_iteration", 3'000'000},
                          {"items_per_iteration", 1}}}}};
  MacroInstructionRun counted = parse_macro_instructions(macro_instructions_doc(), "ir.json");
  std::vector<AttributionRule> rules = {
      {"IP list", "gateway-protected", "gateway-default", {"^cidr/gatecore/list_1k$"}, ""},
      {"IP list and more",
       "gateway-queue",
       "gateway-default",
       {"^cidr/gatecore/list_1k$", "^cidr/gatecore/absent$"},
       ""},
      {"new connection",
       "gateway-https-newconn",
       "gateway-https-keepalive",
       {"^tls/handshake_tls13_full$"},
       "server_ns"}};
  ReportModel model(const ResultSet& instr, const MicroRun* micro = nullptr,
                    const MicroCounters* counters = nullptr) const {
    return build_report_model(micro, nullptr, &*instr.instructions, rules, counters, &counted);
  }
};

TEST(AttributionInstructions, ItemsPerIterationFromTheCountsThemselves) {
  const BatchedInputs in;
  const ResultSet instr = parse_result_set(in.instructions, "instructions.json");
  const ReportModel m = in.model(instr);
  const Attribution& ip = find(m, "gateway-protected");
  ASSERT_EQ(ip.micro_ir.size(), 1u);
  EXPECT_DOUBLE_EQ(ip.micro_ir[0].second, 1200.0);  // per address, not per batch of 1,000
  EXPECT_DOUBLE_EQ(*ip.remainder_ir, 3000.0 - 1200.0);
  EXPECT_TRUE(ip.micro_ir_missing.empty());
  // report.json keeps the field: the counts read back the same.
  const json report = report_json(m);
  const InstructionRun again =
      parse_instructions_json(common::JsonField(report["instructions"], "report.json"));
  EXPECT_EQ(again.find("cidr/gatecore/list_1k")->items_per_iteration, 1000.0);
}

TEST(AttributionInstructions, WithoutItemsOrMicroABatchedCountIsNotAttributable) {
  BatchedInputs in;
  for (auto& b : in.instructions["benchmarks"]) b.erase("items_per_iteration");  // an older file
  const ResultSet instr = parse_result_set(in.instructions, "instructions.json");
  const ReportModel m = in.model(instr);
  const Attribution& ip = find(m, "gateway-protected");
  EXPECT_TRUE(ip.micro_ir.empty());
  ASSERT_EQ(ip.micro_ir_missing.size(), 1u);
  EXPECT_NE(ip.micro_ir_missing[0].find("cidr/gatecore/list_1k: not attributable"),
            std::string::npos)
      << ip.micro_ir_missing[0];
  EXPECT_FALSE(ip.micro_ir_sum);
  EXPECT_FALSE(ip.remainder_ir);
  EXPECT_FALSE(ip.remainder_share);
  const json j = report_json(m);
  EXPECT_EQ(j["cost_attribution"][0]["instructions"]["not_attributable"].size(), 1u);
  EXPECT_TRUE(j["cost_attribution"][0]["instructions"]["remainder_per_request"].is_null());
  const std::string md = report_markdown(m);
  EXPECT_NE(md.find("| IP list | 43,000 − 40,000 = 3,000 | cidr/gatecore/list_1k: not "
                    "attributable"),
            std::string::npos)
      << md;
  // The time run gives the items instead: 1,000 per iteration of 120 µs.
  json micro = {{"context", json::object()},
                {"benchmarks",
                 {{{"name", "cidr/gatecore/list_1k"},
                   {"run_type", "iteration"},
                   {"iterations", 100},
                   {"real_time", 120000.0},
                   {"cpu_time", 120000.0},
                   {"time_unit", "ns"},
                   {"items_per_second", 1000 / 120e-6}}}}};
  const ResultSet time_run = parse_result_set(micro, "micro.json");
  const ReportModel with_micro = in.model(instr, &*time_run.micro);
  EXPECT_DOUBLE_EQ(find(with_micro, "gateway-protected").micro_ir[0].second, 1200.0);
}

// One hot path without a count, or the TLS rule without the time run's server_ns: no sum, so the
// rest is never passed off as remainder, and the reason is named.
TEST(AttributionInstructions, APartialOrCounterlessRuleHasNoRemainder) {
  const BatchedInputs in;
  const ResultSet instr = parse_result_set(in.instructions, "instructions.json");
  const ReportModel m = in.model(instr);
  const Attribution& two = find(m, "gateway-queue");
  EXPECT_EQ(two.micro_ir.size(), 1u);
  ASSERT_EQ(two.micro_ir_missing.size(), 1u);
  EXPECT_EQ(two.micro_ir_missing[0], "no instruction count matches ^cidr/gatecore/absent$");
  EXPECT_FALSE(two.remainder_ir);
  const Attribution& tls = find(m, "gateway-https-newconn");
  ASSERT_EQ(tls.micro_ir_missing.size(), 1u);
  EXPECT_NE(tls.micro_ir_missing[0].find("server_ns"), std::string::npos);
  EXPECT_FALSE(tls.remainder_ir);
}

TEST(MacroInstructions, BadFilesNameTheField) {
  json doc = macro_instructions_doc();
  doc["schema"] = "gatebench.macro/2";
  EXPECT_THROW(parse_macro_instructions(doc, "ir.json"), common::UsageError);
  doc = macro_instructions_doc();
  doc["scenarios"][0]["instructions_per_request"] = "many";
  try {
    parse_macro_instructions(doc, "ir.json");
    FAIL() << "accepted a string count";
  } catch (const common::UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("/scenarios/0/instructions_per_request"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace gatebench::tools
