#include "micro/peers/cache_naive.hpp"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <map>

namespace gatebench::peers {
namespace {

using cache::Reason;

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::string trim(const std::string& s) {
  const auto first = s.find_first_not_of(" \t");
  if (first == std::string::npos) return "";
  return s.substr(first, s.find_last_not_of(" \t") - first + 1);
}

bool is_token(const std::string& s) {
  static const std::string kSpecials = "!#$%&'*+-.^_`|~";
  if (s.empty()) return false;
  for (const char c : s) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && kSpecials.find(c) == std::string::npos)
      return false;
  }
  return true;
}

// Splits at commas outside quoted strings (a backslash inside quotes escapes the next byte).
std::vector<std::string> split_list(const std::string& line) {
  std::vector<std::string> out;
  std::string current;
  bool quoted = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted && c == '\\' && i + 1 < line.size()) {
      current += c;
      current += line[++i];
      continue;
    }
    if (c == '"') quoted = !quoted;
    if (c == ',' && !quoted) {
      out.push_back(current);
      current.clear();
    } else {
      current += c;
    }
  }
  out.push_back(current);
  return out;
}

// Vary has no quoted strings: every comma separates.
std::vector<std::string> split_commas(const std::string& line) {
  std::vector<std::string> out(1);
  for (const char c : line) {
    if (c == ',') {
      out.emplace_back();
    } else {
      out.back() += c;
    }
  }
  return out;
}

// delta-seconds, clamped to 2^31; nullopt when not all digits.
std::optional<std::int64_t> delta(const std::string& s) {
  if (s.empty() || !std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; }))
    return std::nullopt;
  const std::string digits = s.substr(std::min(s.find_first_not_of('0'), s.size()));
  if (digits.size() > 10) return 2147483648LL;
  return std::min<std::int64_t>(digits.empty() ? 0 : std::stoll(digits), 2147483648LL);
}

// A quoted-string exactly: its content, whether it had escapes; nullopt if it is not one.
std::optional<std::pair<std::string, bool>> unquote(const std::string& s) {
  if (s.size() < 2 || s.front() != '"') return std::nullopt;
  std::string content;
  bool escaped = false;
  std::size_t i = 1;
  for (; i < s.size(); ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c == '"') break;
    if (c == '\\') {
      if (i + 1 >= s.size()) return std::nullopt;
      escaped = true;
      content += s[i];
      content += s[++i];
      continue;
    }
    if ((c < 0x20 && c != '\t') || c == 0x7F) return std::nullopt;
    content += static_cast<char>(c);
  }
  if (i != s.size() - 1) return std::nullopt;  // no closing quote, or text after it
  return std::make_pair(content, escaped);
}

struct Directives {
  bool malformed = false;
  std::map<std::string, std::optional<std::string>> first;  // name -> argument of the first one
  std::map<std::string, bool> numeric_ok;                   // the first one's argument was plain
};

Directives parse_directives(const std::vector<std::string>& lines) {
  Directives d;
  for (const std::string& line : lines) {
    for (const std::string& raw : split_list(line)) {
      const std::string element = trim(raw);
      if (element.empty()) continue;
      const auto eq = element.find('=');
      const std::string name = lower(element.substr(0, eq));
      if (!is_token(name)) {
        d.malformed = true;
        continue;
      }
      std::optional<std::string> arg;
      bool plain = true;
      if (eq != std::string::npos) {
        const std::string value = element.substr(eq + 1);
        if (is_token(value)) {
          arg = value;
        } else if (auto q = unquote(value)) {
          arg = q->first;
          plain = !q->second;
        } else {
          d.malformed = true;
          continue;
        }
      }
      if (!d.first.count(name)) {
        d.first[name] = arg;
        d.numeric_ok[name] = plain;
      }
    }
  }
  return d;
}

// An invalid argument (none, escaped, not digits) reads as 0: stale.
std::int64_t seconds(const Directives& d, const std::string& name) {
  const auto& arg = d.first.at(name);
  if (!arg || !d.numeric_ok.at(name)) return 0;
  return delta(*arg).value_or(0);
}

int month_index(const std::string& m) {
  static const std::vector<std::string> kMonths = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                                   "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
  return static_cast<int>(std::find(kMonths.begin(), kMonths.end(), m) - kMonths.begin());
}

std::optional<std::int64_t> civil(int y, int mon, int d, int h, int mi, int s) {
  // sscanf reads signed numbers ("-1" writes back as "-1"); the date forms have none.
  if (y < 0 || d < 0 || h < 0 || mi < 0 || s < 0) return std::nullopt;
  static const int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  const bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
  const int month_days = kDays[mon] + (mon == 1 && leap ? 1 : 0);
  if (d < 1 || d > month_days || h > 23 || mi > 59 || s > 60) return std::nullopt;
  // Days since 1970 by counting: slow and obviously right.
  std::int64_t days = 0;
  for (int year = 1970; year < y; ++year)
    days += ((year % 4 == 0 && year % 100 != 0) || year % 400 == 0) ? 366 : 365;
  for (int year = y; year < 1970; ++year)
    days -= ((year % 4 == 0 && year % 100 != 0) || year % 400 == 0) ? 366 : 365;
  for (int m = 0; m < mon; ++m) days += kDays[m] + (m == 1 && leap ? 1 : 0);
  days += d - 1;
  return days * 86400 + h * 3600 + mi * 60 + s;
}

}  // namespace

