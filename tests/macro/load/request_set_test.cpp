#include "macro/load/request_set.hpp"

#include <gtest/gtest.h>

#include <array>

#include "fixtures/rng.hpp"
#include "macro/common/usage_error.hpp"
#include "macro/load/url.hpp"

namespace gatebench::load {
namespace {

Target target() {
  Target t = parse_url("http://example.test:8080/base?x=1");
  return t;
}

std::string error_of(const std::string& text) {
  try {
    RequestSet::parse(text, "mix.json", target(), {}, false);
  } catch (const common::UsageError& e) {
    return e.what();
  }
  return "";
}

TEST(RequestSet, SingleGetOfTheUrl) {
  const RequestSet s = RequestSet::single(target(), {"X-A: 1", "Host: other"}, false);
  ASSERT_EQ(s.size(), 1u);
  EXPECT_EQ(s.templates()[0].wire, "GET /base?x=1 HTTP/1.1\r\nHost: other\r\nX-A: 1\r\n\r\n");
  const RequestSet c = RequestSet::single(target(), {}, true);
  EXPECT_EQ(c.templates()[0].wire,
            "GET /base?x=1 HTTP/1.1\r\nHost: example.test:8080\r\nConnection: close\r\n\r\n");
}

TEST(RequestSet, TemplatesSerialiseEveryField) {
  const RequestSet s = RequestSet::parse(R"({"schema": "gatebench.requests/1", "requests": [
      {"name": "search", "weight": 3, "method": "GET", "path": "/search",
       "query": {"q": "a b&c", "n": 10}, "headers": {"Accept": "text/html"},
       "cookies": {"session": "abc", "lang": "en"}, "expect_status": 200},
      {"name": "post", "method": "POST", "path": "/api", "body": {"k": [1, 2]}},
      {"name": "raw", "method": "PUT", "path": "/p?a=1", "query": "b=2", "body": "xyz",
       "headers": {"content-type": "text/plain"}}]})",
                                         "mix.json", target(), {"X-G: g"}, false);
  ASSERT_EQ(s.size(), 3u);
  EXPECT_EQ(s.templates()[0].wire,
            "GET /search?q=a%20b%26c&n=10 HTTP/1.1\r\nHost: example.test:8080\r\nX-G: g\r\n"
            "Accept: text/html\r\nCookie: session=abc; lang=en\r\n\r\n");
  EXPECT_EQ(s.templates()[0].expect_status, 200);
  EXPECT_EQ(s.templates()[1].wire,
            "POST /api HTTP/1.1\r\nHost: example.test:8080\r\nX-G: g\r\n"
            "Content-Type: application/json\r\nContent-Length: 11\r\n\r\n{\"k\":[1,2]}");
  EXPECT_EQ(s.templates()[2].wire,
            "PUT /p?a=1&b=2 HTTP/1.1\r\nHost: example.test:8080\r\nX-G: g\r\n"
            "content-type: text/plain\r\nContent-Length: 3\r\n\r\nxyz");
}

// Headers, cookies and query parameters go out in the order the file lists them, not sorted.
TEST(RequestSet, MembersKeepTheFileOrder) {
  const RequestSet s = RequestSet::parse(
      R"({"requests": [{"query": {"z": 1, "a": 2}, "headers": {"X-Z": "1", "X-A": "2"},
          "cookies": {"zz": "1", "aa": "2"}}]})",
      "mix.json", target(), {}, false);
  EXPECT_EQ(s.templates()[0].wire,
            "GET /?z=1&a=2 HTTP/1.1\r\nHost: example.test:8080\r\nX-Z: 1\r\nX-A: 2\r\n"
            "Cookie: zz=1; aa=2\r\n\r\n");
}

TEST(RequestSet, WeightedPickFollowsTheWeights) {
  const RequestSet s = RequestSet::parse(R"({"requests": [
      {"name": "a", "weight": 70}, {"name": "b", "weight": 25}, {"name": "c", "weight": 5}]})",
                                         "mix.json", target(), {}, false);
  fixtures::Rng rng = fixtures::Rng(fixtures::kDefaultSeed).fork("load-request-pick");
  std::array<int, 3> counts{};
  const int n = 200000;
  for (int i = 0; i < n; ++i) counts[s.pick(rng.uniform())] += 1;
  EXPECT_NEAR(counts[0] / double(n), 0.70, 0.005);
  EXPECT_NEAR(counts[1] / double(n), 0.25, 0.005);
  EXPECT_NEAR(counts[2] / double(n), 0.05, 0.005);
  EXPECT_EQ(s.pick(0.0), 0u);
  EXPECT_EQ(s.pick(0.9999999), 2u);
}

