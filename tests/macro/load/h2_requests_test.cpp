// The HTTP/2 header lists built from request templates: pseudo-headers first, Host as :authority,
// names in lower case, no connection-specific fields, bodies kept for DATA frames.
#include "macro/load/h2_requests.hpp"

#include <gtest/gtest.h>

#include "macro/load/url.hpp"

namespace gatebench::load {
namespace {

TEST(H2Requests, PseudoHeadersThenLowerCaseFields) {
  const Target target = parse_url("https://example.test:8443/base");
  const RequestSet set = RequestSet::parse(
      R"({"requests": [{"name": "order", "method": "POST", "path": "/api/orders",
          "query": {"q": "a b"}, "headers": {"X-Trace": "1", "Connection": "keep-alive"},
          "cookies": {"s": "abc"}, "body": {"item": 42}}]})",
      "test", target, {"Accept: */*"}, false);
  const H2Requests h2(set, target, {"Accept: */*"});
  EXPECT_EQ(h2.describe(0),
            ":method: POST\n"
            ":scheme: https\n"
            ":authority: example.test:8443\n"
            ":path: /api/orders?q=a%20b\n"
            "accept: */*\n"
            "x-trace: 1\n"
            "content-type: application/json\n"
            "cookie: s=abc\n"
            "content-length: 11\n");
  EXPECT_EQ(h2.body(0), R"({"item":42})");
  const auto& nva = h2.headers(0);
  ASSERT_EQ(nva.size(), 9u);
  EXPECT_EQ(nva[0].flags, NGHTTP2_NV_FLAG_NO_COPY_NAME | NGHTTP2_NV_FLAG_NO_COPY_VALUE);
  EXPECT_EQ(std::string(reinterpret_cast<const char*>(nva[2].value), nva[2].valuelen),
            "example.test:8443");
}

TEST(H2Requests, HostHeaderBecomesTheAuthority) {
  const Target target = parse_url("http://127.0.0.1:8080/");
  const RequestSet set = RequestSet::single(target, {"Host: api.example"}, false);
  const H2Requests h2(set, target, {"Host: api.example"});
  EXPECT_EQ(h2.describe(0), ":method: GET\n:scheme: http\n:authority: api.example\n:path: /\n");
  EXPECT_TRUE(h2.body(0).empty());
}

}  // namespace
}  // namespace gatebench::load
