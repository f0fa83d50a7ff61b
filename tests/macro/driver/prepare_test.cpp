#include "macro/driver/measure/prepare.hpp"

#include <gtest/gtest.h>

namespace gatebench::macro {
namespace {

TEST(PrepareCookies, OnlyAnRfc6265CookieValueReachesTheLoad) {
  for (const char* ok : {"abc", "a.b-c_d~e!#$%&'()*+-./:<=>?@[]^_`{|}~", "\"quoted\"", ""})
    EXPECT_TRUE(is_cookie_value(ok)) << ok;
  // Each of these would rewrite a JSON request template or a header line it is pasted into.
  for (const char* bad : {"a\"b", "a\\b", "a b", "a,b", "a;b", "a\r\nX-Injected: 1", "\"a\"b\"",
                          "caf\xc3\xa9", "\x7f"})
    EXPECT_FALSE(is_cookie_value(bad)) << bad;
}

}  // namespace
}  // namespace gatebench::macro
