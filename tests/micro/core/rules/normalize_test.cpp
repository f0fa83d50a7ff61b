// Normalisation of the request target (micro/core/rules/normalize.hpp): each rule on its own,
// then a differential test against a naive implementation (std::string, one step at a time) on
// generated targets.
#include "micro/core/rules/normalize.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "fixtures/rng.hpp"

namespace gatebench::rules {
namespace {

std::string path_of(std::string_view raw, NormalizeStatus want = NormalizeStatus::kOk) {
  std::vector<char> buf(raw.size() + 1);
  std::string_view out;
  EXPECT_EQ(normalize_path(raw, buf.data(), out), want) << raw;
  return std::string(out);
}

std::string query_of(std::string_view raw, NormalizeStatus want = NormalizeStatus::kOk) {
  std::vector<char> buf(raw.size() + 1);
  std::string_view out;
  EXPECT_EQ(normalize_query(raw, buf.data(), out), want) << raw;
  return std::string(out);
}

TEST(Normalize, PercentDecodingSingleAndDouble) {
  EXPECT_EQ(path_of("/wp-%61dmin"), "/wp-admin");
  EXPECT_EQ(path_of("/wp-%41dmin"), "/wp-Admin");  // case is the rule's business
  EXPECT_EQ(path_of("/a%252fb"), "/a/b");          // "%25" + "2f": encoded twice
  EXPECT_EQ(path_of("/a%25%32%65"), "/a.");        // "%" "2" "e" after one round
  EXPECT_EQ(path_of("/100%25"), "/100%");          // a '%' left after the second round stays
  EXPECT_EQ(path_of("/a+b"), "/a+b");              // '+' is a plus in a path
  EXPECT_EQ(query_of("q=a+b%20c"), "q=a b c");
  EXPECT_EQ(query_of("q=%2B1"), "q=+1");  // an encoded plus stays a plus
  EXPECT_EQ(query_of("q=union%2520select"), "q=union select");
  EXPECT_EQ(query_of("a=1%26b=2"), "a=1&b=2");
  EXPECT_EQ(query_of(""), "");
}

TEST(Normalize, InvalidEncodingsAreErrors) {
  path_of("/a%", NormalizeStatus::kBadEncoding);
  path_of("/a%4", NormalizeStatus::kBadEncoding);
  path_of("/a%zz", NormalizeStatus::kBadEncoding);
  path_of("/a%00b", NormalizeStatus::kNulByte);
  path_of("/a%2500b", NormalizeStatus::kNulByte);  // NUL after the second round
  query_of("q=%g1", NormalizeStatus::kBadEncoding);
  query_of("q=50%", NormalizeStatus::kBadEncoding);
  path_of("", NormalizeStatus::kNotAPath);
  path_of("wp-admin", NormalizeStatus::kNotAPath);
  EXPECT_EQ(query_of("q=%00"), std::string("q=\0", 3));  // NUL is the exploit scanner's call
}

TEST(Normalize, SlashesBackslashesAndDotSegments) {
  EXPECT_EQ(path_of("//wp-admin"), "/wp-admin");
  EXPECT_EQ(path_of("/a///b//"), "/a/b/");
  EXPECT_EQ(path_of("/\\wp-admin\\x"), "/wp-admin/x");
  EXPECT_EQ(path_of("/a%5cb"), "/a/b");
  EXPECT_EQ(path_of("/./wp-admin"), "/wp-admin");
  EXPECT_EQ(path_of("/x/../wp-admin"), "/wp-admin");
  EXPECT_EQ(path_of("/x/%2e%2e/wp-admin"), "/wp-admin");
  EXPECT_EQ(path_of("/../../../etc/passwd"), "/etc/passwd");  // never above the root
  EXPECT_EQ(path_of("/a/b/.."), "/a/");
  EXPECT_EQ(path_of("/a/b/."), "/a/b/");
  EXPECT_EQ(path_of("/a/..b/c"), "/a/..b/c");  // only whole segments are dots
  EXPECT_EQ(path_of("/a/.b"), "/a/.b");
  EXPECT_EQ(path_of("/"), "/");
  EXPECT_EQ(path_of("/.."), "/");
  EXPECT_EQ(path_of("*"), "*");
}

TEST(Normalize, OriginForm) {
  std::string_view authority;
  EXPECT_EQ(origin_form("http://x.test/wp-admin?a=1", authority), "/wp-admin?a=1");
  EXPECT_EQ(authority, "x.test");
  EXPECT_EQ(origin_form("HTTPS://x.test:8443/a", authority), "/a");
  EXPECT_EQ(authority, "x.test:8443");
  EXPECT_EQ(origin_form("http://x.test", authority), "");
  EXPECT_EQ(authority, "x.test");
  EXPECT_EQ(origin_form("http://x.test?q", authority), "?q");
  EXPECT_EQ(origin_form("/plain", authority), "/plain");
  EXPECT_EQ(authority, "");
  EXPECT_EQ(origin_form("ftp://x/a", authority), "ftp://x/a");
  EXPECT_EQ(authority, "");
}

// The naive reference: decode into a std::string (strict, then lenient), then split into
// segments and rebuild, as RFC 3986 5.2.4 describes it.
int hexval(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

bool naive_decode(const std::string& in, bool strict, bool plus_space, std::string& out) {
  out.clear();
  for (std::size_t i = 0; i < in.size(); ++i) {
    if (in[i] == '%') {
      if (i + 2 < in.size() && hexval(in[i + 1]) >= 0 && hexval(in[i + 2]) >= 0) {
        out += static_cast<char>(hexval(in[i + 1]) * 16 + hexval(in[i + 2]));
        i += 2;
        continue;
      }
      if (strict) return false;
    }
    out += (plus_space && in[i] == '+') ? ' ' : in[i];
  }
  return true;
}

bool naive_path(const std::string& raw, std::string& out) {
  std::string once;
  std::string twice;
  if (!naive_decode(raw, true, false, once)) return false;
  naive_decode(once, false, false, twice);
  for (char& c : twice) {
    if (c == '\\') c = '/';
    if (c == '\0') return false;
  }
  std::vector<std::string> parts;  // parts[0] is "" (the leading '/')
  std::size_t from = 0;
  for (std::size_t j; (j = twice.find('/', from)) != std::string::npos; from = j + 1) {
    parts.push_back(twice.substr(from, j - from));
  }
  parts.push_back(twice.substr(from));
  std::vector<std::string> segments;
  for (std::size_t k = 1; k < parts.size(); ++k) {
    if (parts[k] == "..") {
      if (!segments.empty()) segments.pop_back();
    } else if (parts[k] != "." && !parts[k].empty()) {
      segments.push_back(parts[k]);
    }
  }
  const std::string& last = parts.back();
  const bool trailing = parts.size() > 1 && (last.empty() || last == "." || last == "..");
  out.clear();
  for (const std::string& s : segments) out += "/" + s;
  if (out.empty() || trailing) out += "/";
  return true;
}

std::string random_path(fixtures::Rng& rng) {
  static constexpr std::string_view kPieces[] = {"/",   "//",  ".",   "..",  "a",   "bc",
                                                 "%2e", "%2f", "%5c", "\\",  "%25", "%",
                                                 "2e",  "2f",  "+",   "%41", "%00", "%zz"};
  std::string s = "/";
  const auto n = rng.below(12);
  for (std::uint64_t i = 0; i < n; ++i) s += kPieces[rng.below(std::size(kPieces))];
  return s;
}

TEST(Normalize, PathMatchesTheNaiveImplementation) {
  fixtures::Rng rng = fixtures::Rng(fixtures::kDefaultSeed).fork("test/normalize_path");
  std::vector<char> buf;
  std::size_t errors = 0;
  for (int k = 0; k < 100000; ++k) {
    const std::string raw = random_path(rng);
    std::string want;
    const bool ok = naive_path(raw, want);
    buf.assign(raw.size() + 1, '\0');
    std::string_view got;
    const NormalizeStatus st = normalize_path(raw, buf.data(), got);
    ASSERT_EQ(st == NormalizeStatus::kOk, ok) << raw;
    if (ok) {
      ASSERT_EQ(got, want) << raw;
    } else {
      ++errors;
    }
  }
  EXPECT_GT(errors, 1000u);  // the generator reaches the error paths too
}

TEST(Normalize, QueryMatchesTheNaiveImplementation) {
  fixtures::Rng rng = fixtures::Rng(fixtures::kDefaultSeed).fork("test/normalize_query");
  std::vector<char> buf;
  for (int k = 0; k < 100000; ++k) {
    std::string raw = random_path(rng).substr(1);
    std::string once;
    std::string want;
    const bool ok = naive_decode(raw, true, true, once);
    if (ok) naive_decode(once, false, false, want);
    buf.assign(raw.size() + 1, '\0');
    std::string_view got;
    const NormalizeStatus st = normalize_query(raw, buf.data(), got);
    ASSERT_EQ(st == NormalizeStatus::kOk, ok) << raw;
    if (ok) {
      ASSERT_EQ(got, want) << raw;
    }
  }
}

}  // namespace
}  // namespace gatebench::rules
