// The "cache" host setting: defaults, and each error naming its field.
#include <gtest/gtest.h>

#include <string>

#include "macro/gateway/config.hpp"

namespace gw = gatebench::gateway;

namespace {

std::string with_cache(const std::string& cache) {
  return R"({"listeners": [{"port": 8080}], "hosts": [{"names": ["*"], )"
         R"("upstream": "127.0.0.1:81", "cache": )" +
         cache + "}]}";
}

std::string error_of(const std::string& cache) {
  try {
    gw::parse_config(with_cache(cache), "gw.json");
  } catch (const gw::ConfigError& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(CacheConfig, MemoryDefaults) {
  auto cfg = gw::parse_config(with_cache(R"({"store": "memory"})"), "gw.json");
  ASSERT_TRUE(cfg->hosts[0].cache.has_value());
  const gw::CacheConfig& c = *cfg->hosts[0].cache;
  EXPECT_EQ(c.store, gw::CacheStore::kMemory);
  EXPECT_EQ(c.max_bytes, 64u << 20);
  EXPECT_EQ(c.max_entry_bytes, 1u << 20);
  EXPECT_EQ(c.default_ttl_s, 0u);
}

TEST(CacheConfig, RedisFields) {
  auto cfg = gw::parse_config(
      with_cache(R"({"store": "redis", "redis": "127.0.0.1:6379", "redis_timeout_ms": 20,
                     "redis_connections": 3, "default_ttl_s": 10})"),
      "gw.json");
  const gw::CacheConfig& c = *cfg->hosts[0].cache;
  EXPECT_EQ(c.store, gw::CacheStore::kRedis);
  EXPECT_EQ(c.redis, "127.0.0.1:6379");
  EXPECT_EQ(c.redis_timeout_ms, 20u);
  EXPECT_EQ(c.redis_connections, 3u);
  EXPECT_EQ(c.default_ttl_s, 10u);
}

TEST(CacheConfig, HostWithoutCacheHasNone) {
  auto cfg = gw::parse_config(
      R"({"listeners": [{"port": 8080}], "hosts": [{"names": ["*"], "upstream": "127.0.0.1:81"}]})",
      "gw.json");
  EXPECT_FALSE(cfg->hosts[0].cache.has_value());
}

TEST(CacheConfig, ErrorsNameTheField) {
  const std::pair<const char*, const char*> cases[] = {
      {R"({})", "gw.json: /hosts/0/cache/store: missing"},
      {R"({"store": "disk"})", "gw.json: /hosts/0/cache/store: expected \"memory\" or \"redis\""},
      {R"({"store": "memory", "max_bytes": 10})", "gw.json: /hosts/0/cache/max_bytes:"},
      {R"({"store": "memory", "max_bytes": 8192, "max_entry_bytes": 9000})",
       "gw.json: /hosts/0/cache/max_entry_bytes: larger than max_bytes"},
      {R"({"store": "memory", "default_ttl_s": -1})", "gw.json: /hosts/0/cache/default_ttl_s:"},
      {R"({"store": "memory", "redis": "127.0.0.1:6379"})",
       "gw.json: /hosts/0/cache/redis: only with \"store\": \"redis\""},
      {R"({"store": "memory", "redis_timeout_ms": 5})",
       "gw.json: /hosts/0/cache/redis_timeout_ms: only with"},
      {R"({"store": "redis"})", "gw.json: /hosts/0/cache/redis: missing"},
      {R"({"store": "redis", "redis": "nowhere"})",
       "gw.json: /hosts/0/cache/redis: expected \"host:port\""},
      {R"({"store": "redis", "redis": "127.0.0.1:6379", "max_bytes": 4096})",
       "gw.json: /hosts/0/cache/max_bytes: only with \"store\": \"memory\""},
      {R"({"store": "redis", "redis": "127.0.0.1:6379", "redis_connections": 0})",
       "gw.json: /hosts/0/cache/redis_connections:"},
      {R"({"store": "memory", "ttl": 5})", "gw.json: /hosts/0/cache/ttl: unknown field"},
  };
  for (const auto& [cache, want] : cases) {
    const std::string got = error_of(cache);
    EXPECT_EQ(got.rfind(want, 0), 0u) << cache << "\n got: " << got;
  }
}

}  // namespace
