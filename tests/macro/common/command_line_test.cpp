#include "macro/common/command_line.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "macro/common/usage_error.hpp"

namespace gatebench::common {
namespace {

const std::vector<OptionSpec> kOptions = {
    value_option("threads", 't'), value_option("duration", 'd'), value_option("header", 'H'),
    value_option("io"),           flag_option("close"),          flag_option("quiet", 'q'),
    flag_option("help", 'h'),
};

std::string error_of(const std::vector<std::string>& args) {
  try {
    CommandLine line(args, kOptions);
    (void)line.integer("threads", 1, 1024);
    (void)line.duration_ns("duration");
    (void)line.choice("io", {"auto", "uring", "epoll"});
  } catch (const UsageError& e) {
    return e.what();
  }
  return "no error";
}

TEST(CommandLine, AcceptsEveryForm) {
  const CommandLine line({"-t4", "--duration=2s", "-H", "A: 1", "--header", "B: 2", "--close", "-q",
                          "http://h/", "--", "--not-an-option"},
                         kOptions);
  EXPECT_EQ(line.integer("threads", 1, 1024), 4);
  EXPECT_EQ(line.duration_ns("duration"), 2'000'000'000ULL);
  EXPECT_EQ(line.values("header"), (std::vector<std::string>{"A: 1", "B: 2"}));
  EXPECT_EQ(line.value("header"), "B: 2");
  EXPECT_TRUE(line.flag("close"));
  EXPECT_TRUE(line.flag("quiet"));
  EXPECT_EQ(line.last_of({"close", "quiet"}), "quiet");
  EXPECT_FALSE(line.last_of({"help"}));
  EXPECT_FALSE(line.flag("help"));
  EXPECT_EQ(line.positionals(), (std::vector<std::string>{"http://h/", "--not-an-option"}));
}

TEST(CommandLine, OptionsOnlyCommandsRefusePositionals) {
  EXPECT_NO_THROW(CommandLine({"-q", "--close"}, kOptions).expect_no_positionals());
  // After "--" every word is a positional, option-like or not.
  EXPECT_THROW(CommandLine({"--", "--close"}, kOptions).expect_no_positionals(), UsageError);
  try {
    CommandLine({"-q", "stray", "other"}, kOptions).expect_no_positionals();
    FAIL() << "no error";
  } catch (const UsageError& e) {
    EXPECT_STREQ(e.what(), "unexpected argument 'stray' (see --help)");
  }
}

TEST(CommandLine, AbsentOptionsGiveNothing) {
  const CommandLine line({}, kOptions);
  EXPECT_FALSE(line.integer("threads", 1, 1024));
  EXPECT_FALSE(line.duration_s("duration"));
  EXPECT_FALSE(line.given("io"));
  EXPECT_EQ(line.value_or("io", "auto"), "auto");
}

TEST(CommandLine, ErrorsNameTheOption) {
  EXPECT_EQ(error_of({"--frobnicate"}), "unknown option --frobnicate (see --help)");
  EXPECT_EQ(error_of({"--frob=1"}), "unknown option --frob (see --help)");
  EXPECT_EQ(error_of({"-x"}), "unknown option -x (see --help)");
  EXPECT_EQ(error_of({"-qx"}), "unknown option -qx (see --help)");
  EXPECT_EQ(error_of({"-t"}), "option -t needs a value");
  EXPECT_EQ(error_of({"--threads"}), "option --threads needs a value");
  EXPECT_EQ(error_of({"--close=yes"}), "option --close takes no value");
  EXPECT_EQ(error_of({"-t", "zero"}), "--threads: 'zero' is not a whole number");
  EXPECT_EQ(error_of({"-t", "0"}), "--threads: 0 is out of range [1, 1024]");
  EXPECT_EQ(error_of({"-t", "99999999999999999999"}),
            "--threads: 99999999999999999999 is out of range [1, 1024]");
  EXPECT_EQ(error_of({"-d", "20x"}),
            "--duration: unknown unit 'x' in '20x' (use us, ms, s, m or h)");
  EXPECT_EQ(error_of({"--io", "poll"}), "--io: expected auto, uring or epoll, got 'poll'");
}

TEST(CommandLine, NumbersAreChecked) {
  EXPECT_DOUBLE_EQ(parse_number("1e3", "--rate"), 1000);
  EXPECT_THROW(parse_number("fast", "--rate"), UsageError);
  EXPECT_THROW(parse_number("inf", "--rate"), UsageError);
  EXPECT_THROW(parse_number("", "--rate"), UsageError);
  EXPECT_EQ(parse_integer("-5", "--port-offset", -10, 10), -5);
  EXPECT_THROW(parse_integer("5.0", "--seed", 0, 10), UsageError);
}

}  // namespace
}  // namespace gatebench::common
