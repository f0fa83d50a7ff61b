// What the gateway reads back from Redis for its response cache (docs/gateway.md "Response
// cache"), from arbitrary reply bytes: hiredis' reader (what a cache connection parses with),
// each reply as a lookup takes it (reply_result), and a value as the worker decodes it for the
// request that waits (redis_entry_lookup, split_entry, write_hit_head).
//
// Input: byte 0 picks the mode; then the request's head when the input holds a whole one (up to
// its empty line), else a fixed GET; then the reply stream. Mode bit 0: the rest is raw RESP;
// otherwise it is one value, sent as a bulk string. Bits 2-5: the size of each read.
// Besides the sanitizers' checks: a decoded hit lies inside the value, its hit head fits or is
// refused, a protocol error fails the lookup, and an entry written for the request (as
// store_in_redis writes it) reads back as a hit with its response and no age.
#include <hiredis/hiredis.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "macro/gateway/redis_store.hpp"
#include "macro/gateway/response_cache.hpp"

namespace {

using namespace gatebench;
using gateway::RedisResult;

constexpr std::string_view kDefaultHead = "GET /a?b=1 HTTP/1.1\r\nHost: shop.example\r\n\r\n";
constexpr std::int64_t kNow = 1'800'000'000;

void check(bool ok) {
  if (!ok) std::abort();
}

struct ReaderDeleter {
  void operator()(redisReader* r) const { redisReaderFree(r); }
};
struct ReplyDeleter {
  void operator()(redisReply* r) const { freeReplyObject(r); }
};

// The worker's path for one value: the entry for this request, then the head of its answer.
void serve(std::string_view value, const cache::RequestKey& key, std::uint8_t mode) {
  const cache::LookupResult r = gateway::redis_entry_lookup(value, key, kNow);
  if (r.status != cache::LookupStatus::kHit) return;
  check(r.response.data() >= value.data() &&
        r.response.data() + r.response.size() <= value.data() + value.size());
  gateway::EntryView e;
  if (!gateway::split_entry(r.response, e)) return;
  std::array<char, 4096> out;
  const std::size_t n =
      gateway::write_hit_head(out.data(), out.size(), e.head, r.age_s, gateway::CacheStatus::kHit,
                              (mode & 0x40) != 0, (mode & 0x80) != 0);
  check(n <= out.size());
  check(n == 0 || std::string_view(out.data(), n).ends_with("\r\n\r\n"));
}

// What store_in_redis writes for this request reads back as a hit with the same response.
void round_trip(std::string_view response, const cache::RequestKey& key, std::uint8_t mode) {
  const std::array<std::string_view, 1> vary{"Accept-Encoding, X-Device"};
  const std::span<const std::string_view> lines = (mode & 0x02) != 0
                                                      ? std::span<const std::string_view>(vary)
                                                      : std::span<const std::string_view>();
  cache::Freshness fresh;
  fresh.lifetime_s = 120;
  fresh.age_s = mode & 0x3F;
  cache::EntryWriter writer;
  if (writer.plan(key, fresh, lines, response, 1 << 20) != cache::InsertStatus::kStored) return;
  std::vector<std::byte> entry(writer.size());
  writer.write(entry.data(), kNow);
  const std::string_view value(reinterpret_cast<const char*>(entry.data()), entry.size());
  const cache::LookupResult r = gateway::redis_entry_lookup(value, key, kNow);
  check(r.status == cache::LookupStatus::kHit);
  check(r.response == response);
  check(r.age_s == fresh.age_s);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1) return 0;
  const std::uint8_t mode = data[0];
  const std::string_view input(reinterpret_cast<const char*>(data + 1), size - 1);
  std::string_view head = kDefaultHead;
  std::string_view rest = input;
  const std::size_t end = input.find("\r\n\r\n");
  auto req = std::make_unique<gateway::RequestHead>();
  if (end != std::string_view::npos) {
    head = input.substr(0, end + 4);
    rest = input.substr(end + 4);
  }
  if (gateway::parse_request_head(head, 65536, *req) != gateway::HeadStatus::kComplete) {
    head = kDefaultHead;
    check(gateway::parse_request_head(head, 65536, *req) == gateway::HeadStatus::kComplete);
  }
  gateway::KeyHeaders key_headers;
  const cache::RequestKey key = key_headers.key(*req, head);

  std::string stream;
  if ((mode & 0x01) != 0) {
    stream = rest;
  } else {
    stream = "$" + std::to_string(rest.size()) + "\r\n";
    stream.append(rest);
    stream += "\r\n";
  }
  const std::unique_ptr<redisReader, ReaderDeleter> reader(redisReaderCreate());
  check(reader != nullptr);
  const std::size_t step = 1 + ((mode >> 2) & 0x0F) * 11;
  bool failed = false;
  for (std::size_t off = 0; off < stream.size() && !failed; off += step) {
    const std::size_t n = std::min(step, stream.size() - off);
    check(redisReaderFeed(reader.get(), stream.data() + off, n) == REDIS_OK);
    for (;;) {
      void* raw = nullptr;
      if (redisReaderGetReply(reader.get(), &raw) != REDIS_OK) {
        // A protocol error ends the connection: hiredis answers its lookups with no reply.
        std::string_view value;
        check(gateway::reply_result(nullptr, value) == RedisResult::kFailed && value.empty());
        failed = true;
        break;
      }
      if (raw == nullptr) break;
      const std::unique_ptr<redisReply, ReplyDeleter> reply(static_cast<redisReply*>(raw));
      std::string_view value;
      const RedisResult result = gateway::reply_result(reply.get(), value);
      check(result == RedisResult::kValue || value.empty());
      if (result == RedisResult::kValue) serve(value, key, mode);
    }
  }
  round_trip(rest, key, mode);
  return 0;
}
