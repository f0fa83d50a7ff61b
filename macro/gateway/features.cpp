#include "macro/gateway/features.hpp"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <random>

#include "macro/gateway/config.hpp"
#include "macro/gateway/config_json.hpp"
#include "micro/core/rules/loader.hpp"

namespace gatebench::gateway {
namespace {

std::shared_ptr<const cidr::Ipv4Table> build_table(const Field& f,
                                                   const std::vector<cidr::CidrEntry>& entries) {
  try {
    return std::make_shared<const cidr::Ipv4Table>(cidr::Ipv4Table::build(entries));
  } catch (const std::exception& e) {
    f.fail(e.what());
  }
}

// Entries of a CIDR list file with every value replaced by `value`.
std::vector<cidr::CidrEntry> list_entries(const Field& f, const std::string& path,
                                          cidr::CidrValue value) {
  std::string text = f.file_text(path);
  cidr::CidrListParse parsed = cidr::parse_cidr_list(text, value);
  if (!parsed.ok()) f.fail(cidr::format_diagnostic(path, parsed.errors.front()));
  for (auto& e : parsed.entries) e.value = value;
  return parsed.entries;
}

IpListFeature load_ip_lists(const Field& arr) {
  arr.expect_array();
  IpListFeature out;
  std::vector<cidr::CidrEntry> deny;
  std::vector<cidr::CidrEntry> allow;
  std::vector<std::string> allow_ids;
  for (std::size_t i = 0; i < arr.size(); ++i) {
    Field l = arr.at(i);
    l.allow_keys({"id", "file", "action"});
    std::string id = l.required("id").string();
    if (id.empty()) l.child("id").fail("expected a non-empty id");
    std::string action = l.required("action").string();
    Field file = l.required("file");
    std::string path = file.path_string();
    if (action == "deny") {
      auto e = list_entries(file, path, static_cast<cidr::CidrValue>(out.deny_ids.size()));
      deny.insert(deny.end(), e.begin(), e.end());
      out.deny_ids.push_back(id);
    } else if (action == "allow") {
      auto e = list_entries(file, path, 0);
      allow.insert(allow.end(), e.begin(), e.end());
      allow_ids.push_back(id);
    } else {
      l.child("action").fail("expected \"deny\" or \"allow\"");
    }
  }
  out.deny = build_table(arr, deny);
  if (!allow_ids.empty()) {
    out.allow = build_table(arr, allow);
    out.allow_id = "not-in:";
    for (std::size_t i = 0; i < allow_ids.size(); ++i) {
      out.allow_id += (i ? "," : "") + allow_ids[i];
    }
  }
  return out;
}

CountryFeature load_countries(const Field& c) {
  c.allow_keys({"table", "deny", "allow"});
  CountryFeature out;
  Field table = c.required("table");
  std::string path = table.path_string();
  std::string text = table.file_text(path);
  cidr::CidrListParse parsed = cidr::parse_cidr_list(text, 0);
  if (!parsed.ok()) table.fail(cidr::format_diagnostic(path, parsed.errors.front()));
  for (const auto& e : parsed.entries) {
    if (e.value > 0xFFFF || e.value < 0x4141) {
      table.fail(path + ": every entry needs a two-letter country code");
    }
  }
  out.table = build_table(table, parsed.entries);
  if (c.has("deny") == c.has("allow")) c.fail("expected exactly one of \"deny\" or \"allow\"");
  out.allow_mode = c.has("allow");
  Field codes = c.child(out.allow_mode ? "allow" : "deny");
  codes.expect_array();
  for (std::size_t i = 0; i < codes.size(); ++i) {
    std::string code = codes.at(i).string();
    if (code.size() != 2 || !std::isupper(static_cast<unsigned char>(code[0])) ||
        !std::isupper(static_cast<unsigned char>(code[1]))) {
      codes.at(i).fail("expected a two-letter upper-case country code");
    }
    out.codes.push_back(cidr::pack_country(code));
    if (!out.allow_mode) out.ids.push_back("country:" + code);
  }
  if (out.allow_mode) out.ids.push_back("country-not-allowed");
  return out;
}

RulesFeature load_rules(const Field& f, const Field& host, std::optional<rules::GcraConfig>& rl) {
  std::string path = f.path_string();
  rules::RuleSet set;
  try {
    set = rules::load_rule_set(f.file_text(path), path);
  } catch (const rules::RuleLoadError& e) {
    f.fail(e.what());
  }
  // The rule file's rate limit is applied by the gateway after the rules (the documented order),
  // so it is taken out of the compiled set.
  if (set.rate_limit.enabled) {
    if (host.has("rate_limit")) {
      f.fail("the rule file has a rate_limit and so has the host: keep one");
    }
    rl = rules::GcraConfig{set.rate_limit.rate_per_second, set.rate_limit.burst,
                           set.rate_limit.table_entries};
    set.rate_limit.enabled = false;
  }
  if (host.has("exploits")) {
    std::string mode = host.child("exploits").string();
    if (mode == "off") {
      set.exploit_mode = rules::ExploitMode::kOff;
    } else if (mode == "detect") {
      set.exploit_mode = rules::ExploitMode::kDetect;
    } else if (mode == "block") {
      set.exploit_mode = rules::ExploitMode::kBlock;
    } else {
      host.child("exploits").fail("expected \"off\", \"detect\" or \"block\"");
    }
  }
  if (!host.has("challenge")) {
    for (const auto& r : set.rules) {
      if (r.action == rules::RuleAction::kChallenge) {
        f.fail("rule \"" + r.id + "\" has action challenge but the host has no \"challenge\"");
      }
    }
  }
  RulesFeature out;
  try {
    out.compiled = std::make_shared<const rules::CompiledRuleSet>(set);
  } catch (const std::exception& e) {
    f.fail(e.what());
  }
  for (const auto& r : set.rules) out.rule_ids.push_back(r.id);
  out.exploit_mode = set.exploit_mode;
  for (int c = 0; c < rules::kExploitCategoryTotal; ++c) {
    out.exploit_ids[static_cast<std::size_t>(c)] =
        std::string("exploit:") + rules::to_string(static_cast<rules::ExploitCategory>(c));
  }
  return out;
}

rules::GcraConfig load_rate_limit(const Field& f) {
  f.allow_keys({"rate_per_second", "burst", "table_entries"});
  rules::GcraConfig g;
  g.rate_per_second = f.required("rate_per_second").number(1e-6, 1e9);
  g.burst = static_cast<std::uint32_t>(f.integer_or("burst", 0, 0, 1000000000));
  g.table_entries = static_cast<std::uint32_t>(f.integer_or("table_entries", 65536, 4, 1 << 26));
  return g;
}

// Used nonces remembered per host: at most this many clients may pass the challenge within one
// nonce lifetime (60 s), about 8 MiB with the hash table's nodes at the cap.
constexpr std::size_t kUsedNonceCapacity = 131072;

}  // namespace

InProcessQueueStore::InProcessQueueStore(std::uint32_t capacity, std::uint32_t ttl_s,
                                         std::uint32_t per_client)
    : capacity_(capacity),
      ttl_s_(ttl_s),
      per_client_(per_client),
      second_(ttl_s, 0),
      count_(ttl_s, 0) {}

std::uint64_t InProcessQueueStore::live_locked(std::uint64_t now_s) {
  std::uint64_t live = 0;
  for (std::size_t i = 0; i < second_.size(); ++i) {
    // An admission at second s holds its slot for seconds s .. s + ttl - 1.
    if (count_[i] != 0 && second_[i] + ttl_s_ > now_s) live += count_[i];
  }
  return live;
}

QueueStore::Admission InProcessQueueStore::try_admit(std::uint64_t now_s, std::uint32_t client) {
  std::lock_guard<std::mutex> lock(mu_);
  while (!by_time_.empty() && by_time_.front().first + ttl_s_ <= now_s) {
    auto it = per_address_.find(by_time_.front().second);
    if (--it->second == 0) per_address_.erase(it);
    by_time_.pop_front();
  }
  if (live_locked(now_s) >= capacity_) return {Result::kFull, 0};
  std::uint32_t& mine = per_address_[client];
  if (mine >= per_client_) return {Result::kClientLimit, 0};
  ++mine;
  by_time_.emplace_back(now_s, client);
  std::size_t slot = static_cast<std::size_t>(now_s % ttl_s_);
  if (second_[slot] != now_s) {
    second_[slot] = now_s;
    count_[slot] = 0;
  }
  ++count_[slot];
  return {Result::kAdmitted, next_ticket_++};
}

std::uint64_t InProcessQueueStore::admitted(std::uint64_t now_s) {
  std::lock_guard<std::mutex> lock(mu_);
  return live_locked(now_s);
}

// Ids come from next_id(), one after the other, and are authenticated in the nonce token: taken
// modulo the shard count they spread evenly, and no client can aim at one shard. A small ledger
// (the tests') stays one shard, so its capacity is exact.
NonceLedger::NonceLedger(std::size_t capacity)
    : next_((std::uint64_t{std::random_device{}()} << 32) ^ std::random_device{}()) {
  constexpr std::size_t kMaxShards = 16;
  constexpr std::size_t kMinPerShard = 1024;
  const std::size_t shards = std::clamp<std::size_t>(capacity / kMinPerShard, 1, kMaxShards);
  per_shard_ = capacity / shards;
  for (std::size_t i = 0; i < shards; ++i) {
    shards_.push_back(std::make_unique<Shard>());
    shards_.back()->used.reserve(per_shard_);
  }
}

std::uint64_t NonceLedger::next_id() {
  return next_.fetch_add(1, std::memory_order_relaxed);
}

bool NonceLedger::use(std::uint64_t id, std::uint32_t expiry, std::uint64_t now_s) {
  Shard& s = *shards_[id % shards_.size()];
  std::lock_guard<std::mutex> lock(s.mu);
  // The expired seconds are at the front; each entry is erased once, so this is constant time
  // amortized over the nonces that entered.
  while (!s.expiring.empty() && now_s >= s.expiring.begin()->first) {
    auto front = s.expiring.begin();
    for (std::uint64_t gone : front->second) s.used.erase(gone);
    front->second.clear();
    s.spare.push_back(std::move(front->second));
    s.expiring.erase(front);
  }
  if (s.used.size() >= per_shard_ || s.used.contains(id)) return false;
  s.used.emplace(id, expiry);
  auto [bucket, fresh] = s.expiring.try_emplace(expiry);
  if (fresh && !s.spare.empty()) {
    bucket->second = std::move(s.spare.back());
    s.spare.pop_back();
  }
  bucket->second.push_back(id);
  return true;
}

std::size_t NonceLedger::size() {
  std::size_t n = 0;
  for (auto& s : shards_) {
    std::lock_guard<std::mutex> lock(s->mu);
    n += s->used.size();
  }
  return n;
}

std::uint32_t host_token_id(std::string_view lower_name) {
  // FNV-1a: stable across builds and platforms, which is all an id needs; the ids are not
  // secret (the tag authenticates the token, the id only says which host it is for).
  std::uint32_t h = 2166136261u;
  for (char c : lower_name) {
    h ^= static_cast<unsigned char>(c);
    h *= 16777619u;
  }
  return h & ~kNonceIdBit;
}

void check_token_ids(const Field& hosts, const std::vector<HostConfig>& parsed) {
  for (std::size_t i = 0; i < parsed.size(); ++i) {
    const HostFeatures& a = *parsed[i].features;
    if (a.token_name.empty()) continue;
    for (std::size_t j = 0; j < i; ++j) {
      const HostFeatures& b = *parsed[j].features;
      if (b.token_name.empty() || b.token_id != a.token_id) continue;
      char id[16];
      std::snprintf(id, sizeof id, "0x%08x", a.token_id);
      hosts.fail("hosts \"" + b.token_name + "\" and \"" + a.token_name +
                 "\" have the same queue/challenge token id " + id +
                 " and would accept each other's cookies: rename or reorder the names of one");
    }
  }
}

HostFeatures load_host_features(const Field& host, int /*host_index*/, bool has_keys) {
  HostFeatures f;
  if (host.has("queue") || host.has("challenge")) {
    for (char c : host.required("names").at(0).string()) {
      f.token_name += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
    f.token_id = host_token_id(f.token_name);
  }
  if (host.has("ip_lists")) f.ip_lists = load_ip_lists(host.child("ip_lists"));
  if (host.has("countries")) f.countries = load_countries(host.child("countries"));
  if (host.has("rate_limit")) f.rate_limit = load_rate_limit(host.child("rate_limit"));
  if (host.has("rules")) {
    f.rules = load_rules(host.child("rules"), host, f.rate_limit);
  } else if (host.has("exploits")) {
    host.child("exploits").fail("needs \"rules\" (exploit scanning runs in the rule engine)");
  }
  if (host.has("queue")) {
    Field q = host.child("queue");
    q.allow_keys({"capacity", "admission_ttl_s", "refresh_s", "tickets_per_client"});
    if (!has_keys) q.fail("needs \"tokens\" at the top level (admission cookies are signed)");
    QueueFeature qf;
    qf.capacity = static_cast<std::uint32_t>(q.required("capacity").integer(1, 100000000));
    qf.admission_ttl_s = static_cast<std::uint32_t>(q.integer_or("admission_ttl_s", 300, 1, 86400));
    qf.refresh_s = static_cast<std::uint32_t>(q.integer_or("refresh_s", 5, 1, 3600));
    qf.tickets_per_client =
        static_cast<std::uint32_t>(q.integer_or("tickets_per_client", 8, 1, 100000000));
    qf.queue_id = f.token_id;
    qf.store = std::make_shared<InProcessQueueStore>(qf.capacity, qf.admission_ttl_s,
                                                     qf.tickets_per_client);
    f.queue = std::move(qf);
  }
  if (host.has("challenge")) {
    Field c = host.child("challenge");
    c.allow_keys({"mode", "scope", "pass_ttl_s"});
    if (!has_keys) c.fail("needs \"tokens\" at the top level (pass cookies are signed)");
    std::string mode = c.string_or("mode", "cookie");
    if (mode != "cookie") c.child("mode").fail("expected \"cookie\" (the only mode so far)");
    ChallengeFeature cf;
    std::string scope = c.string_or("scope", "all");
    if (scope == "all") {
      cf.scope = ChallengeScope::kAll;
    } else if (scope == "rules") {
      cf.scope = ChallengeScope::kRules;
    } else {
      c.child("scope").fail("expected \"all\" or \"rules\"");
    }
    cf.pass_ttl_s = static_cast<std::uint32_t>(c.integer_or("pass_ttl_s", 3600, 1, 30 * 86400));
    cf.nonce_queue_id = kNonceIdBit | f.token_id;
    cf.used_nonces = std::make_shared<NonceLedger>(kUsedNonceCapacity);
    f.challenge = cf;
  }
  if (host.has("jwt")) f.jwt = load_jwt(host.child("jwt"));
  if (host.has("loop")) f.loop = load_loop(host.child("loop"));
  return f;
}

std::vector<std::uint8_t> hex_secret(const Field& hex, std::size_t min_bytes) {
  std::string s = hex.string();
  if (s.size() % 2 != 0 || s.size() < 2 * min_bytes) {
    hex.fail("expected at least " + std::to_string(2 * min_bytes) + " hex digits (a " +
             std::to_string(8 * min_bytes) + "-bit secret)");
  }
  std::vector<std::uint8_t> secret;
  for (std::size_t i = 0; i < s.size(); i += 2) {
    auto nib = [&](char c) -> int {
      if (c >= '0' && c <= '9') return c - '0';
      if (c >= 'a' && c <= 'f') return c - 'a' + 10;
      if (c >= 'A' && c <= 'F') return c - 'A' + 10;
      hex.fail("expected hex digits only");
    };
    secret.push_back(static_cast<std::uint8_t>(nib(s[i]) * 16 + nib(s[i + 1])));
  }
  return secret;
}

std::shared_ptr<const tokens::TokenKeyRing> load_token_keys(const Field& tokens) {
  tokens.allow_keys({"secret_hex", "key_id"});
  std::vector<std::uint8_t> secret =
      hex_secret(tokens.required("secret_hex"), tokens::kTokenMinSecretSize);
  auto ring = std::make_shared<tokens::TokenKeyRing>();
  ring->rotate(static_cast<std::uint8_t>(tokens.integer_or("key_id", 1, 0, 255)), secret);
  return ring;
}

std::shared_ptr<const tokens::TokenKeyRing> carry_token_keys(
    const tokens::TokenKeyRing* running, std::shared_ptr<const tokens::TokenKeyRing> next,
    const std::string& origin) {
  if (running == nullptr || running->current() == nullptr || !next || next->current() == nullptr) {
    return next;
  }
  const tokens::TokenKey& now = *running->current();
  const tokens::TokenKey& incoming = *next->current();
  auto ring = std::make_shared<tokens::TokenKeyRing>();
  if (incoming.id == now.id) {
    if (!incoming.same_secret(now)) {
      throw ConfigError(origin + ": /tokens: key_id " + std::to_string(now.id) +
                        " is running with another secret: give a new secret a new key_id");
    }
    if (running->previous() != nullptr) ring->rotate(*running->previous());
    ring->rotate(now);
  } else {
    ring->rotate(now);
    ring->rotate(incoming);
  }
  return ring;
}

}  // namespace gatebench::gateway
