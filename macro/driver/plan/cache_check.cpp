#include "macro/driver/plan/cache_check.hpp"

#include <algorithm>
#include <cstdio>

namespace gatebench::macro {

namespace {

bool is_token(const std::string& text) {
  return !text.empty() && std::all_of(text.begin(), text.end(), [](char c) {
    return c > ' ' && c < 127 &&
           std::string_view("()<>@,;:\\\"/[]?={}").find(c) == std::string_view::npos;
  });
}

}  // namespace

CacheCheck parse_cache_check(const common::JsonField& f) {
  f.expect_object();
  f.allow_only({"status_header", "hit_values", "expect_hit_ratio"});
  CacheCheck check;
  check.status_header = f.child("status_header").string();
  if (!is_token(check.status_header))
    f.child("status_header").fail("expected a header name such as X-Cache-Status");
  const common::JsonField hits = f.child("hit_values");
  check.hit_values = hits.strings();
  if (check.hit_values.empty()) hits.fail("expected a non-empty array of header values");
  const common::JsonField range = f.child("expect_hit_ratio");
  range.expect_array();
  if (range.size() != 2) range.fail("expected [lowest, highest], two numbers from 0 to 1");
  check.expect_lo = range.at(0).number(0, 1);
  check.expect_hi = range.at(1).number(0, 1);
  if (check.expect_lo > check.expect_hi) range.fail("expected the lowest ratio first");
  return check;
}

std::string counted_name(const CacheCheck& check) {
  std::string out = check.status_header;
  std::transform(out.begin(), out.end(), out.begin(), [](char c) {
    return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
  });
  return out;
}

std::optional<double> hit_ratio(const CacheCheck& check, const LoadResult& load) {
  const auto it = load.header_counts.find(counted_name(check));
  if (it == load.header_counts.end()) return std::nullopt;
  std::uint64_t hits = 0, total = 0;
  for (const auto& [value, n] : it->second) {
    total += n;
    if (std::find(check.hit_values.begin(), check.hit_values.end(), value) !=
        check.hit_values.end())
      hits += n;
  }
  if (total == 0) return std::nullopt;
  return static_cast<double>(hits) / static_cast<double>(total);
}

std::optional<std::string> hit_ratio_failure(const CacheCheck& check,
                                             const std::optional<double>& ratio) {
  char text[192];
  if (!ratio) {
    std::snprintf(text, sizeof text, "no response counted for the cache's %s header",
                  check.status_header.c_str());
    return text;
  }
  if (*ratio >= check.expect_lo && *ratio <= check.expect_hi) return std::nullopt;
  std::snprintf(text, sizeof text, "hit ratio %.4f outside the expected [%g, %g] (%s)", *ratio,
                check.expect_lo, check.expect_hi, check.status_header.c_str());
  return text;
}

}  // namespace gatebench::macro
