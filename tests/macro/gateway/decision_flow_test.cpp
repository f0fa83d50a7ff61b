// DecisionFlow's admission of a decision listener's request: the JSON form is a POST with a
// Content-Length body of at most 16 KiB, read before the decision (status 0); anything else is
// refused and ends the connection.
#include "macro/gateway/decision_flow.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <string_view>

#include "macro/gateway/request_parts.hpp"

namespace gw = gatebench::gateway;

namespace {

struct Admitted {
  gw::LocalResponse answer;
  bool close_after = false;
};

Admitted admit(std::string_view head) {
  gw::RequestParts parts(8192);
  gw::Client c;
  parts.take_request(c);
  std::memcpy(c.buffers.in.get(), head.data(), head.size());
  c.conn.in_len = head.size();
  EXPECT_EQ(gw::parse_request_head(head, 8192, c.req()), gw::HeadStatus::kComplete);
  gw::DecisionFlow flow;
  auto scratch = std::make_unique<gw::PolicyScratch>();
  Admitted a;
  a.answer = flow.begin(c, *scratch);
  a.close_after = c.conn.close_after;
  return a;
}

}  // namespace

TEST(DecisionFlow, TheJsonFormWithABodyThatFitsIsReadFirst) {
  const Admitted a = admit("POST /v1/decision HTTP/1.1\r\nHost: d\r\nContent-Length: 10\r\n\r\n");
  EXPECT_EQ(a.answer.status, 0);
  EXPECT_FALSE(a.close_after);
}

TEST(DecisionFlow, TheJsonFormIsAPost) {
  const Admitted a = admit("GET /v1/decision?x=1 HTTP/1.1\r\nHost: d\r\n\r\n");
  EXPECT_EQ(a.answer.status, 405);
  EXPECT_TRUE(a.close_after);
}

TEST(DecisionFlow, TheJsonFormHasAContentLength) {
  const Admitted a =
      admit("POST /v1/decision HTTP/1.1\r\nHost: d\r\nTransfer-Encoding: chunked\r\n\r\n");
  EXPECT_EQ(a.answer.status, 400);
  EXPECT_TRUE(a.close_after);
}

TEST(DecisionFlow, TheJsonFormsBodyIsAtMost16KiB) {
  const Admitted a =
      admit("POST /v1/decision HTTP/1.1\r\nHost: d\r\nContent-Length: 16385\r\n\r\n");
  EXPECT_EQ(a.answer.status, 413);
  EXPECT_TRUE(a.close_after);
}
