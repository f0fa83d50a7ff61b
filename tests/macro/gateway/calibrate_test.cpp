// The calibration knob's parsing and its mix chain (the cost per mix is measured by
// `gatebench-gateway --time-calibration`, not here).
#include "macro/gateway/calibrate.hpp"

#include <gtest/gtest.h>

#include <string>

#include "macro/gateway/config.hpp"

namespace gw = gatebench::gateway;

namespace {

TEST(Calibrate, UnsetIsOffAndDigitsParse) {
  EXPECT_EQ(gw::parse_calibrate_mixes(nullptr), 0u);
  EXPECT_EQ(gw::parse_calibrate_mixes("0"), 0u);
  EXPECT_EQ(gw::parse_calibrate_mixes("12000"), 12000u);
  EXPECT_EQ(gw::parse_calibrate_mixes("100000000"), gw::kMaxCalibrateMixes);
}

TEST(Calibrate, BadValuesNameTheVariable) {
  for (const char* v : {"", " 1", "1 ", "-1", "+1", "0x10", "1e3", "100000001", "4294967296"}) {
    try {
      gw::parse_calibrate_mixes(v);
      ADD_FAILURE() << "accepted \"" << v << "\"";
    } catch (const gw::ConfigError& e) {
      EXPECT_NE(std::string(e.what()).find(std::string("GATEBENCH_GATEWAY_CALIBRATE_MIXES=\"") + v +
                                           "\""),
                std::string::npos)
          << e.what();
    }
  }
}

TEST(Calibrate, StudyInjectionsParseAnySubset) {
  EXPECT_FALSE(gw::parse_study_injections(nullptr).any());
  EXPECT_FALSE(gw::parse_study_injections("").any());
  const gw::StudyInjections one = gw::parse_study_injections("write");
  EXPECT_TRUE(one.write);
  EXPECT_FALSE(one.alloc || one.copy);
  const gw::StudyInjections all = gw::parse_study_injections("copy,alloc,write");
  EXPECT_TRUE(all.alloc && all.write && all.copy);
}

TEST(Calibrate, BadStudyInjectionsNameTheVariableAndTheItem) {
  for (const char* v : {"alloc,", ",write", "alloc,,copy", "Alloc", "writes", "alloc write"}) {
    try {
      gw::parse_study_injections(v);
      ADD_FAILURE() << "accepted \"" << v << "\"";
    } catch (const gw::ConfigError& e) {
      EXPECT_NE(std::string(e.what()).find(std::string("GATEBENCH_GATEWAY_STUDY_INJECT=\"") + v +
                                           "\": unknown item"),
                std::string::npos)
          << e.what();
    }
  }
}

TEST(Calibrate, ZeroMixesIsIdentityAndChainsCompose) {
  const std::uint64_t x = 0x0123456789abcdefULL;
  EXPECT_EQ(gw::calibrate_mix(x, 0), x);
  std::uint64_t one = gw::calibrate_mix(x, 1);
  EXPECT_NE(one, x);
  EXPECT_EQ(gw::calibrate_mix(gw::calibrate_mix(x, 1000), 234), gw::calibrate_mix(x, 1234));
  EXPECT_NE(gw::calibrate_mix(x, 1234), gw::calibrate_mix(x, 1235));
}

TEST(Calibrate, TimingReportsAnOrderedSpread) {
  gw::MixTiming t = gw::time_calibrate_mix(100000, 5);
  EXPECT_GT(t.min_ns, 0.0);
  EXPECT_LE(t.min_ns, t.median_ns);
  EXPECT_LE(t.median_ns, t.max_ns);
  EXPECT_EQ(gw::time_calibrate_mix(0, 5).median_ns, 0.0);
}

}  // namespace
