// hpack/<impl>/<case>: one HTTP/2 request header block decoded per iteration (docs/http2.md).
// Header lists: a Chrome navigation (19 fields, a 330-byte cookie) and a Firefox API call (17
// fields, a bearer token and a cookie), encoded by nghttp2's deflater with a 4,096-byte table:
//   <browser>_first: the connection's first block (literals, most Huffman-coded and added to
//     the table), preceded by size updates to 0 and back to 4,096 so that every iteration starts
//     from an empty table as a new connection does;
//   <browser>_later: the same request again on that connection with another :path, each field
//     but the path an index into the dynamic table (decoding it changes no table).
// Impls: gatecore (HpackDecoder into a field array and a scratch), nghttp2
// (nghttp2_hd_inflate_hd2, a field per call, counted as a header callback would see it), naive
// (micro/peers/hpack_naive.hpp), limit (the block copied and the decoded field list written:
// micro/peers/hpack_limit.hpp). Every impl must give the same fields and name + value bytes
// before it is timed. items = blocks, bytes = block bytes.
#include <benchmark/benchmark.h>

#include <array>
#include <string>
#include <vector>

#include "micro/core/http2/hpack.hpp"
#include "micro/peers/hpack_limit.hpp"
#include "micro/peers/hpack_naive.hpp"
#include "micro/peers/hpack_nghttp2.hpp"

namespace gatebench::http2 {
namespace {

using peers::HpackField;

constexpr std::uint32_t kTable = 4096;
constexpr std::uint32_t kMaxList = 65536;
constexpr std::size_t kMaxFields = 128;

std::vector<HpackField> chrome(std::string path) {
  return {
      {":method", "GET"},
      {":authority", "shop.example.com"},
      {":scheme", "https"},
      {":path", std::move(path)},
      {"sec-ch-ua", R"("Google Chrome";v="119", "Chromium";v="119", "Not?A_Brand";v="24")"},
      {"sec-ch-ua-mobile", "?0"},
      {"sec-ch-ua-platform", "\"Linux\""},
      {"upgrade-insecure-requests", "1"},
      {"user-agent",
       "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) "
       "Chrome/119.0.0.0 Safari/537.36"},
      {"accept",
       "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,"
       "image/apng,*/*;q=0.8,application/signed-exchange;v=b3;q=0.7"},
      {"sec-fetch-site", "same-origin"},
      {"sec-fetch-mode", "navigate"},
      {"sec-fetch-user", "?1"},
      {"sec-fetch-dest", "document"},
      {"referer", "https://shop.example.com/api/v2/orders?page=2&sort=created"},
      {"accept-encoding", "gzip, deflate, br"},
      {"accept-language", "en-GB,en;q=0.9,de;q=0.8"},
      {"cookie",
       "session=9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08; "
       "csrftoken=Zx4Gq2Lr8Tn1Vb6Wm3Ks9Pd0Yh7Jc5Fa; _ga=GA1.2.1234567890.1700000000; "
       "_gid=GA1.2.987654321.1701400000; cart_id=c-5f1e2d3c4b5a69788796a5b4; "
       "ab_test=checkout_v3; consent=analytics%3Dtrue%26ads%3Dfalse; theme=dark; "
       "locale=en-GB; last_seen=2026-12-01T09%3A14%3A07Z"},
      {"priority", "u=0, i"},
  };
}

std::vector<HpackField> firefox(std::string path) {
  return {
      {":method", "GET"},
      {":scheme", "https"},
      {":authority", "api.example.com"},
      {":path", std::move(path)},
      {"user-agent", "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0"},
      {"accept", "application/json, text/plain, */*"},
      {"accept-language", "en-US,en;q=0.5"},
      {"accept-encoding", "gzip, deflate, br, zstd"},
      {"referer", "https://shop.example.com/"},
      {"authorization",
       "Bearer eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJ1c2VyLTQyIiwiaWF0IjoxNzY0NTkw"
       "NDAwLCJleHAiOjE3NjQ1OTQwMDAsInNjb3BlIjoib3JkZXJzOnJlYWQgY2FydDp3cml0ZSJ9.Yx2cF0m3Q9"
       "vJ6kT1nR8sW4hL7pA5dE2gU0iO3zB6yK"},
      {"origin", "https://shop.example.com"},
      {"sec-fetch-dest", "empty"},
      {"sec-fetch-mode", "cors"},
      {"sec-fetch-site", "same-site"},
      {"cookie",
       "sid=4b227777d4dd1fc61c6f884f48641d02b4d121d3fd328cb08b5531fcacdabf8a; "
       "_pk_id.1.1fff=3c2f4e5a6b7c8d9e.1700000000.; lang=en; tz=Europe%2FBerlin"},
      {"priority", "u=4"},
      {"te", "trailers"},
  };
}

struct Case {
  std::string name;
  std::string block;   // what is timed
  std::string warmup;  // decoded once before: the connection's first block (later cases)
  std::size_t fields = 0;
  std::size_t bytes = 0;  // names and values
};

std::vector<Case> make_cases() {
  std::vector<Case> cases;
  for (const bool is_chrome : {true, false}) {
    const std::string browser = is_chrome ? "chrome" : "firefox";
    const auto first = is_chrome ? chrome("/api/v2/orders?page=3&sort=created")
                                 : firefox("/v1/cart?include=items,totals");
    const auto later = is_chrome ? chrome("/api/v2/orders/81723/items?expand=product")
                                 : firefox("/v1/cart/items/4711/price?currency=EUR");
    peers::NghttpDeflater deflater(kTable);
    const std::string b1 = deflater.encode(first);
    const std::string b2 = deflater.encode(later);
    auto sum = [](const std::vector<HpackField>& l) {
      std::size_t n = 0;
      for (const HpackField& f : l) n += f.name.size() + f.value.size();
      return n;
    };
    // 001 00000 (size 0), then 001 11111 + 4,096 - 31 as two continuation bytes.
    const std::string reset = "\x20\x3f\xe1\x1f";
    cases.push_back({browser + "_first", reset + b1, "", first.size(), sum(first)});
    cases.push_back({browser + "_later", b2, reset + b1, later.size(), sum(later)});
  }
  return cases;
}

const std::vector<Case>& cases() {
  static const std::vector<Case> c = make_cases();
  return c;
}

// decode(std::string_view) -> (fields, bytes), both -1 on a rejected block.
template <typename Decode>
void run(benchmark::State& state, const Case& c, Decode&& decode) {
  if (!c.warmup.empty()) decode(c.warmup);
  for (int i = 0; i < 2; ++i) {  // twice: the timed block must leave the table as it was
    const auto [fields, bytes] = decode(c.block);
    if (fields != static_cast<long long>(c.fields) || bytes != static_cast<long long>(c.bytes)) {
      state.SkipWithError(("decoded " + std::to_string(fields) + " fields, " +
                           std::to_string(bytes) + " bytes; expected " + std::to_string(c.fields) +
                           ", " + std::to_string(c.bytes))
                              .c_str());
      return;
    }
  }
  const std::string_view block(c.block);
  for (auto _ : state) {
    benchmark::DoNotOptimize(block.data());
    auto r = decode(block);
    benchmark::DoNotOptimize(r);
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()));
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * c.block.size()));
}

