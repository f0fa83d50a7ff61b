// RequestParts: each part of a request set is taken once, given back to its own pool and served
// again from there; spare parts beyond the last peak windows are freed.
#include "macro/gateway/request_parts.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace gw = gatebench::gateway;

TEST(RequestParts, ARequestPartIsTakenOnceAndServesAgainOnceGivenBack) {
  gw::RequestParts parts(8192);
  gw::Client c;
  parts.take_request(c);
  ASSERT_TRUE(c.buffers.in);
  ASSERT_TRUE(c.buffers.req);
  EXPECT_EQ(c.buffers.in_cap, 8192 + gw::kBodyWindow);
  char* in = c.buffers.in.get();
  parts.take_request(c);  // held: nothing taken
  EXPECT_EQ(c.buffers.in.get(), in);
  parts.give_request(c);
  EXPECT_FALSE(c.buffers.in);
  EXPECT_EQ(c.buffers.in_cap, 0u);
  parts.give_request(c);  // given back already: nothing given
  gw::Client d;
  parts.take_request(d);
  EXPECT_EQ(d.buffers.in.get(), in);
}

TEST(RequestParts, AHeadOnlyPartGoesBackToItsOwnPool) {
  gw::RequestParts parts(8192);
  gw::Client c;
  parts.take_head_only(c);
  EXPECT_EQ(c.buffers.in_cap, gw::kHeadOnlyCap);
  char* small = c.buffers.in.get();
  parts.give_request(c);
  gw::Client d;
  parts.take_request(d);  // a whole part is never the small one
  EXPECT_NE(d.buffers.in.get(), small);
  EXPECT_EQ(d.buffers.in_cap, 8192 + gw::kBodyWindow);
  parts.take_head_only(c);
  EXPECT_EQ(c.buffers.in.get(), small);
}

TEST(RequestParts, TheExchangePartsGoBackTogether) {
  gw::RequestParts parts(1024);
  EXPECT_EQ(parts.up_head_cap(), 2048u);
  gw::Client c;
  parts.take_response(c);
  parts.take_up_head(c);
  ASSERT_TRUE(c.buffers.out);
  ASSERT_TRUE(c.buffers.resp);
  ASSERT_TRUE(c.buffers.rh);
  ASSERT_TRUE(c.buffers.up_head);
  char* out = c.buffers.out.get();
  parts.give_exchange(c);
  EXPECT_FALSE(c.buffers.out);
  EXPECT_FALSE(c.buffers.up_head);
  parts.give_exchange(c);  // given back already: nothing given
  parts.take_response(c);
  EXPECT_EQ(c.buffers.out.get(), out);
}

TEST(RequestParts, SparePartsBeyondTheLastTwoPeakWindowsAreFreed) {
  gw::RequestParts parts(1024);
  std::vector<gw::Client> clients(40);
  for (gw::Client& c : clients) parts.take_request(c);
  for (gw::Client& c : clients) parts.give_request(c);
  EXPECT_FALSE(parts.trim());  // this window's peak had 40 in use
  parts.next_window();
  EXPECT_FALSE(parts.trim());  // the previous window's peak
  parts.next_window();
  EXPECT_TRUE(parts.trim());  // down to kSpareRequestBuffers
  EXPECT_FALSE(parts.trim());
}
