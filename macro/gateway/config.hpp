// Configuration of gatebench-gateway: one JSON file (format in docs/gateway.md).
//
// load_config() validates everything up front and throws ConfigError whose message names the file
// and the JSON pointer of the field (`gw.json: /hosts/1/upstream: expected "host:port"`), so a bad
// file never reaches the workers. The result is immutable and shared read-only by every worker
// thread.
#pragma once

#include <netinet/in.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "macro/common/usage_error.hpp"
#include "macro/gateway/features.hpp"

namespace gatebench::gateway {

// Bad configuration is bad input like any other: the one error type of the executables (exit 2).
using ConfigError = common::UsageError;

struct ListenerConfig {
  bool https = false;
  bool decision = false;  // "role": "decision": answers decision requests (decision.hpp)
  bool http2 = false;     // "http2": ALPN h2 (https) or h2c with prior knowledge (http)
  std::string address;    // IPv4 literal
  std::uint16_t port = 0;
  sockaddr_in addr{};
};

struct CertificateConfig {
  std::string cert_path;
  std::string key_path;
};

enum class SecurityHeaders : std::uint8_t { kOff, kBasic, kStrict };

// What a host with rules does with a body longer than its body_limit.
enum class BodyOverflow : std::uint8_t {
  kReject,      // 413
  kScanPrefix,  // inspect the first body_limit bytes, forward the whole body, log body-truncated
};

enum class CacheStore : std::uint8_t { kMemory, kRedis };

// A host's response cache (docs/gateway.md "Response cache", docs/cache.md).
struct CacheConfig {
  CacheStore store = CacheStore::kMemory;
  std::size_t max_bytes = 64u << 20;       // memory: each worker's store holds at most this
  std::size_t max_entry_bytes = 1u << 20;  // head and body of one response, at most
  std::uint32_t default_ttl_s = 0;         // lifetime when the upstream gives none; 0: not stored
  std::string redis;                       // redis: "host:port" as written
  sockaddr_in redis_addr{};
  std::uint32_t redis_timeout_ms = 50;  // a lookup not answered by then is a miss
  std::uint32_t redis_connections = 2;  // per worker
};

struct HostConfig {
  std::vector<std::string> names;  // lower case, without port
  std::string upstream;            // as written, for logs
  sockaddr_in upstream_addr{};
  std::uint32_t pool_size = 64;  // idle keep-alive connections kept per worker
  std::uint32_t connect_timeout_ms = 2000;
  std::uint32_t read_timeout_ms = 30000;
  SecurityHeaders security_headers = SecurityHeaders::kOff;
  // Request bodies buffered for the rules before proxying (hosts with "rules" only; 0: bodies
  // are streamed and not inspected).
  std::uint32_t body_limit = 65536;
  BodyOverflow body_overflow = BodyOverflow::kReject;
  bool inspects_bodies() const { return body_limit > 0 && features && features->rules; }
  std::optional<CacheConfig> cache;              // no "cache" section: nothing is cached
  std::shared_ptr<const HostFeatures> features;  // never null; empty when no feature is on
};

struct Config {
  std::string path;
  unsigned workers = 0;  // resolved: never 0 after load_config
  std::vector<ListenerConfig> listeners;
  std::vector<CertificateConfig> certificates;
  // Resumption (tls.session_cache, tls.session_tickets): a server-side session cache shared by the
  // workers, and stateless session tickets. Both off: no resumption, and no TLS 1.3 tickets sent.
  bool tls_session_cache = true;
  bool tls_session_tickets = true;
  bool access_log_enabled = false;
  sockaddr_in access_log_addr{};
  std::uint32_t access_log_flush_ms = 1000;
  std::size_t max_header_bytes = 8192;
  std::uint32_t client_header_timeout_ms = 10000;
  // Whole time to receive a body the gateway inspects (not per read: a trickle cannot extend it).
  std::uint32_t client_body_timeout_ms = 60000;
  std::uint32_t keepalive_timeout_ms = 60000;
  std::uint32_t send_timeout_ms = 30000;
  // Client connections one worker serves at once; one more is answered 503 and closed.
  std::uint32_t max_connections_per_worker = 16384;
  // SETTINGS_MAX_CONCURRENT_STREAMS of each HTTP/2 connection.
  std::uint32_t h2_max_concurrent_streams = 100;
  std::uint16_t unknown_host_status = 421;
  std::vector<HostConfig> hosts;
  int default_host = -1;  // host answering any name not listed elsewhere ("*" in names)
  std::shared_ptr<const tokens::TokenKeyRing> tokens;  // null when no "tokens" section
};

// Throws ConfigError naming the file and the field's JSON pointer.
std::shared_ptr<const Config> load_config(const std::string& path);

// Same from a JSON text (tests); `origin` names the source in messages and resolves relative
// paths of rule and list files against its directory.
std::shared_ptr<const Config> parse_config(const std::string& json_text, const std::string& origin);

// Index of the host serving `host_header` (port and case ignored), or -1.
int find_host(const Config& config, std::string_view host_header);

}  // namespace gatebench::gateway
