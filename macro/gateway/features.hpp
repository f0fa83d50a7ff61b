// The protection features of a proxy host as built at configuration time (docs/gateway.md,
// "Features"): CIDR tables, compiled rules, rate-limit settings, queue and challenge settings.
// Everything here is immutable and shared by all workers, except the queue's admission store,
// which is thread-safe and touched only by the join endpoint.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "micro/core/cidr/table.hpp"
#include "micro/core/rules/engine.hpp"
#include "micro/core/rules/exploit_patterns.hpp"
#include "micro/core/rules/ratelimit.hpp"
#include "micro/core/rules/set.hpp"
#include "micro/core/tokens/jwt_verify.hpp"
#include "micro/core/tokens/key_ring.hpp"

namespace gatebench::gateway {

class Field;

// Admission bookkeeping of an access queue. Admissions count until their token expires.
// In-process for now; a shared store (another process, a cluster) implements the same interface.
class QueueStore {
 public:
  enum class Result : std::uint8_t { kAdmitted, kFull, kClientLimit };
  struct Admission {
    Result result = Result::kFull;
    std::uint64_t ticket = 0;  // when kAdmitted
  };
  virtual ~QueueStore() = default;
  // Admits one client if fewer than `capacity` admissions are live at `now_s` and fewer than the
  // per-client bound are the address `client`'s.
  virtual Admission try_admit(std::uint64_t now_s, std::uint32_t client) = 0;
  virtual std::uint64_t admitted(std::uint64_t now_s) = 0;
};

// Per-second admission counts over a ring as long as the token lifetime, and the live admissions
// of each client address (a FIFO of admissions in time order retires them, so each costs
// constant time). The join endpoint is rare next to proxied requests, so a mutex here costs
// nothing on the request path.
class InProcessQueueStore final : public QueueStore {
 public:
  InProcessQueueStore(std::uint32_t capacity, std::uint32_t ttl_s, std::uint32_t per_client);
  Admission try_admit(std::uint64_t now_s, std::uint32_t client) override;
  std::uint64_t admitted(std::uint64_t now_s) override;

 private:
  std::uint64_t live_locked(std::uint64_t now_s);
  std::mutex mu_;
  std::uint32_t capacity_;
  std::uint32_t ttl_s_;
  std::uint32_t per_client_;
  std::vector<std::uint64_t> second_;  // which second a slot counts
  std::vector<std::uint32_t> count_;
  std::deque<std::pair<std::uint64_t, std::uint32_t>> by_time_;   // (second, client) admitted
  std::unordered_map<std::uint32_t, std::uint32_t> per_address_;  // client -> live admissions
  std::uint64_t next_ticket_ = 1;
};

// Used challenge nonces, shared by the workers of one configuration: a nonce passes the verify
// endpoint once. Entries are forgotten when their nonce expires; with `capacity` live entries, a
// further nonce is refused (fail closed: the client is asked the challenge again). Every call is
// constant time whatever the fill: the entries are kept in buckets by expiry second (an ordered
// map of the few seconds a nonce lifetime spans), so the expired ones are found at the front
// instead of by a scan, and the ledger is split in shards by id, each with its own mutex.
class NonceLedger {
 public:
  explicit NonceLedger(std::size_t capacity);
  // A fresh nonce id (the ticket field of the nonce token), unique within this ledger's life and,
  // through a random start, unlikely to meet one of an earlier ledger.
  std::uint64_t next_id();
  // Records the nonce as used; false when it was used before or the ledger is full.
  bool use(std::uint64_t id, std::uint32_t expiry, std::uint64_t now_s);
  std::size_t size();