std::optional<std::int64_t> naive_http_date(const std::string& value, std::int64_t now_s) {
  static const std::vector<std::string> kDays = {"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"};
  static const std::vector<std::string> kLongDays = {"Sunday",   "Monday", "Tuesday", "Wednesday",
                                                     "Thursday", "Friday", "Saturday"};
  const auto known = [](const std::vector<std::string>& names, const char* name) {
    return std::find(names.begin(), names.end(), name) != names.end();
  };
  // Read loosely with sscanf, then require that the date written back in the form's exact
  // layout is the input byte for byte.
  char wd[16] = {}, mon[16] = {}, back[64];
  int d = 0, y = 0, h = 0, mi = 0, s = 0, n = -1;
  const char* c = value.c_str();

  if (std::sscanf(c, "%3[A-Za-z], %2d %3[A-Za-z] %4d %2d:%2d:%2d GMT%n", wd, &d, mon, &y, &h, &mi,
                  &s, &n) == 7 &&
      n == static_cast<int>(value.size())) {
    std::snprintf(back, sizeof(back), "%s, %02d %s %04d %02d:%02d:%02d GMT", wd, d, mon, y, h, mi,
                  s);
    if (back != value || !known(kDays, wd) || month_index(mon) == 12) return std::nullopt;
    return civil(y, month_index(mon), d, h, mi, s);
  }
  n = -1;
  if (std::sscanf(c, "%3[A-Za-z] %3[A-Za-z] %2d %2d:%2d:%2d %4d%n", wd, mon, &d, &h, &mi, &s, &y,
                  &n) == 7 &&
      n == static_cast<int>(value.size())) {
    std::snprintf(back, sizeof(back), "%s %s %2d %02d:%02d:%02d %04d", wd, mon, d, h, mi, s, y);
    if (back != value || !known(kDays, wd) || month_index(mon) == 12) return std::nullopt;
    return civil(y, month_index(mon), d, h, mi, s);
  }
  n = -1;
  if (std::sscanf(c, "%9[A-Za-z], %2d-%3[A-Za-z]-%2d %2d:%2d:%2d GMT%n", wd, &d, mon, &y, &h, &mi,
                  &s, &n) == 7 &&
      n == static_cast<int>(value.size())) {
    std::snprintf(back, sizeof(back), "%s, %02d-%s-%02d %02d:%02d:%02d GMT", wd, d, mon, y, h, mi,
                  s);
    if (back != value || !known(kLongDays, wd) || month_index(mon) == 12) return std::nullopt;
    const int now_year = 1970 + static_cast<int>(now_s / 31'556'952);  // close to the year
    int year = 0;
    // The exact current year, counted the slow way from the guess.
    for (int guess = now_year - 1; guess <= now_year + 1; ++guess) {
      if (*civil(guess, 0, 1, 0, 0, 0) <= now_s) year = guess;
    }
    if (y < 0) return std::nullopt;
    int full = year - year % 100 + y;
    if (full > year + 50) full -= 100;
    return civil(full, month_index(mon), d, h, mi, s);
  }
  return std::nullopt;
}

