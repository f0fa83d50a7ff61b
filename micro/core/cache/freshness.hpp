// Whether a shared cache may store an upstream response, and for how long (RFC 9111 3 and 4.2):
// the decision a gateway makes once per miss, from the response's status and a handful of its
// headers.
//
//   ResponseCacheHeaders h;
//   for (each header line of the upstream response) h.add(name, value);
//   const Freshness f = decide({method, status, request_has_authorization}, h, policy, now_s);
//   if (f.storable()) store.insert(key, f, h.vary(), response, now_s);
//
// Contract: pure, no allocation, no I/O; `now_s` is the caller's clock in Unix seconds. Rules, in
// order (the first that applies gives the reason):
//   - method other than GET or HEAD -> kMethod;
//   - too many Cache-Control or Vary lines to hold -> kTooManyLines; Cache-Control that is not a
//     directive list -> kMalformed (cache_control.hpp);
//   - no-store -> kNoStore; private -> kPrivate; no-cache -> kNoCache (storing it would need a
//     revalidation on every use, which this cache does not make);
//   - a request with Authorization, unless public, s-maxage or must-revalidate -> kAuthorization;
//   - Set-Cookie -> kSetCookie (one client's cookie must not reach the others: what nginx and
//     Varnish do by default); Vary: * -> kVaryStar (no request could match it);
//   - status: with an explicit lifetime one of 200 203 204 300 301 302 307 308 404 405 410 414
//     501, without one the heuristically cacheable ones (the same minus 302 and 307) -> kStatus;
//   - lifetime: s-maxage, else max-age, else Expires minus Date (minus now when Date is absent or
//     invalid), else policy.default_ttl_s (0: kNoLifetime). An invalid max-age or s-maxage and an
//     invalid Expires (such as "0") mean already stale;
//   - age: the larger of Age and now minus Date; lifetime <= age -> kStale (stale on arrival).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

#include "micro/core/cache/key.hpp"

namespace gatebench::cache {

enum class Reason : std::uint8_t {
  kStorable,
  kMethod,
  kTooManyLines,
  kMalformed,
  kNoStore,
  kPrivate,
  kNoCache,
  kAuthorization,
  kSetCookie,
  kVaryStar,
  kStatus,
  kNoLifetime,
  kStale,
};

// "storable", "method", "too-many-lines", ... (for logs and test messages).
std::string_view reason_name(Reason r) noexcept;

// The headers of one response the decision reads, as views into the caller's buffer.
class ResponseCacheHeaders {
 public:
  static constexpr std::size_t kMaxLines = 8;

  // Records a header line if the decision reads it (name in any case); others are ignored.
  void add(std::string_view name, std::string_view value) noexcept;

  std::span<const std::string_view> cache_control() const noexcept {
    return {cache_control_.data(), cache_control_count_};
  }
  std::span<const std::string_view> vary() const noexcept { return {vary_.data(), vary_count_}; }
  // The first line of each (RFC 9111 4.2.1: use the first of repeated fields).
  std::optional<std::string_view> expires;
  std::optional<std::string_view> date;
  std::optional<std::string_view> age;
  bool set_cookie = false;
  bool overflow = false;  // more than kMaxLines Cache-Control or Vary lines

 private:
  std::array<std::string_view, kMaxLines> cache_control_{};
  std::array<std::string_view, kMaxLines> vary_{};
  std::uint8_t cache_control_count_ = 0;
  std::uint8_t vary_count_ = 0;
};

struct ResponseContext {
  Method method = Method::kGet;  // of the request
  std::uint16_t status = 200;
  bool request_has_authorization = false;
};

struct Policy {
  std::uint32_t default_ttl_s = 0;  // lifetime when the response gives none; 0 = do not store
};

struct Freshness {
  Reason reason = Reason::kStorable;
  std::uint32_t lifetime_s = 0;  // freshness lifetime
  std::uint32_t age_s = 0;       // current age when received

  bool storable() const noexcept { return reason == Reason::kStorable; }
  std::uint32_t ttl_s() const noexcept { return lifetime_s - age_s; }  // > 0 when storable
};

Freshness decide(const ResponseContext& response, const ResponseCacheHeaders& headers,
                 const Policy& policy, std::int64_t now_s) noexcept;

// Vary's field names, as written, into out; "*" is a name too. Returns how many, or nullopt when
// an element is not a token or there are more than out.size().
std::optional<std::size_t> vary_names(std::span<const std::string_view> lines,
                                      std::span<std::string_view> out) noexcept;

}  // namespace gatebench::cache