TEST(RequestSet, ErrorsNameTheFileAndTheField) {
  EXPECT_NE(error_of("{").find("mix.json: not valid JSON"), std::string::npos);
  EXPECT_EQ(error_of("[]"), "mix.json: (top level): expected an object with a \"requests\" array");
  EXPECT_EQ(error_of(R"({"requests": []})"),
            "mix.json: /requests: expected a non-empty array of request templates");
  EXPECT_EQ(error_of(R"({"schema": "x", "requests": [{}]})"),
            "mix.json: /schema: expected \"gatebench.requests/1\"");
  EXPECT_EQ(error_of(R"({"requests": [{}], "extra": 1})"), "mix.json: /extra: unknown field");
  EXPECT_EQ(error_of(R"({"requests": [{}, {"weight": 0}]})"),
            "mix.json: /requests/1/weight: expected a positive number");
  EXPECT_EQ(error_of(R"({"requests": [{"path": "nope"}]})"),
            "mix.json: /requests/0/path: must start with '/'");
  EXPECT_EQ(
      error_of(R"({"requests": [{"path": "/a b"}]})"),
      "mix.json: /requests/0/path: must not contain spaces or line breaks (percent-encode them)");
  EXPECT_EQ(error_of(R"({"requests": [{"method": "GE T"}]})"),
            "mix.json: /requests/0/method: not a valid HTTP method token");
  EXPECT_EQ(error_of(R"({"requests": [{"headers": {"X": "a\r\nb"}}]})"),
            "mix.json: /requests/0/headers/X: line breaks are not allowed");
  EXPECT_EQ(error_of(R"({"requests": [{"headers": {"Content-Length": "1"}}]})"),
            "mix.json: /requests/0/headers/Content-Length: set by the generator from the body");
  EXPECT_EQ(error_of(R"({"requests": [{"cookies": {"a": "x;y"}}]})"),
            "mix.json: /requests/0/cookies/a: invalid cookie name or value");
  EXPECT_EQ(error_of(R"({"requests": [{"body": 5}]})"),
            "mix.json: /requests/0/body: expected a string, an object or an array");
  EXPECT_EQ(error_of(R"({"requests": [{"expect_status": 600}]})"),
            "mix.json: /requests/0/expect_status: expected an HTTP status code from 100 to 599");
  EXPECT_EQ(error_of(R"({"requests": [{"name": "a"}, {"name": "a"}]})"),
            "mix.json: /requests/1/name: duplicate name 'a'");
  // Member names are escaped as JSON pointers (RFC 6901): "/" as ~1, "~" as ~0.
  EXPECT_EQ(error_of(R"({"requests": [{"headers": {"a/b~": "1"}}]})"),
            "mix.json: /requests/0/headers/a~1b~0: invalid header name");
  EXPECT_EQ(error_of(R"({"requests": [{"query": {"q": [1]}}]})"),
            "mix.json: /requests/0/query/q: expected a string or number");
  EXPECT_EQ(error_of(R"({"requests": [{"name": 5}]})"),
            "mix.json: /requests/0/name: expected a string");
  EXPECT_EQ(error_of(R"({"requests": [{"colour": "red"}]})"),
            "mix.json: /requests/0/colour: unknown field (known: name, weight, method, path, "
            "query, headers, cookies, body, expect_status)");
  EXPECT_EQ(error_of(R"({"requests": [{"query": 3}]})"),
            "mix.json: /requests/0/query: expected a string or an object");
}

TEST(RequestSet, MissingFile) {
  try {
    RequestSet::load("/nonexistent/mix.json", target(), {}, false);
    FAIL() << "no error";
  } catch (const common::UsageError& e) {
    EXPECT_EQ(std::string(e.what()), "/nonexistent/mix.json: cannot read");
  }
}

TEST(Url, Parts) {
  const Target t = parse_url("https://[::1]:8443/p?q#frag");
  EXPECT_TRUE(t.tls);
  EXPECT_EQ(t.host, "::1");
  EXPECT_EQ(t.port, 8443);
  EXPECT_EQ(t.path, "/p?q");
  EXPECT_EQ(t.host_header, "[::1]:8443");
  EXPECT_TRUE(t.host_is_ip);
  const Target d = parse_url("http://localhost");
  EXPECT_EQ(d.port, 80);
  EXPECT_EQ(d.path, "/");
  EXPECT_EQ(d.host_header, "localhost");
  EXPECT_FALSE(d.host_is_ip);
  EXPECT_EQ(parse_url("http://h?x=1").path, "/?x=1");
  for (const char* bad : {"ftp://h/", "http://", "http://h:0/", "http://h:99999/", "http://h:x/",
                          "http://u@h/", "http://[::1/", "http://h:/"}) {
    EXPECT_THROW(parse_url(bad), common::UsageError) << bad;
  }
  Target unresolvable = parse_url("http://no-such-host.invalid/");
  EXPECT_THROW(resolve(unresolvable), common::UsageError);
}

}  // namespace
}  // namespace gatebench::load
