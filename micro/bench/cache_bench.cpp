// cache/<impl>/<case>: the response cache's per-request work (docs/cache.md).
//   hit_<n>, miss_<n>: one lookup (key hash included) per request into a store holding n entries
//     (1k, 64k, 512k; keys of about 40 bytes over 16 hosts, a 160-byte stored response), inserted
//     in a shuffled order; the request stream is 65,536 keys drawn uniformly from the stored ones
//     (hit) or from keys never stored (miss).
//   hit_vary_64k: the same at 64k with Vary: Accept-Encoding on every entry (the request carries
//     eight header lines).
//   freshness: one response head's cache headers collected and decided (eight realistic heads in
//     turn: max-age, s-maxage, Expires with Date, no-store, private, Vary, no explicit lifetime).
// Impls: gatecore (key_hash + MemoryStore::lookup; ResponseCacheHeaders + decide), naive
// (micro/peers/cache_naive: a key string built per request into an std::unordered_map, and
// header strings lower-cased and split), limit (key_hash and one load from a random 64-byte line
// of a buffer as large as gatecore's store: the floor any hashed store pays; no freshness limit).
// Counters: items_per_second = lookups or decisions per second; store_bytes = gatecore's
// memory_bytes (entries and index) for the store size.
#include <benchmark/benchmark.h>

#include <array>
#include <bit>
#include <cstdint>
#include <initializer_list>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "fixtures/rng.hpp"
#include "micro/core/cache/cache.hpp"
#include "micro/peers/cache_naive.hpp"

