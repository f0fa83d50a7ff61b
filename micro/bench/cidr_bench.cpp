// cidr/<impl>/<table>: IPv4 longest-prefix lookups on uniformly random addresses (precomputed,
// so the RNG is not measured). Tables: list_1k, bgp_500k, geoip_country (docs/fixtures.md).
// Impls: gatecore (lookup_batch), gatecore_single (one lookup() per address, independent),
// gatecore_dependent (each address depends on the previous result: latency), linear (list_1k
// and inputs up to 4,096 entries: 500k compares per lookup on bgp_500k measure nothing new),
// nginx_trie, sorted_ranges, libgeoip (geoip_country only), limit (one random load from a 16 KiB,
// L1-resident table), limit_dependent (a chain of dependent random loads through a buffer of
// gatecore's table size: the memory latency gatecore_dependent cannot beat). Counters:
// items_per_second = lookups/s; table_bytes = the structure's memory. Table "input": the --input
// cidr list (docs/micro-input.md).
#include <benchmark/benchmark.h>

#include <array>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <system_error>
#include <type_traits>
#include <utility>
#include <vector>

#include "fixtures/cidr_lists.hpp"
#include "fixtures/geoip_country.hpp"
#include "fixtures/rng.hpp"
#include "micro/bench/input_benchmarks.hpp"
#include "micro/core/cidr/table.hpp"
#include "micro/peers/cidr_linear.hpp"
#include "micro/peers/geoip_country_lookup.hpp"
#include "micro/peers/nginx_trie.hpp"
#include "micro/peers/sorted_ranges.hpp"

namespace {

using namespace gatebench;

// 256 KiB of addresses: streamed sequentially, so they cost the prefetcher, not the lookups.
constexpr std::size_t kAddresses = std::size_t{1} << 16;

const std::vector<std::uint32_t>& addresses() {
  static const std::vector<std::uint32_t> a =
      fixtures::random_ipv4_addresses(kAddresses, "bench/cidr/addresses");
  return a;
}

// A table's entries, or why there are none (geoip_country without data).
struct TableData {
  std::vector<cidr::CidrEntry> entries;
  std::string missing;
};

// Every table by name; "input" is the --input cidr list, put here before any benchmark runs.
std::map<std::string, std::unique_ptr<TableData>>& tables() {
  static std::map<std::string, std::unique_ptr<TableData>> cache;
  return cache;
}

const TableData& table_data(const std::string& table) {
  auto& slot = tables()[table];
  if (!slot) {
    slot = std::make_unique<TableData>();
    if (table == "list_1k") {
      slot->entries = fixtures::cidr_list_1k();
    } else if (table == "bgp_500k") {
      slot->entries = fixtures::cidr_bgp_500k();
    } else {
      fixtures::GeoipCountryTable geo = fixtures::load_geoip_country();
      if (geo.available) {
        slot->entries = std::move(geo.entries);
      } else {
        slot->missing = geo.reason;
      }
    }
  }
  return *slot;
}

// Each structure is built on first use and kept: building the 500k trie is slow and the
// repetitions should all measure the same memory layout.
template <typename T>
const T& structure(const std::string& table) {
  static std::map<std::string, std::unique_ptr<T>> cache;
  auto& slot = cache[table];
  if (!slot) {
    if constexpr (std::is_same_v<T, cidr::Ipv4Table>) {
      slot = std::make_unique<T>(cidr::Ipv4Table::build(table_data(table).entries));
    } else {
      slot = std::make_unique<T>(table_data(table).entries);
    }
  }
  return *slot;
}

bool skip_if_missing(benchmark::State& state, const std::string& table) {
  const TableData& data = table_data(table);
  if (data.missing.empty()) return false;
  state.SkipWithError(("skipped: " + data.missing).c_str());
  return true;
}

void finish(benchmark::State& state, std::size_t table_bytes) {
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * kAddresses));
  state.counters["table_bytes"] = static_cast<double>(table_bytes);
}

// Independent lookups through a peer's lookup(); the sum keeps every result alive.
template <typename T>
void run_single(benchmark::State& state, const T& lookup) {
  const std::vector<std::uint32_t>& a = addresses();
  for (auto _ : state) {
    std::uint32_t sum = 0;
    for (const std::uint32_t address : a) sum += lookup.lookup(address);
    benchmark::DoNotOptimize(sum);
  }
}

template <typename T>
void bench_peer(benchmark::State& state, const std::string& table) {
  if (skip_if_missing(state, table)) return;
  const T& peer = structure<T>(table);
  run_single(state, peer);
  finish(state, peer.memory_bytes());
}

