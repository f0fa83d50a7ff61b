// access_log/<impl>/<format>: parsing one fixed, generated log of kRecords lines per
// iteration (realistic mix with 2 % hostile records), gatecore against its peers and the
// memchr floor over the same bytes. items = records, bytes = input bytes. The log is cut into
// datagrams of kPerDatagram lines, each parsed into the same caller storage, as the control
// plane does with the gateway's batches (so the records stay in cache, as they would there).
#include <benchmark/benchmark.h>

#include <string>
#include <vector>

#include "fixtures/access_log_fixture.hpp"
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
  std::vector<std::string_view> datagrams;
  std::vector<AccessLogRecord> records = std::vector<AccessLogRecord>(kPerDatagram);
  std::vector<AccessLogError> errors = std::vector<AccessLogError>(kPerDatagram);
};

Input& input(Format f) {
  static Input inputs[3];
  Input& in = inputs[static_cast<int>(f)];
  if (in.log.empty()) {
    in.log = fixtures::write_log(fixtures::generate_requests(kRecords), f);
    in.log.reserve(in.log.size() + peers::SimdjsonAccessLogParser::kPadding);
    std::size_t start = 0, lines = 0;
    for (std::size_t i = 0; i < in.log.size(); ++i) {
      if (in.log[i] == '\n' && ++lines % kPerDatagram == 0) {
        in.datagrams.push_back(std::string_view(in.log).substr(start, i + 1 - start));
        start = i + 1;
      }
    }
    if (start < in.log.size()) in.datagrams.push_back(std::string_view(in.log).substr(start));
  }
  return in;
}

// parse(Input&, std::string_view datagram) -> BatchResult
template <typename Parse>
void run(benchmark::State& state, Format f, Parse&& parse) {
  Input& in = input(f);
  std::size_t parsed = 0;
  for (std::string_view dg : in.datagrams) parsed += parse(in, dg).records;
  if (parsed != kRecords) {
    state.SkipWithError("parser rejected generated records");
    return;
  }
  for (auto _ : state) {
    for (std::string_view dg : in.datagrams) {
      BatchResult res = parse(in, dg);
      benchmark::DoNotOptimize(res);
    }
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * kRecords));
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * in.log.size()));
  state.counters["bytes_per_record"] =
      static_cast<double>(in.log.size()) / static_cast<double>(kRecords);
}

void gatecore(benchmark::State& state, Format f) {
  run(state, f,
      [f](Input& in, std::string_view dg) { return parse(f, dg, in.records, in.errors); });
}

void re2(benchmark::State& state, Format f) {
  const peers::Re2AccessLogParser parser(f);
  run(state, f,
      [&](Input& in, std::string_view dg) { return parser.parse(dg, in.records, in.errors); });
}

void simdjson(benchmark::State& state, Format f) {
  peers::SimdjsonAccessLogParser parser;
  run(state, f,
      [&](Input& in, std::string_view dg) { return parser.parse(dg, in.records, in.errors); });
}

void nlohmann(benchmark::State& state, Format f) {
  peers::NlohmannAccessLogParser parser;
  run(state, f,
      [&](Input& in, std::string_view dg) { return parser.parse(dg, in.records, in.errors); });
}

void limit(benchmark::State& state, Format f) {
  run(state, f, [](Input&, std::string_view dg) {
    BatchResult res;
    res.records = peers::count_lines_memchr(dg);
    res.consumed = dg.size();
    return res;
  });
}

const bool registered = [] {
  for (Format f : {Format::tsv, Format::combined, Format::jsonl}) {
    const std::string fmt(name(f));
    benchmark::RegisterBenchmark(("access_log/gatecore/" + fmt).c_str(), gatecore, f);
    benchmark::RegisterBenchmark(("access_log/re2/" + fmt).c_str(), re2, f);
    if (f == Format::jsonl) {
      benchmark::RegisterBenchmark(("access_log/simdjson/" + fmt).c_str(), simdjson, f);
      benchmark::RegisterBenchmark(("access_log/nlohmann/" + fmt).c_str(), nlohmann, f);
    }
    benchmark::RegisterBenchmark(("access_log/limit/" + fmt).c_str(), limit, f);
  }
  return true;
}();

}  // namespace
}  // namespace gatebench::access_log