namespace {

using namespace gatebench;

constexpr std::size_t kStream = std::size_t{1} << 16;
constexpr std::int64_t kNow = 1'764'590'400;

const std::string& stored_response() {
  static const std::string r =
      "HTTP/1.1 200 OK\r\nContent-Type: application/javascript\r\nContent-Length: 3\r\n"
      "Cache-Control: public, max-age=3600\r\nETag: \"5f3a-1\"\r\n\r\nok\n";
  return r;
}

// The request headers of every benchmark request (a browser's, without cookies).
const std::array<cache::Header, 8>& request_headers() {
  static const std::array<cache::Header, 8> h = {
      cache::Header{"Host", "api-3.example.test"},
      {"User-Agent", "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0"},
      {"Accept", "*/*"},
      {"Accept-Language", "en-US,en;q=0.5"},
      {"Accept-Encoding", "gzip, deflate, br"},
      {"Referer", "https://api-3.example.test/"},
      {"Connection", "keep-alive"},
      {"Sec-Fetch-Mode", "no-cors"}};
  return h;
}

// Keys of one store size: hosts and targets held in strings the keys view.
struct KeySet {
  std::vector<std::string> hosts;
  std::vector<std::string> targets;  // [0, n): stored; [n, 2n): never stored
  std::vector<cache::RequestKey> keys;
  std::vector<std::uint32_t> hit_stream, miss_stream;  // indices into keys
};

const KeySet& key_set(std::size_t n) {
  static std::map<std::size_t, std::unique_ptr<KeySet>> sets;
  auto& slot = sets[n];
  if (slot) return *slot;
  slot = std::make_unique<KeySet>();
  KeySet& s = *slot;
  fixtures::Rng rng = fixtures::Rng(fixtures::kDefaultSeed).fork("bench/cache/keys");
  for (int h = 0; h < 16; ++h) s.hosts.push_back("api-" + std::to_string(h) + ".example.test");
  s.targets.reserve(2 * n);
  for (std::size_t i = 0; i < 2 * n; ++i) {
    s.targets.push_back("/static/" + std::to_string(rng.below(1000)) + "/asset-" +
                        std::to_string(i) + ".js?v=" + std::to_string(rng.below(100)));
  }
  for (std::size_t i = 0; i < 2 * n; ++i) {
    s.keys.push_back(
        {cache::Method::kGet, s.hosts[rng.below(s.hosts.size())], s.targets[i], request_headers()});
  }
  for (std::size_t i = 0; i < kStream; ++i) {
    s.hit_stream.push_back(static_cast<std::uint32_t>(rng.below(n)));
    s.miss_stream.push_back(static_cast<std::uint32_t>(n + rng.below(n)));
  }
  return s;
}

// Insertion in a shuffled order, so neither store's entries sit in memory in key order.
std::vector<std::uint32_t> shuffled(std::size_t n, std::string_view purpose) {
  std::vector<std::uint32_t> order(n);
  for (std::uint32_t i = 0; i < n; ++i) order[i] = i;
  fixtures::Rng rng = fixtures::Rng(fixtures::kDefaultSeed).fork(purpose);
  for (std::size_t i = n; i > 1; --i) std::swap(order[i - 1], order[rng.below(i)]);
  return order;
}

constexpr std::array<std::string_view, 1> kVaryEncoding = {"Accept-Encoding"};

cache::StoreLimits limits_for(std::size_t n) {
  return {.max_bytes = n * 512, .max_entries = n, .max_entry_bytes = 4096};
}

// Every key of the first half stored once, in a shuffled order, with the same response.
template <typename Store>
void fill(Store& store, std::size_t n, bool vary) {
  const KeySet& s = key_set(n);
  const cache::Freshness fresh{cache::Reason::kStorable, 3600, 0};
  const auto vary_lines =
      vary ? std::span<const std::string_view>(kVaryEncoding) : std::span<const std::string_view>();
  for (const std::uint32_t i : shuffled(n, "bench/cache/insert")) {
    store.insert(s.keys[i], fresh, vary_lines, stored_response(), kNow);
  }
}

// Lookups set CLOCK bits, so the stores are mutable; each is built once and kept.
cache::MemoryStore& gatecore_store(std::size_t n, bool vary) {
  static std::map<std::pair<std::size_t, bool>, std::unique_ptr<cache::MemoryStore>> stores;
  auto& slot = stores[{n, vary}];
  if (!slot) {
    slot = std::make_unique<cache::MemoryStore>(limits_for(n));
    fill(*slot, n, vary);
  }
  return *slot;
}

peers::NaiveCacheStore& naive_store(std::size_t n, bool vary) {
  static std::map<std::pair<std::size_t, bool>, std::unique_ptr<peers::NaiveCacheStore>> stores;
  auto& slot = stores[{n, vary}];
  if (!slot) {
    slot = std::make_unique<peers::NaiveCacheStore>();
    fill(*slot, n, vary);
  }
  return *slot;
}

void finish(benchmark::State& state, std::size_t n) {
  state.SetItemsProcessed(state.iterations());
  state.counters["store_bytes"] = static_cast<double>(gatecore_store(n, false).memory_bytes());
}

// One lookup per iteration through the store's lookup(key, now) (gatecore's hashes the key).
template <typename Store>
void run_lookups(benchmark::State& state, Store& store, std::size_t n, bool hit) {
  const KeySet& s = key_set(n);
  const std::vector<std::uint32_t>& stream = hit ? s.hit_stream : s.miss_stream;
  std::size_t i = 0;
  std::size_t found = 0;
  for (auto _ : state) {
    found += store.lookup(s.keys[stream[i]], kNow + 1).response.size();
    i = (i + 1) & (kStream - 1);
  }
  benchmark::DoNotOptimize(found);
  if ((found != 0) != hit) state.SkipWithError("lookups did not give the expected outcome");
  finish(state, n);
}

void bench_gatecore(benchmark::State& state, std::size_t n, bool hit, bool vary) {
  run_lookups(state, gatecore_store(n, vary), n, hit);
}

void bench_naive(benchmark::State& state, std::size_t n, bool hit, bool vary) {
  run_lookups(state, naive_store(n, vary), n, hit);
}

void bench_limit(benchmark::State& state, std::size_t n, bool hit, bool) {
  struct alignas(64) Line {
    std::uint64_t word[8];
  };
  const std::size_t bytes = gatecore_store(n, false).memory_bytes();
  std::vector<Line> buffer(std::bit_floor(bytes / sizeof(Line)));
  for (std::size_t k = 0; k < buffer.size(); ++k) buffer[k].word[0] = k;
  const std::size_t mask = buffer.size() - 1;
  const KeySet& s = key_set(n);
  const std::vector<std::uint32_t>& stream = hit ? s.hit_stream : s.miss_stream;
  std::size_t i = 0;
  std::uint64_t sum = 0;
  for (auto _ : state) {
    sum += buffer[cache::key_hash(s.keys[stream[i]]) & mask].word[0];
    i = (i + 1) & (kStream - 1);
  }
  benchmark::DoNotOptimize(sum);
  finish(state, n);
}

// Eight response heads as a gateway sees them from typical origins.
using Head = std::vector<std::pair<std::string, std::string>>;
const std::vector<Head>& heads() {
  static const std::vector<Head> h = [] {
    const Head common = {{"Server", "nginx/1.22.1"},
                         {"Date", "Mon, 01 Dec 2025 11:59:58 GMT"},
                         {"Content-Type", "application/json"},
                         {"Content-Length", "1432"},
                         {"Connection", "keep-alive"}};
    std::vector<Head> out;
    const auto with = [&common](Head extra) {
      Head head = common;
      head.insert(head.end(), extra.begin(), extra.end());
      return head;
    };
    out.push_back(with({{"Cache-Control", "public, max-age=3600"}, {"ETag", "\"5f3a-1\""}}));
    out.push_back(with({{"Cache-Control", "max-age=60, s-maxage=300, must-revalidate"}}));
    out.push_back(with({{"Expires", "Mon, 01 Dec 2025 13:00:00 GMT"},
                        {"Last-Modified", "Sun, 30 Nov 2025 08:00:00 GMT"}}));
    out.push_back(
        with({{"Cache-Control", "no-store, no-cache, must-revalidate"}, {"Pragma", "no-cache"}}));
    out.push_back(with({{"Cache-Control", "private, max-age=0"}, {"Set-Cookie", "sid=abc"}}));
    out.push_back(with({{"Cache-Control", "public, max-age=86400, immutable"},
                        {"Vary", "Accept-Encoding"},
                        {"Age", "120"}}));
    out.push_back(with({{"Last-Modified", "Sun, 30 Nov 2025 08:00:00 GMT"}}));
    out.push_back(with({{"Cache-Control", "max-age=\"600\", stale-while-revalidate=30"},
                        {"Vary", "Accept-Encoding, Accept-Language"}}));
    return out;
  }();
  return h;
}

void bench_freshness_gatecore(benchmark::State& state) {
  const std::vector<Head>& h = heads();
  std::size_t i = 0;
  std::uint64_t sum = 0;
  for (auto _ : state) {
    cache::ResponseCacheHeaders collected;
    for (const auto& [name, value] : h[i]) collected.add(name, value);
    const cache::Freshness f =
        cache::decide({cache::Method::kGet, 200, false}, collected, {.default_ttl_s = 60}, kNow);
    sum += f.lifetime_s + static_cast<std::uint64_t>(f.reason);
    i = i + 1 == h.size() ? 0 : i + 1;
  }
  benchmark::DoNotOptimize(sum);
  state.SetItemsProcessed(state.iterations());
}

void bench_freshness_naive(benchmark::State& state) {
  std::vector<peers::NaiveResponse> responses;
  for (const Head& head : heads()) responses.push_back({cache::Method::kGet, 200, false, head});
  std::size_t i = 0;
  std::uint64_t sum = 0;
  for (auto _ : state) {
    const cache::Freshness f = peers::naive_decide(responses[i], 60, kNow);
    sum += f.lifetime_s + static_cast<std::uint64_t>(f.reason);
    i = i + 1 == responses.size() ? 0 : i + 1;
  }
  benchmark::DoNotOptimize(sum);
  state.SetItemsProcessed(state.iterations());
}

using LookupFn = void (*)(benchmark::State&, std::size_t, bool, bool);

const bool registered = [] {
  for (const auto& [label, n] : std::initializer_list<std::pair<const char*, std::size_t>>{
           {"1k", 1024}, {"64k", 65536}, {"512k", 524288}}) {
    for (const auto& [impl, fn] : std::initializer_list<std::pair<const char*, LookupFn>>{
             {"gatecore", bench_gatecore}, {"naive", bench_naive}, {"limit", bench_limit}}) {
      for (const bool hit : {true, false}) {
        const std::string name =
            std::string("cache/") + impl + "/" + (hit ? "hit_" : "miss_") + label;
        benchmark::RegisterBenchmark(
            name.c_str(), [fn = fn, n = n, hit](benchmark::State& st) { fn(st, n, hit, false); });
      }
    }
  }
  for (const auto& [impl, fn] : std::initializer_list<std::pair<const char*, LookupFn>>{
           {"gatecore", bench_gatecore}, {"naive", bench_naive}}) {
    benchmark::RegisterBenchmark((std::string("cache/") + impl + "/hit_vary_64k").c_str(),
                                 [fn = fn](benchmark::State& st) { fn(st, 65536, true, true); });
  }
  benchmark::RegisterBenchmark("cache/gatecore/freshness", bench_freshness_gatecore);
  benchmark::RegisterBenchmark("cache/naive/freshness", bench_freshness_naive);
  return true;
}();

}  // namespace
