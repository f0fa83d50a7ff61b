// Markdown table cells (tools/src/results/format.cpp): a benchmark name, a scenario's reason or a
// note can hold '|', '`' or a line break; each must stay inside its one cell.
#include "tools/src/results/format.hpp"

#include <gtest/gtest.h>

namespace gatebench::tools {
namespace {

TEST(MdCell, EscapesPipesAndBackticksAndJoinsLines) {
  EXPECT_EQ(md_cell("plain"), "plain");
  EXPECT_EQ(md_cell("a|b"), "a\\|b");
  EXPECT_EQ(md_cell("run `x`"), "run \\`x\\`");
  EXPECT_EQ(md_cell("line one\nline two\r\n"), "line one line two  ");
}

TEST(MdCodeCell, FenceIsLongerThanAnyBacktickRun) {
  EXPECT_EQ(md_code_cell("cidr/gatecore/list_1k"), "`cidr/gatecore/list_1k`");
  EXPECT_EQ(md_code_cell("a`b"), "``a`b``");
  EXPECT_EQ(md_code_cell("a``b`c"), "```a``b`c```");
  EXPECT_EQ(md_code_cell("`edge"), "`` `edge ``");
  EXPECT_EQ(md_code_cell("x|y\nz"), "`x\\|y z`");
}

}  // namespace
}  // namespace gatebench::tools