void bench_gatecore(benchmark::State& state, const std::string& table) {
  if (skip_if_missing(state, table)) return;
  const cidr::Ipv4Table& t = structure<cidr::Ipv4Table>(table);
  const std::vector<std::uint32_t>& a = addresses();
  std::vector<cidr::CidrValue> out(a.size());
  for (auto _ : state) {
    t.lookup_batch(a, out);
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  finish(state, t.memory_bytes());
}

void bench_gatecore_single(benchmark::State& state, const std::string& table) {
  if (skip_if_missing(state, table)) return;
  const cidr::Ipv4Table& t = structure<cidr::Ipv4Table>(table);
  run_single(state, t);
  finish(state, t.memory_bytes());
}

void bench_gatecore_dependent(benchmark::State& state, const std::string& table) {
  if (skip_if_missing(state, table)) return;
  const cidr::Ipv4Table& t = structure<cidr::Ipv4Table>(table);
  const std::vector<std::uint32_t>& a = addresses();
  // Zero at run time, unknown to the compiler: the next address waits for the previous result.
  std::uint32_t zero = 0;
  benchmark::DoNotOptimize(zero);
  for (auto _ : state) {
    std::uint32_t previous = 0;
    for (const std::uint32_t address : a) previous = t.lookup(address ^ (previous & zero));
    benchmark::DoNotOptimize(previous);
  }
  finish(state, t.memory_bytes());
}

void bench_libgeoip(benchmark::State& state, const std::string& table) {
  if (skip_if_missing(state, table)) return;
  static const peers::GeoipCountryLookup geoip;
  if (!geoip.available()) {
    state.SkipWithError(("skipped: " + geoip.reason()).c_str());
    return;
  }
  run_single(state, geoip);
  std::error_code ec;
  const auto bytes = std::filesystem::file_size(peers::kGeoipCountryPath, ec);
  finish(state, ec ? 0 : static_cast<std::size_t>(bytes));  // GEOIP_MEMORY_CACHE holds the file
}

void bench_limit(benchmark::State& state, const std::string&) {
  // One load per lookup from a table that stays in L1, at a random index: the floor any lookup
  // structure pays once its data is cached.
  static std::array<std::uint32_t, 4096> l1{};
  for (std::size_t i = 0; i < l1.size(); ++i) l1[i] = static_cast<std::uint32_t>(i * 2654435761u);
  const std::vector<std::uint32_t>& a = addresses();
  for (auto _ : state) {
    std::uint32_t sum = 0;
    for (const std::uint32_t address : a) sum += l1[address & (l1.size() - 1)];
    benchmark::DoNotOptimize(sum);
  }
  finish(state, sizeof(l1));
}

void bench_limit_dependent(benchmark::State& state, const std::string& table) {
  // The latency floor of gatecore_dependent: a chain of random loads, each address taken from
  // the previous load, through every line of a buffer as large as gatecore's table for this
  // list (allocated the same way). A structure of that size cannot answer dependent lookups
  // faster than one such load each; gatecore's lookups make two (index, leaf).
  if (skip_if_missing(state, table)) return;
  const std::size_t bytes = structure<cidr::Ipv4Table>(table).memory_bytes();
  using Line = cidr::Ipv4Table::Line;
  std::vector<Line, cidr::HugePageAllocator<Line>> buffer(bytes / sizeof(Line));
  std::vector<std::uint32_t> order(buffer.size());
  fixtures::Rng rng = fixtures::Rng(fixtures::kDefaultSeed).fork("bench/cidr/limit_dependent");
  for (std::uint32_t i = 0; i < order.size(); ++i) order[i] = i;
  for (std::size_t i = order.size(); i > 1; --i) std::swap(order[i - 1], order[rng.below(i)]);
  for (std::size_t i = 0; i < order.size(); ++i) {
    const std::uint32_t next = order[(i + 1) % order.size()];
    std::memcpy(buffer[order[i]].slot, &next, sizeof(next));
  }
  for (auto _ : state) {
    std::uint32_t at = order[0];
    for (std::size_t i = 0; i < kAddresses; ++i) std::memcpy(&at, buffer[at].slot, sizeof(at));
    benchmark::DoNotOptimize(at);
  }
  finish(state, bytes);
}

using BenchFn = void (*)(benchmark::State&, const std::string&);

// The linear scan only for short lists: 500k compares per lookup on bgp_500k measure nothing new.
constexpr std::size_t kLinearMaxEntries = 4096;

void register_table(const std::string& table) {
  const auto add = [&table](const std::string& impl, BenchFn fn) {
    benchmark::RegisterBenchmark(("cidr/" + impl + "/" + table).c_str(),
                                 [fn, table](benchmark::State& s) { fn(s, table); });
  };
  add("gatecore", bench_gatecore);
  add("gatecore_single", bench_gatecore_single);
  add("gatecore_dependent", bench_gatecore_dependent);
  if (table == "list_1k" ||
      (table == "input" && table_data(table).entries.size() <= kLinearMaxEntries))
    add("linear", bench_peer<peers::LinearCidrScan>);
  add("nginx_trie", bench_peer<peers::NginxTrie>);
  add("sorted_ranges", bench_peer<peers::SortedRanges>);
  if (table == "geoip_country") add("libgeoip", bench_libgeoip);
  add("limit", bench_limit);
  add("limit_dependent", bench_limit_dependent);
}

const bool registered = [] {
  for (const char* table : {"list_1k", "bgp_500k", "geoip_country"}) register_table(table);
  return true;
}();

}  // namespace

namespace gatebench::bench {

void register_cidr_input(std::vector<cidr::CidrEntry> entries) {
  auto data = std::make_unique<TableData>();
  data->entries = std::move(entries);
  tables()["input"] = std::move(data);
  register_table("input");
}

}  // namespace gatebench::bench
