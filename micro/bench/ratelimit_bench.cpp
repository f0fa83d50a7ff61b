// ratelimit/<impl>/<keys>: one GCRA charge per request for client addresses drawn uniformly from
// <keys> distinct ones (1k, 100k, 1M), requests 1 us apart. The table holds 2 x keys entries
// (bounded memory: 16 bytes per entry). Impls: gatecore (GcraLimiter, set-associative table),
// naive (std::unordered_map GCRA, unbounded), limit (one dependent-free load + store at a random
// 16-byte slot of an array the size of gatecore's table: the memory floor).
// <keys>_seen (gatecore, naive): every key charged once beforehand, in a shuffled order.
// gatecore's table and the limit's array are faulted in before the timed loop (prefault()).
// Counters: items_per_second = requests/s; table_bytes = the structure's memory (gatecore: its
// bound); table_in_use = the part of gatecore's table in use at the end; stream_keys =
// distinct keys in the 65,536-request stream (the plain cases' working set: 48k at 100k, 63k at
// 1M, which the naive map holds in stream order while gatecore's table is sized for 2 x keys).
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "fixtures/rng.hpp"
#include "micro/core/rules/ratelimit.hpp"
#include "micro/peers/rules_naive.hpp"

namespace {

using namespace gatebench;

constexpr std::size_t kStream = std::size_t{1} << 16;

struct KeyStream {
  std::vector<std::uint32_t> keys;
  double distinct = 0;  // the stream_keys counter
};

// One stream per key count, made once: Google Benchmark calls a benchmark function once per
// iteration-count trial and repetition, and sorting a copy of 65,536 keys each time only made
// the runs longer.
const KeyStream& key_stream(std::size_t keys) {
  static std::map<std::size_t, KeyStream> streams;
  KeyStream& s = streams[keys];
  if (s.keys.empty()) {
    fixtures::Rng rng = fixtures::Rng(fixtures::kDefaultSeed).fork("bench/ratelimit/keys");
    s.keys.resize(kStream);
    // Distinct addresses: a random odd multiplier is a bijection on uint32.
    for (auto& k : s.keys)
      k = static_cast<std::uint32_t>(rng.below(keys)) * 0x9E3779B1u + 0x0A000000u;
    std::vector<std::uint32_t> sorted = s.keys;
    std::sort(sorted.begin(), sorted.end());
    s.distinct = static_cast<double>(std::unique(sorted.begin(), sorted.end()) - sorted.begin());
  }
  return s;
}

constexpr double kRate = 100000;  // per client: never triggered at 1M r/s over >= 1k clients

// The _seen cases first charge every one of the keys once, in a shuffled order, at time 0: a
// steady state in which the limiter already holds every client. Without it the naive map
// allocates its nodes in the order the 65,536-request stream then replays them over and over, so
// its node loads walk memory sequentially, which no real traffic does.
template <typename Limiter>
void charge_every_key_once(Limiter& limiter, std::size_t keys) {
  std::vector<std::uint32_t> all(keys);
  for (std::size_t k = 0; k < keys; ++k)
    all[k] = static_cast<std::uint32_t>(k) * 0x9E3779B1u + 0x0A000000u;
  fixtures::Rng rng = fixtures::Rng(fixtures::kDefaultSeed).fork("bench/ratelimit/seen");
  for (std::size_t k = keys; k > 1; --k) std::swap(all[k - 1], all[rng.below(k)]);
  for (const std::uint32_t key : all) limiter.allow(key, 0);
}

void BM_ratelimit_gatecore(benchmark::State& state, std::size_t keys, bool seen) {
  const KeyStream& ks = key_stream(keys);
  const std::vector<std::uint32_t>& stream = ks.keys;
  rules::GcraLimiter limiter({.rate_per_second = kRate,
                              .burst = 100,
                              .table_entries = static_cast<std::uint32_t>(2 * keys)});
  // The table's page faults belong to start-up, not to the first timed requests.
  limiter.prefault();
  if (seen) charge_every_key_once(limiter, keys);
  std::size_t i = 0;
  std::uint64_t now = seen ? 1'000'000'000 : 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(limiter.allow(stream[i], now));
    now += 1000;
    i = (i + 1) & (kStream - 1);
  }
  state.SetItemsProcessed(state.iterations());
  state.counters["stream_keys"] = ks.distinct;
  state.counters["table_bytes"] = static_cast<double>(limiter.memory_bytes());
  state.counters["table_in_use"] = static_cast<double>(limiter.memory_in_use());
  state.counters["live_evictions"] = static_cast<double>(limiter.live_evictions());
}

void BM_ratelimit_naive(benchmark::State& state, std::size_t keys, bool seen) {
  const KeyStream& ks = key_stream(keys);
  const std::vector<std::uint32_t>& stream = ks.keys;
  peers::NaiveGcra limiter(kRate, 100);
  if (seen) charge_every_key_once(limiter, keys);
  std::size_t i = 0;
  std::uint64_t now = seen ? 1'000'000'000 : 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(limiter.allow(stream[i], now));
    now += 1000;
    i = (i + 1) & (kStream - 1);
  }
  state.SetItemsProcessed(state.iterations());
  state.counters["stream_keys"] = ks.distinct;
}

void BM_ratelimit_limit(benchmark::State& state, std::size_t keys) {
  const KeyStream& ks = key_stream(keys);
  const std::vector<std::uint32_t>& stream = ks.keys;
  const rules::GcraLimiter sized({.rate_per_second = kRate,
                                  .burst = 100,
                                  .table_entries = static_cast<std::uint32_t>(2 * keys)});
  // The same kind of mapping as gatecore's table (huge pages from 2 MiB), so the floor has the
  // same TLB reach.
  rules::ZeroedPages pages(sized.memory_bytes());
  pages.prefault();
  const std::span<std::uint64_t> slots(static_cast<std::uint64_t*>(pages.data()),
                                       pages.size() / sizeof(std::uint64_t));
  const std::size_t mask = slots.size() / 2 - 1;  // 16-byte slots, power of two
  std::size_t i = 0;
  std::uint64_t now = 0;
  for (auto _ : state) {
    std::uint64_t& slot = slots[2 * ((stream[i] * 0x9E3779B97F4A7C15ull >> 20) & mask)];
    slot = std::max(slot, now) + 1;
    benchmark::ClobberMemory();
    now += 1000;
    i = (i + 1) & (kStream - 1);
  }
  state.SetItemsProcessed(state.iterations());
  state.counters["stream_keys"] = ks.distinct;
  state.counters["table_bytes"] = static_cast<double>(slots.size() * sizeof(std::uint64_t));
}

}  // namespace

// Names: ratelimit/<impl>/<keys>[_seen] with keys spelled 1k / 100k / 1M.
static const int kRegistered = [] {
  for (const auto& [label, keys] : std::initializer_list<std::pair<const char*, std::size_t>>{
           {"1k", 1'000}, {"100k", 100'000}, {"1M", 1'000'000}}) {
    for (const bool seen : {false, true}) {
      const std::string name = std::string(label) + (seen ? "_seen" : "");
      benchmark::RegisterBenchmark(("ratelimit/gatecore/" + name).c_str(), BM_ratelimit_gatecore,
                                   keys, seen);
      benchmark::RegisterBenchmark(("ratelimit/naive/" + name).c_str(), BM_ratelimit_naive, keys,
                                   seen);
    }
    benchmark::RegisterBenchmark((std::string("ratelimit/limit/") + label).c_str(),
                                 BM_ratelimit_limit, keys);
  }
  return 0;
}();
