#include "micro/core/cache/freshness.hpp"

#include <algorithm>

#include "micro/core/cache/cache_control.hpp"
#include "micro/core/cache/http_date.hpp"
#include "micro/core/http1/scan.hpp"

namespace gatebench::cache {
namespace {

bool explicit_status(std::uint16_t s) noexcept {
  switch (s) {
    case 200:
    case 203:
    case 204:
    case 300:
    case 301:
    case 302:
    case 307:
    case 308:
    case 404:
    case 405:
    case 410:
    case 414:
    case 501:
      return true;
    default:
      return false;
  }
}

bool heuristic_status(std::uint16_t s) noexcept {
  return s != 302 && s != 307 && explicit_status(s);
}

bool has_vary_star(std::span<const std::string_view> lines) noexcept {
  for (const std::string_view line : lines) {
    // Each line alone: "*" among any number of other names still means "*".
    std::size_t pos = 0;
    while (pos < line.size()) {
      while (pos < line.size() && (line[pos] == ' ' || line[pos] == '\t' || line[pos] == ','))
        ++pos;
      if (pos < line.size() && line[pos] == '*') {
        std::size_t end = pos + 1;
        while (end < line.size() && (line[end] == ' ' || line[end] == '\t')) ++end;
        if (end == line.size() || line[end] == ',') return true;
      }
      while (pos < line.size() && line[pos] != ',') ++pos;
    }
  }
  return false;
}

}  // namespace

std::string_view reason_name(Reason r) noexcept {
  switch (r) {
    case Reason::kStorable:
      return "storable";
    case Reason::kMethod:
      return "method";
    case Reason::kTooManyLines:
      return "too-many-lines";
    case Reason::kMalformed:
      return "malformed";
    case Reason::kNoStore:
      return "no-store";
    case Reason::kPrivate:
      return "private";
    case Reason::kNoCache:
      return "no-cache";
    case Reason::kAuthorization:
      return "authorization";
    case Reason::kSetCookie:
      return "set-cookie";
    case Reason::kVaryStar:
      return "vary-star";
    case Reason::kStatus:
      return "status";
    case Reason::kNoLifetime:
      return "no-lifetime";
    case Reason::kStale:
      return "stale";
  }
  return "unknown";
}

void ResponseCacheHeaders::add(std::string_view name, std::string_view value) noexcept {
  const auto push = [this, value](std::array<std::string_view, kMaxLines>& lines,
                                  std::uint8_t& count) {
    if (count == kMaxLines) {
      overflow = true;
    } else {
      lines[count++] = value;
    }
  };
  switch (name.size()) {
    case 3:
      if (equals_lower(name, "age") && !age) age = value;
      break;
    case 4:
      if (equals_lower(name, "vary")) {
        push(vary_, vary_count_);
      } else if (equals_lower(name, "date") && !date) {
        date = value;
      }
      break;
    case 7:
      if (equals_lower(name, "expires") && !expires) expires = value;
      break;
    case 10:
      if (equals_lower(name, "set-cookie")) set_cookie = true;
      break;
    case 13:
      if (equals_lower(name, "cache-control")) push(cache_control_, cache_control_count_);
      break;
    default:
      break;
  }
}

std::optional<std::size_t> vary_names(std::span<const std::string_view> lines,
                                      std::span<std::string_view> out) noexcept {
  std::size_t count = 0;
  for (const std::string_view line : lines) {
    std::size_t pos = 0;
    for (;;) {
      while (pos < line.size() && (line[pos] == ' ' || line[pos] == '\t' || line[pos] == ','))
        ++pos;
      if (pos >= line.size()) break;
      const std::size_t start = pos;
      while (pos < line.size() && http1::detail::is_tchar(line[pos])) ++pos;
      if (pos == start) return std::nullopt;  // not a token (and not "*", which is a tchar)
      if (count == out.size()) return std::nullopt;
      out[count++] = line.substr(start, pos - start);
      while (pos < line.size() && (line[pos] == ' ' || line[pos] == '\t')) ++pos;
      if (pos < line.size() && line[pos] != ',') return std::nullopt;
    }
  }
  return count;
}

Freshness decide(const ResponseContext& response, const ResponseCacheHeaders& headers,
                 const Policy& policy, std::int64_t now_s) noexcept {
  Freshness f;
  const auto refuse = [&f](Reason r) {
    f.reason = r;
    return f;
  };
  if (response.method == Method::kOther) return refuse(Reason::kMethod);
  if (headers.overflow) return refuse(Reason::kTooManyLines);
  const CacheControl cc = parse_cache_control(headers.cache_control());
  if (cc.malformed) return refuse(Reason::kMalformed);
  if (cc.no_store) return refuse(Reason::kNoStore);
  if (cc.is_private) return refuse(Reason::kPrivate);
  if (cc.no_cache) return refuse(Reason::kNoCache);
  if (response.request_has_authorization && !cc.is_public && !cc.has_s_maxage &&
      !cc.must_revalidate)
    return refuse(Reason::kAuthorization);
  if (headers.set_cookie) return refuse(Reason::kSetCookie);
  if (has_vary_star(headers.vary())) return refuse(Reason::kVaryStar);

  std::optional<std::int64_t> date;
  if (headers.date) date = parse_http_date(*headers.date, now_s);
  const bool explicit_lifetime = cc.has_s_maxage || cc.has_max_age || headers.expires;
  if (!(explicit_lifetime ? explicit_status(response.status) : heuristic_status(response.status)))
    return refuse(Reason::kStatus);

  std::int64_t lifetime = 0;
  if (cc.has_s_maxage) {
    lifetime = cc.s_maxage_valid ? cc.s_maxage : 0;
  } else if (cc.has_max_age) {
    lifetime = cc.max_age_valid ? cc.max_age : 0;
  } else if (headers.expires) {
    const std::optional<std::int64_t> expires = parse_http_date(*headers.expires, now_s);
    lifetime = expires ? *expires - (date ? *date : now_s) : 0;
  } else if (policy.default_ttl_s > 0) {
    lifetime = policy.default_ttl_s;
  } else {
    return refuse(Reason::kNoLifetime);
  }
  lifetime = std::clamp<std::int64_t>(lifetime, 0, kMaxDeltaSeconds);

  std::int64_t age = 0;
  std::uint32_t age_value = 0;
  if (headers.age && parse_delta_seconds(*headers.age, age_value)) age = age_value;
  if (date && now_s > *date) age = std::max<std::int64_t>(age, now_s - *date);
  age = std::min<std::int64_t>(age, kMaxDeltaSeconds);
  if (lifetime <= age) return refuse(Reason::kStale);
  f.lifetime_s = static_cast<std::uint32_t>(lifetime);
  f.age_s = static_cast<std::uint32_t>(age);
  return f;
}

}  // namespace gatebench::cache
