// libFuzzer target for the freshness decision (Cache-Control, Expires, Date, Age, Vary) and HTTP
// dates. Input: a first line of flags (method, status, Authorization, default TTL), then one
// header line per '\n', whose first byte picks the name. No oracle is linked into the fuzz build,
// so the checks are properties the rules promise:
//   - a storable decision has 0 <= age < lifetime <= 2^31;
//   - directive names are case-insensitive: upper-casing every Cache-Control value decides alike;
//   - a list split over lines is one list: when no line is malformed alone, joining the lines
//     with ", " decides alike;
//   - adding a no-store line makes any response that got past the syntax checks kNoStore;
//   - every date that parses formats back (IMF-fixdate) to a date that parses to the same time.
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "micro/core/cache/cache.hpp"

namespace {

using namespace gatebench::cache;

constexpr std::int64_t kNow = 1'764'590'400;
constexpr std::array<std::string_view, 7> kNames = {
    "Cache-Control", "Vary", "Expires", "Date", "Age", "Set-Cookie", "X-Other"};

struct Line {
  std::string_view name;
  std::string value;
};

Freshness run(const ResponseContext& ctx, const std::vector<Line>& lines, const Policy& policy) {
  ResponseCacheHeaders h;
  for (const Line& l : lines) h.add(l.name, l.value);
  const Freshness f = decide(ctx, h, policy, kNow);
  if (f.storable() && !(f.age_s < f.lifetime_s && f.lifetime_s <= kMaxDeltaSeconds)) std::abort();
  return f;
}

bool same(const Freshness& a, const Freshness& b) {
  return a.reason == b.reason && a.lifetime_s == b.lifetime_s && a.age_s == b.age_s;
}

void check_date(std::string_view value) {
  const std::optional<std::int64_t> t = parse_http_date(value, kNow);
  if (!t || *t < -62'135'596'800 || *t > 253'402'300'799) return;  // years 1..9999 format
  char buf[29];
  format_imf_fixdate(*t, buf);
  // A leap second (:60) formats as the next minute, the same instant.
  if (parse_http_date({buf, sizeof(buf)}, kNow) != t) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const std::size_t first_end = std::min(input.find('\n'), input.size());
  const std::string_view flags = input.substr(0, first_end);
  const auto flag = [&flags](std::size_t i) {
    return i < flags.size() ? static_cast<unsigned char>(flags[i]) : 0u;
  };
  static constexpr std::array<std::uint16_t, 8> kStatuses = {200, 203, 206, 302,
                                                             307, 404, 500, 501};
  const ResponseContext ctx{flag(0) % 16 == 0 ? Method::kOther : Method::kGet,
                            kStatuses[flag(1) % kStatuses.size()], (flag(2) & 1) != 0};
  const Policy policy{.default_ttl_s = flag(3)};

  std::vector<Line> lines;
  for (std::size_t pos = first_end + 1; pos < input.size() && lines.size() < 32;) {
    const std::size_t end = std::min(input.find('\n', pos), input.size());
    const std::string_view raw = input.substr(pos, end - pos);
    pos = end + 1;
    if (raw.empty()) continue;
    lines.push_back(
        {kNames[static_cast<unsigned char>(raw[0]) % kNames.size()], std::string(raw.substr(1))});
    check_date(lines.back().value);
  }
  const Freshness base = run(ctx, lines, policy);

  std::vector<Line> upper = lines;
  for (Line& l : upper) {
    if (l.name != "Cache-Control") continue;
    for (char& c : l.value) {
      if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
    }
  }
  if (!same(run(ctx, upper, policy), base)) std::abort();

  std::vector<Line> joined;
  std::string list;
  bool any_malformed = false;
  std::size_t cache_control_lines = 0;
  for (const Line& l : lines) {
    if (l.name != "Cache-Control") {
      joined.push_back(l);
      continue;
    }
    const std::array<std::string_view, 1> one = {l.value};
    any_malformed = any_malformed || parse_cache_control(one).malformed;
    list += (cache_control_lines++ == 0 ? "" : ", ") + l.value;
  }
  if (!any_malformed && cache_control_lines > 0 &&
      cache_control_lines <= ResponseCacheHeaders::kMaxLines) {
    joined.push_back({"Cache-Control", list});
    if (!same(run(ctx, joined, policy), base)) std::abort();
  }

  if (base.reason != Reason::kMethod && base.reason != Reason::kTooManyLines &&
      base.reason != Reason::kMalformed && cache_control_lines < ResponseCacheHeaders::kMaxLines) {
    std::vector<Line> no_store = lines;
    no_store.push_back({"cache-control", "no-store"});
    if (run(ctx, no_store, policy).reason != Reason::kNoStore) std::abort();
  }
  return 0;
}
