#include "macro/driver/plan/template.hpp"

#include <gtest/gtest.h>

namespace gatebench::macro {
namespace {

const Variables kVars{{"port.proxy", "18081"}, {"run_dir", "/tmp/r"}, {"empty", ""}};

TEST(Template, SubstitutesKnownVariables) {
  EXPECT_EQ(render_template("listen ${port.proxy};", kVars, "t"), "listen 18081;");
  EXPECT_EQ(render_template("${run_dir}/${run_dir}", kVars, "t"), "/tmp/r//tmp/r");
  EXPECT_EQ(render_template("a${empty}b", kVars, "t"), "ab");
  EXPECT_EQ(render_template("", kVars, "t"), "");
}

TEST(Template, KeepsOtherDollars) {
  EXPECT_EQ(render_template("log '$remote_addr $status';", kVars, "t"),
            "log '$remote_addr $status';");
  EXPECT_EQ(render_template("cost $", kVars, "t"), "cost $");
  EXPECT_EQ(render_template("$${literal}", kVars, "t"), "${literal}");
}

TEST(Template, UnknownVariableNamesPlaceAndLine) {
  try {
    render_template("a\nb\nlisten ${port.nope};", kVars, "proxy.conf");
    FAIL();
  } catch (const TemplateError& e) {
    EXPECT_STREQ(e.what(), "proxy.conf:3: unknown variable ${port.nope}");
  }
}

TEST(Template, UnterminatedVariable) {
  try {
    render_template("x ${port.proxy", kVars, "f");
    FAIL();
  } catch (const TemplateError& e) {
    EXPECT_STREQ(e.what(), "f:1: unterminated ${");
  }
}

}  // namespace
}  // namespace gatebench::macro
