#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "macro/common/child_process.hpp"
#include "macro/common/duration.hpp"
#include "macro/common/load_capabilities.hpp"
#include "macro/common/usage_error.hpp"
#include "macro/load/options.hpp"
#include "tests/macro/load/test_server.hpp"

namespace gatebench::load {
namespace {

std::string parse_error(const std::vector<std::string>& args) {
  try {
    parse_options(args);
  } catch (const common::UsageError& e) {
    return e.what();
  }
  return "";
}

TEST(Options, WrkStyleCommandLine) {
  const auto o = parse_options({"-t4",
                                "-c",
                                "64",
                                "-d",
                                "2m",
                                "--warmup=500ms",
                                "-R",
                                "5000",
                                "--close",
                                "--json",
                                "out.json",
                                "-H",
                                "X-A: b",
                                "--timeout",
                                "250ms",
                                "--no-tls-resume",
                                "--requests-total",
                                "10",
                                "--spin",
                                "15us",
                                "http://h/"});
  ASSERT_TRUE(o);
  EXPECT_EQ(o->threads, 4);
  EXPECT_EQ(o->connections, 64);
  EXPECT_EQ(o->duration_ns, 120'000'000'000ULL);
  EXPECT_EQ(o->warmup_ns, 500'000'000ULL);
  EXPECT_EQ(o->rate, 5000);
  EXPECT_TRUE(o->close);
  EXPECT_EQ(o->json_path, "out.json");
  EXPECT_EQ(o->headers, std::vector<std::string>{"X-A: b"});
  EXPECT_EQ(o->timeout_ns, 250'000'000ULL);
  EXPECT_FALSE(o->tls_resume);
  EXPECT_EQ(o->requests_total, 10u);
  EXPECT_EQ(o->spin_ns, 15'000u);
  EXPECT_FALSE(o->spin_auto);
  EXPECT_EQ(o->url, "http://h/");
  EXPECT_FALSE(parse_options({"--help"}));
  EXPECT_FALSE(parse_options({"-h", "http://h/"}));
}

TEST(Options, Defaults) {
  const auto o = parse_options({"-t", "16", "http://h/"});
  ASSERT_TRUE(o);
  EXPECT_EQ(o->connections, 16);  // the default 10, raised to one per thread
  EXPECT_EQ(o->duration_ns, 10'000'000'000ULL);
  EXPECT_EQ(o->rate, 0);
  EXPECT_TRUE(o->tls_resume);
  EXPECT_TRUE(o->spin_auto);
  const auto budget = parse_options({"--requests-total", "5", "http://h/"});
  EXPECT_EQ(budget->duration_ns, 3600'000'000'000ULL);
}

TEST(Options, SpinAutoLeavesACpuFree) {
  const auto one = parse_options({"-t", "1", "--spin", "auto", "http://h/"});
  ASSERT_TRUE(one);
  EXPECT_EQ(effective_spin_ns(*one, 2), kAutoSpinNs);
  EXPECT_EQ(effective_spin_ns(*one, 1), 0u);
  const auto two = parse_options({"-t", "2", "http://h/"});
  EXPECT_EQ(effective_spin_ns(*two, 2), 0u);
  EXPECT_EQ(effective_spin_ns(*two, 3), kAutoSpinNs);
  const auto fixed = parse_options({"-t", "2", "--spin", "0", "http://h/"});
  EXPECT_EQ(effective_spin_ns(*fixed, 64), 0u);
  const auto given = parse_options({"-t", "8", "--spin", "20us", "http://h/"});
  EXPECT_EQ(effective_spin_ns(*given, 2), 20'000u);
  EXPECT_GE(usable_cpus(), 1);
}

TEST(Options, SchedAutoIsBatchInClosedLoopOnly) {
  const auto closed = parse_options({"http://h/"});
  ASSERT_TRUE(closed);
  EXPECT_EQ(closed->sched, "auto");
  EXPECT_TRUE(effective_sched_batch(*closed));
  const auto open = parse_options({"--rate", "100", "http://h/"});
  EXPECT_FALSE(effective_sched_batch(*open));
  const auto normal = parse_options({"--sched", "normal", "http://h/"});
  EXPECT_FALSE(effective_sched_batch(*normal));
  const auto batch = parse_options({"--sched", "batch", "--rate", "100", "http://h/"});
  EXPECT_TRUE(effective_sched_batch(*batch));
}

TEST(Options, Durations) {
  EXPECT_EQ(common::parse_duration_ns("1.5s", "d"), 1'500'000'000ULL);
  EXPECT_EQ(common::parse_duration_ns("3", "d"), 3'000'000'000ULL);
  EXPECT_EQ(common::parse_duration_ns("250us", "d"), 250'000ULL);
  EXPECT_EQ(common::parse_duration_ns("1h", "d"), 3600'000'000'000ULL);
  EXPECT_THROW(common::parse_duration_ns("5 parsecs", "d"), common::UsageError);
  EXPECT_THROW(common::parse_duration_ns("s", "d"), common::UsageError);
  EXPECT_THROW(common::parse_duration_ns("-1s", "d"), common::UsageError);
  EXPECT_THROW(common::parse_duration_ns("99999h", "d"), common::UsageError);
}

TEST(CountHeaderOption, LowerCasedAndValidated) {
  const auto o = parse_options({"--count-header", "X-Cache-Status", "http://h/"});
  ASSERT_TRUE(o);
  EXPECT_EQ(o->count_header, "x-cache-status");
  EXPECT_EQ(parse_options({"http://h/"})->count_header, "");
  EXPECT_EQ(parse_error({"--count-header", "", "http://h/"}),
            "--count-header: expected a header name");
  EXPECT_EQ(parse_error({"--count-header", "X Cache", "http://h/"}),
            "--count-header 'X Cache': invalid character in the header name");
  EXPECT_EQ(parse_error({"--count-header", ":status", "http://h/"}),
            "--count-header ':status': invalid character in the header name");
  EXPECT_EQ(parse_error({"--count-header", "a", "--count-header", "b", "http://h/"}),
            "--count-header: given more than once");
}

TEST(Options, ErrorsArePrecise) {
  EXPECT_EQ(parse_error({}), "missing URL (see --help)");
  EXPECT_EQ(parse_error({"-t", "zero", "http://h/"}), "--threads: 'zero' is not a whole number");
  EXPECT_EQ(parse_error({"-t", "0", "http://h/"}), "--threads: 0 is out of range [1, 1024]");
  EXPECT_EQ(parse_error({"-t", "4", "-c", "2", "http://h/"}),
            "--connections (2) must be at least --threads (4)");
  EXPECT_EQ(parse_error({"-d", "10x", "http://h/"}),
            "--duration: unknown unit 'x' in '10x' (use us, ms, s, m or h)");
  EXPECT_EQ(parse_error({"-d", "0", "http://h/"}), "--duration: must be at least 1ms");
  EXPECT_EQ(parse_error({"-R", "-5", "http://h/"}), "--rate: must be in (0, 1e8] requests/s");
  EXPECT_EQ(parse_error({"-R", "fast", "http://h/"}), "--rate: 'fast' is not a number");
  EXPECT_EQ(parse_error({"-H", "NoColon", "http://h/"}),
            "--header 'NoColon': expected 'Name: value'");
  EXPECT_EQ(parse_error({"-H", "Bad Name: v", "http://h/"}),
            "--header 'Bad Name: v': invalid character in the header name");
  EXPECT_EQ(parse_error({"--close=yes", "http://h/"}), "option --close takes no value");
  EXPECT_EQ(parse_error({"--timeout", "0", "http://h/"}), "--timeout: must be at least 1ms");
  EXPECT_EQ(parse_error({"--requests-total", "0", "http://h/"}),
            "--requests-total: 0 is out of range [1, 1000000000000]");
  EXPECT_EQ(parse_error({"--frobnicate", "http://h/"}), "unknown option --frobnicate (see --help)");
  EXPECT_EQ(parse_error({"http://a/", "http://b/"}),
            "more than one URL: 'http://a/' and 'http://b/'");
  EXPECT_EQ(parse_error({"-c"}), "option -c needs a value");
  EXPECT_EQ(parse_error({"--spin", "1s", "http://h/"}), "--spin: at most 10ms");
  EXPECT_EQ(parse_error({"--io", "poll", "http://h/"}),
            "--io: expected auto, uring or epoll, got 'poll'");
  EXPECT_EQ(parse_error({"--sched", "fifo", "http://h/"}),
            "--sched: expected auto, batch or normal, got 'fifo'");
  EXPECT_EQ(parse_error({"--spin", "sometimes", "http://h/"}),
            "--spin: unknown unit 'sometimes' in 'sometimes' (use us, ms, s, m or h)");
  EXPECT_EQ(parse_error({"--streams", "8", "http://h/"}),
            "--streams: only with --h2 (HTTP/1.1 has one request in flight)");
  EXPECT_EQ(parse_error({"--h2", "--streams", "0", "http://h/"}),
            "--streams: 0 is out of range [1, 1000]");
  EXPECT_EQ(parse_error({"--h2", "--close", "http://h/"}),
            "--close: not with --h2 (HTTP/2 connections carry many requests)");
  EXPECT_EQ(parse_error({"--h2", "--io", "uring", "http://h/"}),
            "--io uring: not with --h2 (HTTP/2 connections use epoll)");
  EXPECT_EQ(parse_error({"--rebase-pace", "--requests-total", "5", "http://h/"}),
            "--rebase-pace: needs --rate and --requests-total");
  EXPECT_EQ(parse_error({"--rebase-pace", "-R", "50", "http://h/"}),
            "--rebase-pace: needs --rate and --requests-total");
  EXPECT_TRUE(parse_options({"--rebase-pace", "-R", "50", "--requests-total", "5", "http://h/"})
                  ->rebase_pace);
}

TEST(Options, H2AndStreams) {
  const auto plain = parse_options({"http://h/"});
  ASSERT_TRUE(plain);
  EXPECT_FALSE(plain->h2);
  EXPECT_EQ(plain->streams, 1);
  const auto o = parse_options({"--h2", "--streams", "32", "https://h/"});
  ASSERT_TRUE(o);
  EXPECT_TRUE(o->h2);
  EXPECT_EQ(o->streams, 32);
}

TEST(Capabilities, ListTheOptionsTheParserAccepts) {
  const common::LoadCapabilities caps = load_capabilities();
  // The four the driver asks about (plan.cpp) and what --help documents, one for one.
  for (const char* name : {"rate", "requests", "h2", "count-header"}) EXPECT_TRUE(caps.has(name));
  EXPECT_FALSE(caps.has("no-such-option"));
  const std::string help = help_text();
  for (const auto& name : caps.options) {
    EXPECT_NE(help.find("--" + name + " "), std::string::npos) << name;
  }
  EXPECT_TRUE(std::is_sorted(caps.options.begin(), caps.options.end()));
  // No URL needed, nothing else read.
  const auto o = parse_options({"--capabilities"});
  ASSERT_TRUE(o);
  EXPECT_TRUE(o->capabilities);
}

TEST(Capabilities, JsonRoundTripAndWhatIsNotCapabilities) {
  const common::LoadCapabilities caps{{"count-header", "h2", "rate"}};
  const std::string text = common::load_capabilities_json(caps);
  EXPECT_EQ(text,
            "{\"options\":[\"count-header\",\"h2\",\"rate\"],"
            "\"schema\":\"gatebench.load_capabilities/1\"}\n");
  const auto back = common::parse_load_capabilities(text);
  ASSERT_TRUE(back);
  EXPECT_EQ(back->options, caps.options);
  // What an older gatebench-load answers, another schema, options that are not names.
  EXPECT_FALSE(common::parse_load_capabilities("gatebench-load: unknown option --capabilities\n"));
  EXPECT_FALSE(common::parse_load_capabilities(R"({"schema":"gatebench.load/1","options":[]})"));
  EXPECT_FALSE(common::parse_load_capabilities(
      R"({"schema":"gatebench.load_capabilities/1","options":["rate",1]})"));
  EXPECT_FALSE(common::parse_load_capabilities(R"({"schema":"gatebench.load_capabilities/1"})"));
}

#ifdef GATEBENCH_LOAD_EXE
struct Exit {
  int code;
  std::string output;  // stdout and stderr
};

// The executable with stdout and stderr in one text, in order; no shell in between.
Exit run_exe(const std::vector<std::string>& args) {
  common::SpawnSpec spec;
  spec.exe = GATEBENCH_LOAD_EXE;
  spec.args = args;
  common::CaptureOptions options;
  options.merge_errors = true;
  options.timeout = std::chrono::seconds(60);
  const common::CaptureResult r = common::capture(spec, options);
  return {r.timed_out ? -1 : common::exit_code(r.status), r.output};
}

TEST(Executable, BadCommandLineExitsTwoWithTheReason) {
  const Exit e = run_exe({"-t", "0", "http://127.0.0.1:1/"});
  EXPECT_EQ(e.code, 2);
  EXPECT_EQ(e.output, "gatebench-load: --threads: 0 is out of range [1, 1024]\n");
  const Exit url = run_exe({"-d", "1s", "ftp://x/"});
  EXPECT_EQ(url.code, 2);
  EXPECT_EQ(url.output, "gatebench-load: URL 'ftp://x/': must start with http:// or https://\n");
  const Exit file = run_exe({"--requests", "/nonexistent.json", "http://127.0.0.1:1/"});
  EXPECT_EQ(file.code, 2);
  EXPECT_EQ(file.output, "gatebench-load: /nonexistent.json: cannot read\n");
  const Exit host = run_exe({"http://no-such-host.invalid/"});
  EXPECT_EQ(host.code, 2);
  EXPECT_NE(host.output.find("cannot resolve host 'no-such-host.invalid'"), std::string::npos);
}

TEST(Executable, HelpExitsZero) {
  const Exit e = run_exe({"--help"});
  EXPECT_EQ(e.code, 0);
  EXPECT_NE(e.output.find("Usage: gatebench-load"), std::string::npos);
  EXPECT_NE(e.output.find("--requests-total"), std::string::npos);
}

TEST(Executable, CapabilitiesPrintsJsonAndExitsZero) {
  const Exit e = run_exe({"--capabilities"});
  EXPECT_EQ(e.code, 0) << e.output;
  const auto caps = common::parse_load_capabilities(e.output);
  ASSERT_TRUE(caps) << e.output;
  EXPECT_EQ(caps->options, load_capabilities().options);
}

TEST(Executable, WritesJsonAndSummary) {
  testing::TestServer server(testing::Behaviour::kOk);
  const std::string json = ::testing::TempDir() + "/gatebench-load-cli.json";
  const Exit e =
      run_exe({"-t", "1", "-c", "2", "--requests-total", "50", "--json", json, server.url()});
  EXPECT_EQ(e.code, 0) << e.output;
  EXPECT_NE(e.output.find("50 requests in"), std::string::npos) << e.output;
  EXPECT_NE(e.output.find("Requests/sec:"), std::string::npos);
  FILE* f = std::fopen(json.c_str(), "r");
  ASSERT_NE(f, nullptr);
  std::string text(1 << 16, '\0');
  text.resize(std::fread(text.data(), 1, text.size(), f));
  std::fclose(f);
  EXPECT_NE(text.find("\"schema\": \"gatebench.load/1\""), std::string::npos);
  EXPECT_NE(text.find("\"requests\": 50"), std::string::npos);
  EXPECT_EQ(server.requests(), 50u);
}
#endif

}  // namespace
}  // namespace gatebench::load