 private:
  struct Shard {
    std::mutex mu;
    std::unordered_map<std::uint64_t, std::uint32_t> used;         // id -> expiry
    std::map<std::uint32_t, std::vector<std::uint64_t>> expiring;  // expiry -> ids
    std::vector<std::vector<std::uint64_t>> spare;                 // emptied buckets, reused
  };
  std::size_t per_shard_;
  std::vector<std::unique_ptr<Shard>> shards_;
  std::atomic<std::uint64_t> next_;
};

// The token ids of a host: a 31-bit hash of its first name (lower case), so that a reload that
// reorders hosts keeps every cookie the host's. Queue ids have the top bit clear and nonce ids
// set, so no nonce is ever some queue's admission.
std::uint32_t host_token_id(std::string_view lower_name);
inline constexpr std::uint32_t kNonceIdBit = 0x80000000u;

struct QueueFeature {
  std::uint32_t capacity = 0;
  std::uint32_t tickets_per_client = 8;  // live admissions one client address may hold
  std::uint32_t admission_ttl_s = 300;
  std::uint32_t refresh_s = 5;
  std::uint32_t queue_id = 0;
  std::shared_ptr<QueueStore> store;
};

enum class ChallengeScope : std::uint8_t { kAll, kRules };

struct ChallengeFeature {
  ChallengeScope scope = ChallengeScope::kAll;
  std::uint32_t pass_ttl_s = 3600;
  std::uint32_t nonce_ttl_s = 60;
  std::uint32_t nonce_queue_id = 0;  // admission-kind tokens with this id are challenge nonces
  std::shared_ptr<NonceLedger> used_nonces;
};

struct IpListFeature {
  // Value of an entry = index into ids; one table for all deny lists, one for all allow lists.
  std::shared_ptr<const cidr::Ipv4Table> deny;
  std::shared_ptr<const cidr::Ipv4Table> allow;  // null: no allow list (everyone may pass)
  std::vector<std::string> deny_ids;
  std::string allow_id;  // rule id reported when an address is in no allow list
};

struct CountryFeature {
  std::shared_ptr<const cidr::Ipv4Table> table;  // address -> packed country code
  std::vector<cidr::CidrValue> codes;            // packed codes of the deny or allow set
  std::vector<std::string> ids;                  // "country:XX" per code (deny) or one id (allow)
  bool allow_mode = false;                       // true: only these countries pass
};

struct RulesFeature {
  std::shared_ptr<const rules::CompiledRuleSet> compiled;
  std::vector<std::string> rule_ids;  // RuleSet::rules[i].id
  rules::ExploitMode exploit_mode = rules::ExploitMode::kOff;
  std::array<std::string, rules::kExploitCategoryTotal> exploit_ids;  // "exploit:<category>"
};

// A bearer JWT required on every request of the host (docs/gateway.md, "JWT").
struct JwtFeature {
  std::shared_ptr<const tokens::JwtKeySet> keys;
  tokens::JwtRequirements required;
};

// Loop detection: the hop header and Via entries naming this gateway, 508 at max_hops.
struct LoopFeature {
  std::uint32_t max_hops = 8;
  std::string via_name = "gatebench-gateway";
};

struct HostFeatures {
  std::optional<IpListFeature> ip_lists;
  std::optional<CountryFeature> countries;
  std::optional<RulesFeature> rules;
  std::optional<rules::GcraConfig> rate_limit;
  std::optional<QueueFeature> queue;
  std::optional<ChallengeFeature> challenge;
  std::optional<JwtFeature> jwt;
  std::optional<LoopFeature> loop;
  // What the queue and challenge ids derive from (host_token_id); empty when neither is on.
  std::string token_name;
  std::uint32_t token_id = 0;
  bool any() const {
    return ip_lists || countries || rules || rate_limit || queue || challenge || jwt || loop;
  }
};

// Reads the feature fields of one host object (`hosts[i]`); throws ConfigError naming the field.
// `has_keys` tells whether tokens are configured. The index is not used (ids come from names).
HostFeatures load_host_features(const Field& host, int host_index, bool has_keys);

struct HostConfig;
// Two hosts with a queue or a challenge whose token ids are equal would accept each other's
// cookies: throws ConfigError at `hosts` naming both. Called once all hosts are parsed.
void check_token_ids(const Field& hosts, const std::vector<HostConfig>& parsed);

// Reads "jwt": {"keys": [...], "issuer", "audience", "leeway_s"} (auth_features.cpp).
JwtFeature load_jwt(const Field& jwt);
// Reads "loop": {"max_hops": N, "via": "name"} (auth_features.cpp).
LoopFeature load_loop(const Field& loop);
// The bytes of a hex string field of at least min_bytes bytes.
std::vector<std::uint8_t> hex_secret(const Field& hex, std::size_t min_bytes);

// Reads "tokens": {"secret_hex": "...", "key_id": 1}.
std::shared_ptr<const tokens::TokenKeyRing> load_token_keys(const Field& tokens);

// The key ring a reloaded configuration runs with, so that cookies minted before a SIGHUP still
// verify: a new key id keeps the running current key as the previous one; the same id and
// secret keeps the running ring as it is (previous key included). The same id with another
// secret throws ConfigError (`origin` names the file): its outstanding tokens would verify as
// forgeries. A null ring on either side: `next` as it is.
std::shared_ptr<const tokens::TokenKeyRing> carry_token_keys(
    const tokens::TokenKeyRing* running, std::shared_ptr<const tokens::TokenKeyRing> next,
    const std::string& origin);

}  // namespace gatebench::gateway
