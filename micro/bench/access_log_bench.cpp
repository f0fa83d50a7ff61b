// access_log/<impl>/<format>: parsing one fixed, generated log of kRecords lines per
// iteration (realistic mix with 2 % hostile records), gatecore against its peers and the
// memchr floor over the same bytes. items = records, bytes = input bytes. The log is cut into
// datagrams of kPerDatagram lines, each parsed into the same caller storage, as the control
// plane does with the gateway's batches (so the records stay in cache, as they would there).
// <format>_input: the --input file instead; its malformed lines stay in and are rejected for real
// on every iteration, as they would be on the live log (docs/micro-input.md).
#include <benchmark/benchmark.h>

#include <cstdio>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "fixtures/access_log_fixture.hpp"
#include "micro/bench/input_benchmarks.hpp"
#include "micro/core/access_log/access_log.hpp"
#include "micro/peers/access_log_limit.hpp"
#include "micro/peers/access_log_nlohmann.hpp"
#include "micro/peers/access_log_re2.hpp"
#include "micro/peers/access_log_simdjson.hpp"

namespace gatebench::access_log {
namespace {

constexpr std::size_t kRecords = 4096;
constexpr std::size_t kPerDatagram = 100;

struct Input {
  std::string log;  // capacity leaves simdjson's padding after the last line
  std::size_t lines = 0;
  std::size_t rejected = 0;  // lines gatecore rejects: a parser must accept lines - rejected
  std::vector<std::string_view> datagrams;
  std::vector<AccessLogRecord> records = std::vector<AccessLogRecord>(kPerDatagram);
  std::vector<AccessLogError> errors = std::vector<AccessLogError>(kPerDatagram);
};

void cut_datagrams(Input& in) {
  in.log.reserve(in.log.size() + peers::SimdjsonAccessLogParser::kPadding);
  std::size_t start = 0;
  for (std::size_t i = 0; i < in.log.size(); ++i) {
    if (in.log[i] == '\n' && ++in.lines % kPerDatagram == 0) {
      in.datagrams.push_back(std::string_view(in.log).substr(start, i + 1 - start));
      start = i + 1;
    }
  }
  if (start < in.log.size()) in.datagrams.push_back(std::string_view(in.log).substr(start));
}

Input& input(Format f) {
  static Input inputs[3];
  Input& in = inputs[static_cast<int>(f)];
  if (in.log.empty()) {
    in.log = fixtures::write_log(fixtures::generate_requests(kRecords), f);
    cut_datagrams(in);
  }
  return in;
}

// parse(Input&, std::string_view datagram) -> BatchResult. `expected` records: every line for
// the memchr floor, the lines gatecore accepts for a parser.
template <typename Parse>
void run(benchmark::State& state, Input& in, std::size_t expected, Parse&& parse) {
  std::size_t parsed = 0;
  for (std::string_view dg : in.datagrams) parsed += parse(in, dg).records;
  if (parsed != expected) {
    const std::string why = "parser accepted " + std::to_string(parsed) +
                            " records of the input, " + std::to_string(expected) + " expected";
    state.SkipWithError(why.c_str());
    return;
  }
  for (auto _ : state) {
    for (std::string_view dg : in.datagrams) {
      BatchResult res = parse(in, dg);
      benchmark::DoNotOptimize(res);
    }
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * in.lines));
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * in.log.size()));
  state.counters["bytes_per_record"] =
      static_cast<double>(in.log.size()) / static_cast<double>(in.lines);
  state.counters["records"] = static_cast<double>(in.lines - in.rejected);
  state.counters["rejected"] = static_cast<double>(in.rejected);
}

void gatecore(benchmark::State& state, Format f, Input& input) {
  run(state, input, input.lines - input.rejected,
      [f](Input& in, std::string_view dg) { return parse(f, dg, in.records, in.errors); });
}

void re2(benchmark::State& state, Format f, Input& input) {
  const peers::Re2AccessLogParser parser(f);
  run(state, input, input.lines - input.rejected,
      [&](Input& in, std::string_view dg) { return parser.parse(dg, in.records, in.errors); });
}

void simdjson(benchmark::State& state, Format /*jsonl only*/, Input& input) {
  peers::SimdjsonAccessLogParser parser;
  run(state, input, input.lines - input.rejected,
      [&](Input& in, std::string_view dg) { return parser.parse(dg, in.records, in.errors); });
}

void nlohmann(benchmark::State& state, Format /*jsonl only*/, Input& input) {
  peers::NlohmannAccessLogParser parser;
  run(state, input, input.lines - input.rejected,
      [&](Input& in, std::string_view dg) { return parser.parse(dg, in.records, in.errors); });
}

void limit(benchmark::State& state, Format, Input& input) {
  run(state, input, input.lines, [](Input&, std::string_view dg) {
    BatchResult res;
    res.records = peers::count_lines_memchr(dg);
    res.consumed = dg.size();
    return res;
  });
}

// Registers every impl of format f under access_log/<impl>/<fmt><suffix>. `source` yields the
// input when a benchmark runs, so the seeded logs are generated only when used.
void register_format(Format f, std::function<Input&()> source, const std::string& suffix) {
  const std::string fmt = std::string(name(f)) + suffix;
  using Fn = void (*)(benchmark::State&, Format, Input&);
  const auto add = [&](const char* impl, Fn fn) {
    benchmark::RegisterBenchmark(("access_log/" + std::string(impl) + "/" + fmt).c_str(),
                                 [fn, f, source](benchmark::State& s) { fn(s, f, source()); });
  };
  add("gatecore", gatecore);
  add("re2", re2);
  if (f == Format::jsonl) {
    add("simdjson", simdjson);
    add("nlohmann", nlohmann);
  }
  add("limit", limit);
}

const bool registered = [] {
  for (Format f : {Format::tsv, Format::combined, Format::jsonl})
    register_format(
        f, [f]() -> Input& { return input(f); }, "");
  return true;
}();

}  // namespace
}  // namespace gatebench::access_log

namespace gatebench::bench {

void register_access_log_input(AccessLogInput file) {
  // Kept for the whole process: the registered benchmarks refer to it.
  static std::vector<std::unique_ptr<access_log::Input>> inputs;
  auto in = std::make_unique<access_log::Input>();
  in->log = std::move(file.log);
  access_log::cut_datagrams(*in);
  in->rejected = file.rejected;
  if (file.rejected != 0) {
    std::fprintf(stderr,
                 "gatebench-micro: access_log.%s input: %zu of %zu lines rejected by the parser "
                 "(kept: rejecting them is part of the measured work)\n",
                 std::string(access_log::name(file.format)).c_str(), file.rejected, in->lines);
    for (const std::string& where : file.named_rejects)
      std::fprintf(stderr, "  %s\n", where.c_str());
    if (file.rejected > file.named_rejects.size())
      std::fprintf(stderr, "  ... and %zu more\n", file.rejected - file.named_rejects.size());
  }
  access_log::Input* const kept = in.get();
  access_log::register_format(
      file.format, [kept]() -> access_log::Input& { return *kept; }, "_input");
  inputs.push_back(std::move(in));
}

}  // namespace gatebench::bench
