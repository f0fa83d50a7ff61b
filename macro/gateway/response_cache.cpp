#include "macro/gateway/response_cache.hpp"

#include <time.h>

#include <algorithm>
#include <charconv>
#include <cstring>

#include "macro/gateway/response_writer.hpp"
#include "macro/gateway/text_buf.hpp"

namespace gatebench::gateway {

std::string_view cache_status_line(CacheStatus s) {
  switch (s) {
    case CacheStatus::kHit:
      return "X-Cache-Status: hit\r\n";
    case CacheStatus::kMiss:
      return "X-Cache-Status: miss\r\n";
    case CacheStatus::kBypass:
      return "X-Cache-Status: bypass\r\n";
    case CacheStatus::kStale:
      return "X-Cache-Status: stale\r\n";
    case CacheStatus::kNone:
      break;
  }
  return {};
}

std::string_view format_cache_counters(std::span<const CacheCounters> workers,
                                       std::span<char> out) {
  std::uint64_t sum[8] = {};
  for (const CacheCounters& w : workers) {
    const std::atomic<std::uint64_t>* each[8] = {&w.hits,           &w.misses,        &w.bypasses,
                                                 &w.stale,          &w.stored,        &w.refused,
                                                 &w.store_failures, &w.store_timeouts};
    for (int i = 0; i < 8; ++i) sum[i] += each[i]->load(std::memory_order_relaxed);
  }
  static constexpr std::string_view kNames[8] = {"hits",           "misses",        "bypasses",
                                                 "stale",          "stored",        "refused",
                                                 "store_failures", "store_timeouts"};
  TextBuf t(out);
  for (int i = 0; i < 8; ++i) t << (i == 0 ? "" : " ") << kNames[i] << "=" << sum[i];
  return t.view();
}

cache::RequestKey KeyHeaders::key(const RequestHead& req, std::string_view head) {
  const std::size_t n = req.fields.count;
  for (std::size_t i = 0; i < n; ++i) {
    const HeaderLine& h = req.fields.lines[i];
    lines_[i] = {head.substr(h.line_off, h.name_len), head.substr(h.value_off, h.value_len)};
  }
  return {cache::method_from(req.method), req.host, req.target,
          std::span<const cache::Header>(lines_.data(), n)};
}

bool cacheable_request(const RequestHead& req) {
  return req.body == BodyKind::kNone && cache::method_from(req.method) != cache::Method::kOther;
}

bool has_authorization(const RequestHead& req, std::string_view head) {
  for (std::uint16_t i = 0; i < req.fields.count; ++i) {
    const HeaderLine& h = req.fields.lines[i];
    if (h.kind == KnownHeader::kOther &&
        iequals_lower(head.substr(h.line_off, h.name_len), "authorization")) {
      return true;
    }
  }
  return false;
}

bool split_entry(std::string_view bytes, EntryView& out) {
  if (bytes.size() < kEntryPrefix) return false;
  std::uint32_t head_len = 0;
  std::uint16_t status = 0;
  std::memcpy(&head_len, bytes.data(), sizeof head_len);
  std::memcpy(&status, bytes.data() + 4, sizeof status);
  if (head_len > bytes.size() - kEntryPrefix) return false;
  out.status = status;
  out.head = bytes.substr(kEntryPrefix, head_len);
  out.body = bytes.substr(kEntryPrefix + head_len);
  return true;
}

cache::LookupResult redis_entry_lookup(std::string_view value, const cache::RequestKey& key,
                                       std::int64_t now_s) {
  const auto bytes = std::as_bytes(std::span<const char>(value.data(), value.size()));
  if (!cache::entry_valid(bytes) || !cache::entry_primary_matches(bytes.data(), key)) return {};
  return cache::entry_lookup(bytes.data(), key, now_s);
}

std::size_t write_hit_head(char* out, std::size_t cap, std::string_view stored_head,
                           std::uint32_t age_s, CacheStatus status, bool close,
                           bool client_http10) {
  const std::string_view status_line = cache_status_line(status);
  const std::string_view connection = close           ? "Connection: close\r\n"
                                      : client_http10 ? "Connection: keep-alive\r\n"
                                                      : "";
  char age[32] = "Age: ";
  const auto r = std::to_chars(age + 5, age + sizeof age - 2, age_s);
  r.ptr[0] = '\r';
  r.ptr[1] = '\n';
  const std::size_t age_len = static_cast<std::size_t>(r.ptr + 2 - age);
  const std::size_t n = stored_head.size() + age_len + status_line.size() + connection.size() + 2;
  if (n > cap) return 0;
  char* p = out;
  std::memcpy(p, stored_head.data(), stored_head.size());
  p += stored_head.size();
  std::memcpy(p, age, age_len);
  p += age_len;
  std::memcpy(p, status_line.data(), status_line.size());
  p += status_line.size();
  if (!connection.empty()) std::memcpy(p, connection.data(), connection.size());
  p += connection.size();
  p[0] = '\r';
  p[1] = '\n';
  return n;
}

bool examine_response(std::string_view head, const ResponseHead& rh, const RequestHead& req,
                      std::string_view req_head, std::uint32_t default_ttl_s, std::int64_t now_s,
                      CacheCandidate& out) {
  if (rh.body != BodyKind::kLength && rh.body != BodyKind::kNone) return false;
  cache::ResponseCacheHeaders h;
  for (std::uint16_t i = 0; i < rh.fields.count; ++i) {
    const HeaderLine& line = rh.fields.lines[i];
    h.add(head.substr(line.line_off, line.name_len), head.substr(line.value_off, line.value_len));
  }
  const cache::ResponseContext ctx{cache::method_from(req.method), rh.status,
                                   has_authorization(req, req_head)};
  out.freshness = cache::decide(ctx, h, {.default_ttl_s = default_ttl_s}, now_s);
  if (!out.freshness.storable()) return false;
  std::size_t used = 0;
  out.vary_count = 0;
  for (std::string_view v : h.vary()) {
    if (used + v.size() > out.vary_text.size()) return false;  // far beyond any real Vary
    std::memcpy(out.vary_text.data() + used, v.data(), v.size());
    out.vary[out.vary_count++] = std::string_view(out.vary_text.data() + used, v.size());
    used += v.size();
  }
  return true;
}

bool CaptureBuffer::reset(std::size_t n, std::size_t limit) {
  len_ = 0;
  reserved_ = 0;
  if (n > limit) return false;
  if (n > cap_) {
    buf_ = std::make_unique_for_overwrite<char[]>(n);
    cap_ = n;
  }
  reserved_ = n;
  return true;
}

bool CaptureBuffer::append(std::string_view s) {
  if (s.size() > reserved_ - len_) return false;
  if (!s.empty()) std::memcpy(buf_.get() + len_, s.data(), s.size());
  len_ += s.size();
  return true;
}

bool begin_entry(CaptureBuffer& cap, std::string_view head, const ResponseHead& rh,
                 SecurityHeaders sh, std::uint64_t body_len, std::size_t max_entry_bytes) {
  // The stored head is never longer than the upstream's plus the security lines.
  const std::size_t head_room = rh.head_len + security_header_lines(sh).size() + 32;
  if (body_len > max_entry_bytes) return false;
  if (!cap.reset(kEntryPrefix + head_room + static_cast<std::size_t>(body_len),
                 kEntryPrefix + head_room + max_entry_bytes)) {
    return false;
  }
  const std::size_t n = write_stored_head(cap.data() + kEntryPrefix, head_room, head, rh, sh);
  if (n == 0 || n + body_len > max_entry_bytes) return false;
  const auto head_len = static_cast<std::uint32_t>(n);
  const std::uint16_t status = rh.status;
  std::memcpy(cap.data(), &head_len, sizeof head_len);
  std::memcpy(cap.data() + 4, &status, sizeof status);
  std::memset(cap.data() + 6, 0, 2);
  cap.set_len(kEntryPrefix + n);
  cap.limit(kEntryPrefix + n + static_cast<std::size_t>(body_len));
  return true;
}

std::unique_ptr<cache::MemoryStore> make_memory_cache(const CacheConfig& c) {
  const std::size_t entries = std::clamp<std::size_t>(c.max_bytes / 1024, 256, 1u << 20);
  return std::make_unique<cache::MemoryStore>(cache::StoreLimits{
      .max_bytes = c.max_bytes, .max_entries = entries, .max_entry_bytes = c.max_bytes});
}

std::string_view redis_key(std::uint64_t hash, char (&out)[kRedisKeyLen]) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::memcpy(out, "gbc:", 4);
  for (int i = 0; i < 16; ++i) out[4 + i] = kHex[(hash >> (60 - 4 * i)) & 15];
  return {out, kRedisKeyLen};
}

std::int64_t cache_now_s() {
  timespec ts;
  clock_gettime(CLOCK_REALTIME_COARSE, &ts);
  return static_cast<std::int64_t>(ts.tv_sec);
}

}  // namespace gatebench::gateway
