// What a simple script does for response caching: header names and directives lower-cased into
// std::strings, lists split into vectors, dates read with sscanf and checked by writing them back,
// and a store that is an std::unordered_map keyed by a string built per request
// ("GET\nhost\n/target"). The oracle of the cache's differential tests and the naive peer of its
// benchmarks (docs/cache.md). It follows the same rules as gatecore
// (micro/core/cache/freshness.hpp, store.hpp) except that the store has no bound: it never evicts.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "micro/core/cache/freshness.hpp"
#include "micro/core/cache/store.hpp"

namespace gatebench::peers {

struct NaiveResponse {
  cache::Method method = cache::Method::kGet;
  std::uint16_t status = 200;
  bool request_has_authorization = false;
  std::vector<std::pair<std::string, std::string>> headers;  // every header line, in order
};

cache::Freshness naive_decide(const NaiveResponse& response, std::uint32_t default_ttl_s,
                              std::int64_t now_s);

// IMF-fixdate, RFC 850 and asctime by sscanf; nullopt when none matches exactly or the date does
// not exist.
std::optional<std::int64_t> naive_http_date(const std::string& value, std::int64_t now_s);

class NaiveCacheStore {
 public:
  cache::LookupResult lookup(const cache::RequestKey& key, std::int64_t now_s);
  cache::InsertStatus insert(const cache::RequestKey& key, const cache::Freshness& freshness,
                             std::span<const std::string_view> vary_lines,
                             std::string_view response, std::int64_t now_s);
  std::size_t entries() const { return map_.size(); }

 private:
  struct Entry {
    std::vector<std::pair<std::string, std::optional<std::string>>> vary;  // name, value or absent
    std::string response;
    std::int64_t expires_at = 0;
    std::int64_t age_origin = 0;
  };
  std::unordered_map<std::string, Entry> map_;
};

}  // namespace gatebench::peers