cache::Freshness naive_decide(const NaiveResponse& response, std::uint32_t default_ttl_s,
                              std::int64_t now_s) {
  cache::Freshness f;
  const auto refuse = [&f](Reason r) {
    f.reason = r;
    return f;
  };
  if (response.method == cache::Method::kOther) return refuse(Reason::kMethod);
  std::vector<std::string> cache_control, vary;
  std::optional<std::string> expires, date, age;
  bool set_cookie = false;
  for (const auto& [name, value] : response.headers) {
    const std::string n = lower(name);
    if (n == "cache-control") cache_control.push_back(value);
    if (n == "vary") vary.push_back(value);
    if (n == "expires" && !expires) expires = value;
    if (n == "date" && !date) date = value;
    if (n == "age" && !age) age = value;
    if (n == "set-cookie") set_cookie = true;
  }
  if (cache_control.size() > 8 || vary.size() > 8) return refuse(Reason::kTooManyLines);
  const Directives d = parse_directives(cache_control);
  if (d.malformed) return refuse(Reason::kMalformed);
  if (d.first.count("no-store")) return refuse(Reason::kNoStore);
  if (d.first.count("private")) return refuse(Reason::kPrivate);
  if (d.first.count("no-cache")) return refuse(Reason::kNoCache);
  if (response.request_has_authorization && !d.first.count("public") &&
      !d.first.count("s-maxage") && !d.first.count("must-revalidate"))
    return refuse(Reason::kAuthorization);
  if (set_cookie) return refuse(Reason::kSetCookie);
  for (const std::string& line : vary) {
    for (const std::string& name : split_commas(line)) {
      if (trim(name) == "*") return refuse(Reason::kVaryStar);
    }
  }
  const std::vector<int> heuristic = {200, 203, 204, 300, 301, 308, 404, 405, 410, 414, 501};
  std::vector<int> explicit_ok = heuristic;
  explicit_ok.push_back(302);
  explicit_ok.push_back(307);
  const bool has_explicit = d.first.count("s-maxage") || d.first.count("max-age") || expires;
  const std::vector<int>& allowed = has_explicit ? explicit_ok : heuristic;
  if (std::find(allowed.begin(), allowed.end(), response.status) == allowed.end())
    return refuse(Reason::kStatus);
  bool has_date = false;
  std::int64_t date_s = now_s;  // Date when it is a date, else now
  if (date) {
    if (const auto d = naive_http_date(*date, now_s)) {
      has_date = true;
      date_s = *d;
    }
  }
  std::int64_t lifetime = 0;
  if (d.first.count("s-maxage")) {
    lifetime = seconds(d, "s-maxage");
  } else if (d.first.count("max-age")) {
    lifetime = seconds(d, "max-age");
  } else if (expires) {
    const auto e = naive_http_date(*expires, now_s);
    lifetime = e ? *e - date_s : 0;
  } else if (default_ttl_s > 0) {
    lifetime = default_ttl_s;
  } else {
    return refuse(Reason::kNoLifetime);
  }
  lifetime = std::clamp<std::int64_t>(lifetime, 0, 2147483648LL);
  std::int64_t current_age = 0;
  if (age) current_age = delta(*age).value_or(0);
  if (has_date && now_s > date_s) current_age = std::max(current_age, now_s - date_s);
  current_age = std::min<std::int64_t>(current_age, 2147483648LL);
  if (lifetime <= current_age) return refuse(Reason::kStale);
  f.lifetime_s = static_cast<std::uint32_t>(lifetime);
  f.age_s = static_cast<std::uint32_t>(current_age);
  return f;
}

namespace {

std::string key_string(const cache::RequestKey& key) {
  return std::to_string(static_cast<int>(key.method)) + "\n" + lower(key.host) + "\n" +
         std::string(key.target);
}

std::optional<std::string> combined(std::span<const cache::Header> headers,
                                    const std::string& lower_name) {
  std::optional<std::string> out;
  for (const cache::Header& h : headers) {
    if (lower(h.name) != lower_name) continue;
    out = out ? *out + ", " + std::string(h.value) : std::string(h.value);
  }
  return out;
}

}  // namespace

cache::LookupResult NaiveCacheStore::lookup(const cache::RequestKey& key, std::int64_t now_s) {
  cache::LookupResult r;
  const auto it = map_.find(key_string(key));
  if (it == map_.end()) return r;
  for (const auto& [name, value] : it->second.vary) {
    if (combined(key.headers, name) != value) return r;
  }
  r.response = it->second.response;
  r.age_s = static_cast<std::uint32_t>(
      std::clamp<std::int64_t>(now_s - it->second.age_origin, 0, 0xFFFFFFFFLL));
  r.status =
      now_s >= it->second.expires_at ? cache::LookupStatus::kStale : cache::LookupStatus::kHit;
  return r;
}

cache::InsertStatus NaiveCacheStore::insert(const cache::RequestKey& key,
                                            const cache::Freshness& freshness,
                                            std::span<const std::string_view> vary_lines,
                                            std::string_view response, std::int64_t now_s) {
  using cache::InsertStatus;
  using cache::MemoryStore;
  if (!freshness.storable()) return InsertStatus::kNotStorable;
  if (key.method == cache::Method::kOther || key.host.size() > MemoryStore::kMaxKeyPart ||
      key.target.size() > MemoryStore::kMaxKeyPart)
    return InsertStatus::kBadKey;
  Entry e;
  for (const std::string_view line : vary_lines) {
    for (const std::string& raw : split_commas(std::string(line))) {
      const std::string name = trim(raw);
      if (name.empty()) continue;
      if (!is_token(name) || name == "*" || name.size() > MemoryStore::kMaxVaryName ||
          e.vary.size() == MemoryStore::kMaxVaryNames)
        return InsertStatus::kBadVary;
      auto value = combined(key.headers, lower(name));
      if (value && value->size() > MemoryStore::kMaxVaryValue) return InsertStatus::kBadVary;
      e.vary.emplace_back(lower(name), std::move(value));
    }
  }
  e.response = std::string(response);
  e.expires_at = now_s + freshness.ttl_s();
  e.age_origin = now_s - freshness.age_s;
  map_[key_string(key)] = std::move(e);
  return InsertStatus::kStored;
}

}  // namespace gatebench::peers
