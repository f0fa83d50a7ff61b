#include "micro/core/cache/http_date.hpp"

#include <array>
#include <chrono>

namespace gatebench::cache {
namespace {

constexpr std::array<std::string_view, 7> kDays = {"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"};
constexpr std::array<std::string_view, 7> kLongDays = {"Sunday",   "Monday", "Tuesday", "Wednesday",
                                                       "Thursday", "Friday", "Saturday"};
constexpr std::array<std::string_view, 12> kMonths = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                                      "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};

// A left-to-right reader: each step consumes exactly what it expects or fails.
class Reader {
 public:
  explicit Reader(std::string_view s) : s_(s) {}

  bool literal(std::string_view lit) noexcept {
    if (s_.substr(pos_, lit.size()) != lit) return false;
    pos_ += lit.size();
    return true;
  }
  // Exactly n decimal digits.
  bool digits(std::size_t n, int& out) noexcept {
    if (s_.size() - pos_ < n) return false;
    int v = 0;
    for (std::size_t i = 0; i < n; ++i) {
      const char c = s_[pos_ + i];
      if (c < '0' || c > '9') return false;
      v = v * 10 + (c - '0');
    }
    pos_ += n;
    out = v;
    return true;
  }
  template <std::size_t N>
  bool one_of(const std::array<std::string_view, N>& names, int& index) noexcept {
    for (std::size_t i = 0; i < N; ++i) {
      if (literal(names[i])) {
        index = static_cast<int>(i);
        return true;
      }
    }
    return false;
  }
  bool at_end() const noexcept { return pos_ == s_.size(); }

 private:
  std::string_view s_;
  std::size_t pos_ = 0;
};

struct Fields {
  int year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0;
};

bool read_time(Reader& r, Fields& f) noexcept {
  return r.digits(2, f.hour) && r.literal(":") && r.digits(2, f.minute) && r.literal(":") &&
         r.digits(2, f.second);
}

// "Sun, 06 Nov 1994 08:49:37 GMT"
bool imf_fixdate(std::string_view s, Fields& f) noexcept {
  Reader r(s);
  int ignored = 0;
  return r.one_of(kDays, ignored) && r.literal(", ") && r.digits(2, f.day) && r.literal(" ") &&
         r.one_of(kMonths, f.month) && r.literal(" ") && r.digits(4, f.year) && r.literal(" ") &&
         read_time(r, f) && r.literal(" GMT") && r.at_end();
}

// "Sunday, 06-Nov-94 08:49:37 GMT"; the year's two digits only.
bool rfc850_date(std::string_view s, Fields& f) noexcept {
  Reader r(s);
  int ignored = 0;
  return r.one_of(kLongDays, ignored) && r.literal(", ") && r.digits(2, f.day) && r.literal("-") &&
         r.one_of(kMonths, f.month) && r.literal("-") && r.digits(2, f.year) && r.literal(" ") &&
         read_time(r, f) && r.literal(" GMT") && r.at_end();
}

// "Sun Nov  6 08:49:37 1994" (a one-digit day is space-padded)
bool asctime_date(std::string_view s, Fields& f) noexcept {
  Reader r(s);
  int ignored = 0;
  if (!(r.one_of(kDays, ignored) && r.literal(" ") && r.one_of(kMonths, f.month) && r.literal(" ")))
    return false;
  if (r.literal(" ")) {
    if (!r.digits(1, f.day)) return false;
  } else if (!r.digits(2, f.day)) {
    return false;
  }
  return r.literal(" ") && read_time(r, f) && r.literal(" ") && r.digits(4, f.year) && r.at_end();
}

std::optional<std::int64_t> to_seconds(const Fields& f) noexcept {
  using namespace std::chrono;
  const year_month_day ymd{year{f.year}, month{static_cast<unsigned>(f.month + 1)},
                           day{static_cast<unsigned>(f.day)}};
  if (!ymd.ok() || f.hour > 23 || f.minute > 59 || f.second > 60) return std::nullopt;
  const std::int64_t days = sys_days{ymd}.time_since_epoch().count();
  return days * 86400 + f.hour * 3600 + f.minute * 60 + f.second;
}

int year_of(std::int64_t t) noexcept {
  using namespace std::chrono;
  const sys_days d{days{t >= 0 ? t / 86400 : (t - 86399) / 86400}};
  return static_cast<int>(year_month_day{d}.year());
}

}  // namespace

std::optional<std::int64_t> parse_http_date(std::string_view value, std::int64_t now_s) noexcept {
  Fields f;
  if (imf_fixdate(value, f) || asctime_date(value, f)) return to_seconds(f);
  if (!rfc850_date(value, f)) return std::nullopt;
  // RFC 9110 5.6.7: more than 50 years in the future means the most recent past such year.
  const int now_year = year_of(now_s);
  int year = now_year - now_year % 100 + f.year;
  if (year > now_year + 50) year -= 100;
  f.year = year;
  return to_seconds(f);
}

void format_imf_fixdate(std::int64_t t, char (&out)[29]) noexcept {
  using namespace std::chrono;
  const std::int64_t day_count = t >= 0 ? t / 86400 : (t - 86399) / 86400;
  const std::int64_t secs = t - day_count * 86400;
  const sys_days d{days{day_count}};
  const year_month_day ymd{d};
  const unsigned weekday = std::chrono::weekday{d}.c_encoding();
  const auto put2 = [&out](std::size_t at, unsigned v) {
    out[at] = static_cast<char>('0' + v / 10 % 10);
    out[at + 1] = static_cast<char>('0' + v % 10);
  };
  const std::string_view wd = kDays[weekday];
  const std::string_view mon = kMonths[static_cast<unsigned>(ymd.month()) - 1];
  const unsigned y = static_cast<unsigned>(static_cast<int>(ymd.year()));
  out[0] = wd[0], out[1] = wd[1], out[2] = wd[2], out[3] = ',', out[4] = ' ';
  put2(5, static_cast<unsigned>(ymd.day()));
  out[7] = ' ', out[8] = mon[0], out[9] = mon[1], out[10] = mon[2], out[11] = ' ';
  put2(12, y / 100);
  put2(14, y % 100);
  out[16] = ' ';
  put2(17, static_cast<unsigned>(secs / 3600));
  out[19] = ':';
  put2(20, static_cast<unsigned>(secs / 60 % 60));
  out[22] = ':';
  put2(23, static_cast<unsigned>(secs % 60));
  out[25] = ' ', out[26] = 'G', out[27] = 'M', out[28] = 'T';
}

}  // namespace gatebench::cache
