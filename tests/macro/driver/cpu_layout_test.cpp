#include "macro/driver/system/cpu_layout.hpp"

#include <gtest/gtest.h>

#include <stdexcept>

namespace gatebench::macro {
namespace {

TEST(CpuSet, ParsesAndFormats) {
  EXPECT_EQ(parse_cpu_set("0").to_string(), "0");
  EXPECT_EQ(parse_cpu_set("2-3").to_string(), "2-3");
  EXPECT_EQ(parse_cpu_set("4-7,0,2").to_string(), "0,2,4-7");
  EXPECT_EQ(parse_cpu_set("3,1,2,2").to_string(), "1-3");
  EXPECT_EQ(parse_cpu_set("0,2-3").count(), 3);
}

TEST(CpuSet, RejectsBadLists) {
  for (const char* bad : {"", "a", "1-", "-1", "3-1", "1,,2", "1.5", "5000"}) {
    EXPECT_THROW(parse_cpu_set(bad), std::invalid_argument) << bad;
  }
}

TEST(CpuLayout, FewerThanFourIsNotPinned) {
  for (int n : {1, 2, 3}) {
    CpuLayout l = make_cpu_layout(n, {});
    EXPECT_FALSE(l.pinned()) << n;
    EXPECT_EQ(l.usable(Role::gateway), n);
  }
}

TEST(CpuLayout, FourToSeven) {
  CpuLayout l = make_cpu_layout(4, {});
  EXPECT_EQ(l.load.to_string(), "0");
  EXPECT_EQ(l.backend.to_string(), "1");
  EXPECT_EQ(l.gateway.to_string(), "2-3");
  EXPECT_EQ(make_cpu_layout(7, {}).gateway.to_string(), "2-6");
  EXPECT_EQ(l.usable(Role::gateway), 2);
}

TEST(CpuLayout, EightOrMore) {
  CpuLayout l = make_cpu_layout(16, {});
  EXPECT_EQ(l.load.to_string(), "0-1");
  EXPECT_EQ(l.backend.to_string(), "2-3");
  EXPECT_EQ(l.gateway.to_string(), "4-15");
}

TEST(CpuLayout, OverridesReplaceOneRole) {
  CpuOverrides o;
  o.gateway = parse_cpu_set("1");
  CpuLayout small = make_cpu_layout(2, o);
  EXPECT_TRUE(small.pinned());
  EXPECT_TRUE(small.load.empty());
  EXPECT_EQ(small.usable(Role::gateway), 1);
  EXPECT_EQ(small.usable(Role::load), 2);
  CpuLayout big = make_cpu_layout(8, o);
  EXPECT_EQ(big.gateway.to_string(), "1");
  EXPECT_EQ(big.backend.to_string(), "2-3");
}

}  // namespace
}  // namespace gatebench::macro
