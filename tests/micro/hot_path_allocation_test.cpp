// The hot paths this project promises never to allocate per call: access-log batch parsing into
// caller storage, CIDR lookups, and rule evaluation (programs, literal scans, header index, rate
// limit, exploit scan). Each runs once to warm up (RE2 builds DFA states lazily, on first use of
// an input), then again over the same inputs with every operator new counted.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "fixtures/access_log_fixture.hpp"
#include "fixtures/cidr_lists.hpp"
#include "fixtures/rng.hpp"
#include "fixtures/rule_sets.hpp"
#include "fixtures/traffic.hpp"
#include "micro/core/access_log/access_log.hpp"
#include "micro/core/cidr/table.hpp"
#include "micro/core/rules/engine.hpp"
#include "micro/core/rules/loader.hpp"
#include "tests/micro/allocation_counter.hpp"

namespace gatebench {
namespace {

using testing::g_allocations;

TEST(HotPathAllocation, AccessLogBatchParsing) {
  const auto requests = fixtures::generate_requests(500);
  std::vector<access_log::AccessLogRecord> records(600);
  std::vector<access_log::AccessLogError> errors(16);
  for (const auto format :
       {access_log::Format::tsv, access_log::Format::combined, access_log::Format::jsonl}) {
    const std::string log = fixtures::write_log(requests, format);
    access_log::parse(format, log, records, errors);
    const std::size_t before = g_allocations.load();
    const auto result = access_log::parse(format, log, records, errors);
    EXPECT_EQ(g_allocations.load(), before);
    EXPECT_EQ(result.records, requests.size());
  }
}

TEST(HotPathAllocation, CidrLookups) {
  const auto table = cidr::Ipv4Table::build(fixtures::cidr_list_1k());
  fixtures::Rng rng(fixtures::kDefaultSeed);
  std::vector<std::uint32_t> addresses(4096);
  for (auto& a : addresses) a = static_cast<std::uint32_t>(rng.below(std::uint64_t{1} << 32));
  std::vector<cidr::CidrValue> out(addresses.size());
  const std::size_t before = g_allocations.load();
  table.lookup_batch(addresses, out);
  std::size_t matches = 0;
  for (const auto a : addresses) matches += table.lookup(a) != cidr::kNoMatch;
  EXPECT_EQ(g_allocations.load(), before);
  EXPECT_GT(matches, 0u);
}

TEST(HotPathAllocation, RuleEvaluation) {
  const auto set = rules::load_rule_set(fixtures::rule_set_json("protected"), "protected");
  const rules::CompiledRuleSet compiled(set);
  rules::RuleEvaluator evaluator(compiled);
  const auto traffic = fixtures::generate_traffic("mix", 2000);
  std::uint64_t now = 0;
  for (std::size_t i = 0; i < traffic.size(); ++i)
    evaluator.evaluate(traffic.view(i), now += 10'000);
  const std::size_t before = g_allocations.load();
  std::size_t blocked = 0;
  for (std::size_t i = 0; i < traffic.size(); ++i)
    blocked +=
        evaluator.evaluate(traffic.view(i), now += 10'000).decision == rules::Decision::kBlock;
  EXPECT_EQ(g_allocations.load(), before);
  EXPECT_GT(blocked, 0u);  // the mix carries attacks: the exploit scan really ran
}

}  // namespace
}  // namespace gatebench