using Counts = std::pair<long long, long long>;

Counts sum_fields(std::span<const HeaderField> fields) {
  long long bytes = 0;
  for (const HeaderField& f : fields)
    bytes += static_cast<long long>(f.name.size() + f.value.size());
  return {static_cast<long long>(fields.size()), bytes};
}

void gatecore(benchmark::State& state, const Case* c) {
  HpackDecoder d({.max_table_size = kTable, .max_header_list_size = kMaxList});
  std::vector<HeaderField> out(kMaxFields);
  std::vector<char> scratch(d.scratch_bytes());
  run(state, *c, [&](std::string_view b) -> Counts {
    const HpackResult r = d.decode(b, out, scratch);
    if (r.status != HpackStatus::kOk) return {-1, -1};
    return sum_fields(std::span(out).first(r.count));
  });
}

void nghttp2(benchmark::State& state, const Case* c) {
  peers::NghttpInflater inflater(kTable);
  run(state, *c, [&](std::string_view b) -> Counts {
    std::size_t fields, bytes;
    if (!inflater.count(b, fields, bytes)) return {-1, -1};
    return {static_cast<long long>(fields), static_cast<long long>(bytes)};
  });
}

void naive(benchmark::State& state, const Case* c) {
  peers::NaiveHpackDecoder d(kTable, kMaxList, kMaxFields);
  run(state, *c, [&](std::string_view b) -> Counts {
    const peers::NaiveHpackResult r = d.decode(b);
    if (r.status != HpackStatus::kOk) return {-1, -1};
    long long bytes = 0;
    for (const HpackField& f : r.fields)
      bytes += static_cast<long long>(f.name.size() + f.value.size());
    return {static_cast<long long>(r.fields.size()), bytes};
  });
}

void limit(benchmark::State& state, const Case* c) {
  // The decoded list to write, from gatecore's decoder (views kept valid: it is not used again).
  HpackDecoder d({.max_table_size = kTable, .max_header_list_size = kMaxList});
  std::vector<HeaderField> decoded(kMaxFields);
  std::vector<char> decoded_scratch(d.scratch_bytes());
  if (!c->warmup.empty()) d.decode(c->warmup, decoded, decoded_scratch);
  const HpackResult r = d.decode(c->block, decoded, decoded_scratch);
  decoded.resize(r.status == HpackStatus::kOk ? r.count : 0);
  std::vector<HeaderField> out(kMaxFields);
  std::vector<char> scratch(c->block.size() + c->warmup.size());
  run(state, *c, [&](std::string_view b) -> Counts {
    const std::size_t n = peers::hpack_copy_floor(b, decoded, scratch, out);
    return sum_fields(std::span(out).first(n));
  });
}

const bool registered = [] {
  for (const Case& c : cases()) {
    benchmark::RegisterBenchmark(("hpack/gatecore/" + c.name).c_str(), gatecore, &c);
    benchmark::RegisterBenchmark(("hpack/nghttp2/" + c.name).c_str(), nghttp2, &c);
    benchmark::RegisterBenchmark(("hpack/naive/" + c.name).c_str(), naive, &c);
    benchmark::RegisterBenchmark(("hpack/limit/" + c.name).c_str(), limit, &c);
  }
  return true;
}();

}  // namespace
}  // namespace gatebench::http2
