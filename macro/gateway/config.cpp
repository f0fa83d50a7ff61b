#include "macro/gateway/config.hpp"

#include <arpa/inet.h>
#include <netdb.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <thread>

#include "macro/gateway/config_json.hpp"

namespace gatebench::gateway {
namespace {

bool parse_ipv4(const std::string& text, in_addr& out) {
  return inet_pton(AF_INET, text.c_str(), &out) == 1;
}

// "host:port" where host is an IPv4 literal or a name resolved once, at load time.
sockaddr_in parse_endpoint(const Field& f, const std::string& text) {
  std::size_t colon = text.rfind(':');
  if (colon == std::string::npos || colon == 0 || colon + 1 == text.size()) {
    f.fail("expected \"host:port\"");
  }
  std::string host = text.substr(0, colon);
  std::string port_text = text.substr(colon + 1);
  unsigned long port = 0;
  if (port_text.size() > 5 || !std::all_of(port_text.begin(), port_text.end(), ::isdigit) ||
      (port = std::stoul(port_text)) == 0 || port > 65535) {
    f.fail("expected \"host:port\" with a port in 1..65535");
  }
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<std::uint16_t>(port));
  if (!parse_ipv4(host, addr.sin_addr)) {
    addrinfo hints{};
    hints.ai_family = AF_INET;
    hints.ai_socktype = SOCK_STREAM;
    addrinfo* res = nullptr;
    if (getaddrinfo(host.c_str(), nullptr, &hints, &res) != 0 || res == nullptr) {
      f.fail("cannot resolve host \"" + host + "\"");
    }
    addr.sin_addr = reinterpret_cast<sockaddr_in*>(res->ai_addr)->sin_addr;
    freeaddrinfo(res);
  }
  return addr;
}

std::string lower_copy(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

void parse_listeners(const Field& root, Config& cfg) {
  Field arr = root.required("listeners");
  arr.expect_array();
  if (arr.size() == 0) arr.fail("expected at least one listener");
  for (std::size_t i = 0; i < arr.size(); ++i) {
    Field l = arr.at(i);
    l.allow_keys({"protocol", "address", "port", "role", "http2"});
    ListenerConfig lc;
    std::string proto = l.string_or("protocol", "http");
    if (proto != "http" && proto != "https") {
      l.child("protocol").fail("expected \"http\" or \"https\"");
    }
    lc.https = proto == "https";
    const std::string role = l.string_or("role", "proxy");
    if (role != "proxy" && role != "decision") {
      l.child("role").fail("expected \"proxy\" or \"decision\"");
    }
    lc.decision = role == "decision";
    lc.http2 = l.boolean_or("http2", lc.https && !lc.decision);
    if (lc.http2 && lc.decision) l.child("http2").fail("a decision listener speaks HTTP/1.1 only");
    lc.address = l.string_or("address", "127.0.0.1");
    lc.port = static_cast<std::uint16_t>(l.required("port").integer(1, 65535));
    lc.addr.sin_family = AF_INET;
    lc.addr.sin_port = htons(lc.port);
    if (!parse_ipv4(lc.address, lc.addr.sin_addr)) {
      l.child("address").fail("expected an IPv4 address");
    }
    cfg.listeners.push_back(std::move(lc));
  }
}

void parse_tls(const Field& root, Config& cfg) {
  bool any_https = std::any_of(cfg.listeners.begin(), cfg.listeners.end(),
                               [](const ListenerConfig& l) { return l.https; });
  if (!root.has("tls")) {
    if (any_https) root.child("tls").fail("required by the https listener");
    return;
  }
  Field tls = root.child("tls");
  tls.allow_keys({"certificates", "session_cache", "session_tickets"});
  cfg.tls_session_cache = tls.boolean_or("session_cache", true);
  cfg.tls_session_tickets = tls.boolean_or("session_tickets", true);
  Field certs = tls.required("certificates");
  certs.expect_array();
  if (certs.size() == 0) certs.fail("expected at least one {\"cert\", \"key\"} pair");
  for (std::size_t i = 0; i < certs.size(); ++i) {
    Field c = certs.at(i);
    c.allow_keys({"cert", "key"});
    CertificateConfig cc;
    cc.cert_path = c.required("cert").path_string();
    cc.key_path = c.required("key").path_string();
    c.child("cert").expect_readable(cc.cert_path);
    c.child("key").expect_readable(cc.key_path);
    cfg.certificates.push_back(std::move(cc));
  }
}

CacheConfig parse_cache(const Field& f) {
  f.allow_keys({"store", "max_bytes", "max_entry_bytes", "default_ttl_s", "redis",
                "redis_timeout_ms", "redis_connections"});
  CacheConfig cc;
  const Field store = f.required("store");
  const std::string kind = store.string();
  if (kind == "memory") {
    cc.store = CacheStore::kMemory;
  } else if (kind == "redis") {
    cc.store = CacheStore::kRedis;
  } else {
    store.fail("expected \"memory\" or \"redis\"");
  }
  const bool redis = cc.store == CacheStore::kRedis;
  for (std::string_view key : {"redis_timeout_ms", "redis_connections"}) {
    if (!redis && f.has(key)) f.child(key).fail("only with \"store\": \"redis\"");
  }
  if (redis) {
    if (f.has("max_bytes")) f.child("max_bytes").fail("only with \"store\": \"memory\"");
    const Field endpoint = f.required("redis");
    cc.redis = endpoint.string();
    cc.redis_addr = parse_endpoint(endpoint, cc.redis);
    cc.redis_timeout_ms =
        static_cast<std::uint32_t>(f.integer_or("redis_timeout_ms", 50, 1, 10000));
    cc.redis_connections = static_cast<std::uint32_t>(f.integer_or("redis_connections", 2, 1, 64));
  } else {
    if (f.has("redis")) f.child("redis").fail("only with \"store\": \"redis\"");
    cc.max_bytes = static_cast<std::size_t>(f.integer_or("max_bytes", 64L << 20, 4096, 1L << 40));
  }
  cc.max_entry_bytes =
      static_cast<std::size_t>(f.integer_or("max_entry_bytes", 1L << 20, 256, 64L << 20));
  if (!redis && cc.max_entry_bytes > cc.max_bytes) {
    f.child("max_entry_bytes").fail("larger than max_bytes");
  }
  cc.default_ttl_s =
      static_cast<std::uint32_t>(f.integer_or("default_ttl_s", 0, 0, 365L * 24 * 3600));
  return cc;
}

void parse_host(const Field& h, Config& cfg, int index) {
  h.allow_keys({"names", "upstream", "pool_size", "connect_timeout_ms", "read_timeout_ms",
                "security_headers", "ip_lists", "countries", "rules", "exploits", "rate_limit",
                "queue", "challenge", "body_limit", "body_overflow", "jwt", "loop", "cache"});
  HostConfig hc;
  Field names = h.required("names");
  names.expect_array();
  if (names.size() == 0) names.fail("expected at least one name");
  for (std::size_t i = 0; i < names.size(); ++i) {
    Field n = names.at(i);
    std::string name = lower_copy(n.string());
    if (name.empty()) n.fail("expected a non-empty host name");
    if (name == "*") {
      if (cfg.default_host >= 0) n.fail("a second default host \"*\"");
      cfg.default_host = index;
    } else {
      for (const HostConfig& other_host : cfg.hosts) {
        for (const std::string& other : other_host.names) {
          if (other == name) n.fail("host name \"" + name + "\" is already served by another host");
        }
      }
      for (const auto& other : hc.names) {
        if (other == name) n.fail("duplicate name \"" + name + "\"");
      }
    }
    hc.names.push_back(std::move(name));
  }
  Field up = h.required("upstream");
  hc.upstream = up.string();
  hc.upstream_addr = parse_endpoint(up, hc.upstream);
  hc.pool_size = static_cast<std::uint32_t>(h.integer_or("pool_size", 64, 0, 100000));
  hc.connect_timeout_ms =
      static_cast<std::uint32_t>(h.integer_or("connect_timeout_ms", 2000, 1, 3600000));
  hc.read_timeout_ms =
      static_cast<std::uint32_t>(h.integer_or("read_timeout_ms", 30000, 1, 3600000));
  std::string sh = h.string_or("security_headers", "off");
  if (sh == "off") {
    hc.security_headers = SecurityHeaders::kOff;
  } else if (sh == "basic") {
    hc.security_headers = SecurityHeaders::kBasic;
  } else if (sh == "strict") {
    hc.security_headers = SecurityHeaders::kStrict;
  } else {
    h.child("security_headers").fail("expected \"off\", \"basic\" or \"strict\"");
  }
  hc.body_limit = static_cast<std::uint32_t>(h.integer_or("body_limit", 65536, 0, 16 << 20));
  std::string overflow = h.string_or("body_overflow", "reject");
  if (overflow == "reject") {
    hc.body_overflow = BodyOverflow::kReject;
  } else if (overflow == "scan_prefix") {
    hc.body_overflow = BodyOverflow::kScanPrefix;
  } else {
    h.child("body_overflow").fail("expected \"reject\" or \"scan_prefix\"");
  }
  if (h.has("cache")) hc.cache = parse_cache(h.child("cache"));
  hc.features =
      std::make_shared<const HostFeatures>(load_host_features(h, index, cfg.tokens != nullptr));
  cfg.hosts.push_back(std::move(hc));
}

// The document must outlive `root` and every field taken from it: both live in the caller.
std::shared_ptr<const Config> config_from(const Field& root) {
  auto cfg = std::make_shared<Config>();
  cfg->path = root.file();
  root.expect_object();
  root.allow_keys({"workers", "listeners", "tls", "access_log", "limits", "unknown_host_status",
                   "tokens", "hosts"});
  long workers = root.integer_or("workers", 0, 0, 256);
  cfg->workers = workers == 0 ? std::max(1u, std::thread::hardware_concurrency())
                              : static_cast<unsigned>(workers);
  parse_listeners(root, *cfg);
  parse_tls(root, *cfg);
  if (root.has("access_log")) {
    Field al = root.child("access_log");
    al.allow_keys({"control", "flush_ms"});
    Field ctl = al.required("control");
    cfg->access_log_addr = parse_endpoint(ctl, ctl.string());
    cfg->access_log_enabled = true;
    cfg->access_log_flush_ms =
        static_cast<std::uint32_t>(al.integer_or("flush_ms", 1000, 10, 1000));
  }
  if (root.has("limits")) {
    Field lim = root.child("limits");
    lim.allow_keys({"max_header_bytes", "client_header_timeout_ms", "client_body_timeout_ms",
                    "keepalive_timeout_ms", "send_timeout_ms", "max_connections_per_worker",
                    "h2_max_concurrent_streams"});
    cfg->max_header_bytes =
        static_cast<std::size_t>(lim.integer_or("max_header_bytes", 8192, 256, 65536));
    cfg->client_header_timeout_ms =
        static_cast<std::uint32_t>(lim.integer_or("client_header_timeout_ms", 10000, 1, 3600000));
    cfg->client_body_timeout_ms =
        static_cast<std::uint32_t>(lim.integer_or("client_body_timeout_ms", 60000, 1, 3600000));
    cfg->max_connections_per_worker =
        static_cast<std::uint32_t>(lim.integer_or("max_connections_per_worker", 16384, 1, 1000000));
    cfg->keepalive_timeout_ms =
        static_cast<std::uint32_t>(lim.integer_or("keepalive_timeout_ms", 60000, 1, 3600000));
    cfg->send_timeout_ms =
        static_cast<std::uint32_t>(lim.integer_or("send_timeout_ms", 30000, 1, 3600000));
    cfg->h2_max_concurrent_streams =
        static_cast<std::uint32_t>(lim.integer_or("h2_max_concurrent_streams", 100, 1, 10000));
  }
  long unknown = root.integer_or("unknown_host_status", 421, 400, 599);
  if (unknown != 421 && unknown != 404) {
    root.child("unknown_host_status").fail("expected 421 or 404");
  }
  cfg->unknown_host_status = static_cast<std::uint16_t>(unknown);
  if (root.has("tokens")) cfg->tokens = load_token_keys(root.child("tokens"));
  Field hosts = root.required("hosts");
  hosts.expect_array();
  if (hosts.size() == 0) hosts.fail("expected at least one proxy host");
  for (std::size_t i = 0; i < hosts.size(); ++i) {
    parse_host(hosts.at(i), *cfg, static_cast<int>(i));
  }
  check_token_ids(hosts, cfg->hosts);
  return cfg;
}

}  // namespace

int find_host(const Config& config, std::string_view host_header) {
  std::size_t colon = host_header.rfind(':');
  if (colon != std::string_view::npos) host_header = host_header.substr(0, colon);
  if (!host_header.empty() && host_header.back() == '.') host_header.remove_suffix(1);
  for (std::size_t i = 0; i < config.hosts.size(); ++i) {
    for (const std::string& name : config.hosts[i].names) {
      if (name.size() == host_header.size() && iequals_ascii(host_header, name)) {
        return static_cast<int>(i);
      }
    }
  }
  return config.default_host;
}

std::shared_ptr<const Config> parse_config(const std::string& json_text,
                                           const std::string& origin) {
  const nlohmann::json doc = common::parse_json_text(json_text, origin);
  return config_from(common::JsonField(doc, origin));
}

std::shared_ptr<const Config> load_config(const std::string& path) {
  const nlohmann::json doc = common::read_json_file(path);
  return config_from(common::JsonField(doc, path));
}

}  // namespace gatebench::gateway
