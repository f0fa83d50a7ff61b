#include "micro/peers/access_log_re2.hpp"

#include <charconv>
#include <cstring>
#include <ctime>
#include <stdexcept>
#include <string>

namespace gatebench::peers {
namespace {

using namespace access_log;

// Pieces of the expressions; Latin-1 mode so every byte is one character.
const std::string kTime = R"(([0-9]{1,10}(?:\.[0-9]{1,6})?))";
const std::string kIp = R"(([0-9]{1,3}(?:\.[0-9]{1,3}){3}))";
const std::string kDuration = R"((-|[0-9]{1,10}(?:\.[0-9]{1,6})?))";
const std::string kTsvString = R"(((?:[^\t\n\\]|\\[\\tnr]|\\x[0-9A-Fa-f]{2})*))";
const std::string kNginxString = R"(((?:[^"\\\n]|\\x[0-9A-Fa-f]{2})*))";
const std::string kJsonWs = R"([ \t\r]*)";
const std::string kJsonString = R"((null|"(?:[^"\\\x00-\x1f]|\\["\\/bfnrt]|\\u[0-9A-Fa-f]{4})*"))";
const std::string kActions = "-|allow|block|challenge|queue|ratelimit|detect";

std::string tsv_expression() {
  return kTime + "\t" + kIp + "\t([A-Z]{1,16})\t(https?)\t" + kTsvString + "\t" + kTsvString +
         "\t" + kTsvString + "\t([1-5][0-9]{2})\t([0-9]{1,19})\t" + kDuration + "\t" + kDuration +
         "\t" + kTsvString + "\t" + kTsvString + "\t" + kTsvString + "\t(" + kActions + ")";
}

std::string combined_expression() {
  return kIp +
         R"( - [^ \n]+ \[([0-9]{2})/([A-Za-z]{3})/([0-9]{4}):([0-9]{2}):([0-9]{2}):([0-9]{2}) ([+-])([0-9]{2})([0-9]{2})\] ")" +
         kNginxString + R"(" ([1-5][0-9]{2}) ([0-9]{1,19}) ")" + kNginxString + R"(" ")" +
         kNginxString + "\"";
}

std::string jsonl_expression() {
  const std::string& w = kJsonWs;
  auto key = [&](const char* k, bool first = false) {
    return (first ? std::string() : w + "," + w) + "\"" + k + "\"" + w + ":" + w;
  };
  const std::string duration = R"((null|[0-9]{1,10}(?:\.[0-9]{1,6})?))";
  return w + "\\{" + w + key("time", true) + kTime + key("client") + "\"" + kIp + "\"" +
         key("method") + "\"([A-Z]{1,16})\"" + key("scheme") + "\"(https?)\"" + key("host") +
         kJsonString + key("path") + kJsonString + key("query") + kJsonString + key("status") +
         "([1-5][0-9]{2})" + key("bytes") + "([0-9]{1,19})" + key("request_time") + duration +
         key("upstream_time") + duration + key("user_agent") + kJsonString + key("referer") +
         kJsonString + key("rule") + kJsonString + key("action") + "(null|\"(?:" + kActions +
         ")\")" + w + "\\}" + w;
}

std::string_view sv(const re2::StringPiece& p) {
  return {p.data(), p.size()};
}

bool to_u64(std::string_view s, std::uint64_t& out) {
  const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc() && ptr == s.data() + s.size();
}

bool seconds_to_us(std::string_view s, std::int64_t& out) {
  const std::size_t dot = s.find('.');
  std::uint64_t whole = 0;
  if (!to_u64(s.substr(0, dot), whole)) return false;
  std::int64_t frac = 0;
  if (dot != std::string_view::npos) {
    std::string digits(s.substr(dot + 1));
    digits.resize(6, '0');
    std::uint64_t f = 0;
    if (!to_u64(digits, f)) return false;
    frac = static_cast<std::int64_t>(f);
  }
  out = static_cast<std::int64_t>(whole) * 1'000'000 + frac;
  return true;
}

bool duration_to_us(std::string_view s, std::int64_t& out) {
  if (s == "-" || s == "null") {
    out = kAbsent;
    return true;
  }
  return seconds_to_us(s, out);
}

bool ip_to_u32(std::string_view s, std::uint32_t& out) {
  std::uint32_t ip = 0;
  for (int i = 0; i < 4; ++i) {
    const std::size_t dot = s.find('.');
    std::uint64_t octet = 0;
    if (!to_u64(s.substr(0, dot), octet) || octet > 255) return false;
    ip = ip << 8 | static_cast<std::uint32_t>(octet);
    s = dot == std::string_view::npos ? std::string_view() : s.substr(dot + 1);
  }
  out = ip;
  return true;
}

// The raw view of a string field and whether it holds an escape.
void set_string(std::string_view raw, std::string_view& field, std::uint8_t& escaped,
                std::uint8_t bit, bool dash_is_empty) {
  if (dash_is_empty && raw == "-") raw = {};
  field = raw;
  if (raw.find('\\') != std::string_view::npos) escaped |= bit;
}

// A JSON capture: null, or a quoted string whose content is the view.
void set_json_string(std::string_view capture, std::string_view& field, std::uint8_t& escaped,
                     std::uint8_t bit) {
  set_string(capture == "null" ? std::string_view() : capture.substr(1, capture.size() - 2), field,
             escaped, bit, false);
}

bool parse_method(std::string_view token, Method& out) {
  out = method_from_token(token);
  return true;
}

}  // namespace

Re2AccessLogParser::Re2AccessLogParser(Format format) : format_(format) {
  RE2::Options options;
  options.set_encoding(RE2::Options::EncodingLatin1);
  options.set_log_errors(false);
  options.set_max_mem(64 << 20);
  std::string expr;
  switch (format) {
    case Format::tsv:
      expr = tsv_expression();
      break;
    case Format::combined:
      expr = combined_expression();
      break;
    case Format::jsonl:
      expr = jsonl_expression();
      break;
  }
  line_ = std::make_unique<re2::RE2>(expr, options);
  request_ = std::make_unique<re2::RE2>(R"(([A-Z]{1,16}) (.+) HTTP/[0-9]\.[0-9])", options);
  if (!line_->ok() || !request_->ok()) {
    throw std::runtime_error("access-log RE2 peer: bad expression: " + line_->error());
  }
}

Re2AccessLogParser::~Re2AccessLogParser() = default;

bool Re2AccessLogParser::parse_line(std::string_view line, AccessLogRecord& r) const {
  constexpr int kMax = 16;
  re2::StringPiece cap[kMax];
  RE2::Arg args[kMax];
  const RE2::Arg* argp[kMax];
  const int n = line_->NumberOfCapturingGroups();
  for (int i = 0; i < n; ++i) {
    args[i] = RE2::Arg(&cap[i]);
    argp[i] = &args[i];
  }
  if (!RE2::FullMatchN(re2::StringPiece(line.data(), line.size()), *line_, argp, n)) return false;
  r = AccessLogRecord{};
  std::uint8_t esc = 0;
  if (format_ == Format::combined) {
    if (!ip_to_u32(sv(cap[0]), r.client_ip)) return false;
    static constexpr const char* kMonths[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                              "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
    int month = -1;
    for (int m = 0; m < 12; ++m) {
      if (sv(cap[2]) == kMonths[m]) month = m;
    }
    std::uint64_t day, year, hour, minute, second, zh, zm;
    if (month < 0 || !to_u64(sv(cap[1]), day) || !to_u64(sv(cap[3]), year) ||
        !to_u64(sv(cap[4]), hour) || !to_u64(sv(cap[5]), minute) || !to_u64(sv(cap[6]), second) ||
        !to_u64(sv(cap[8]), zh) || !to_u64(sv(cap[9]), zm) || zh > 23 || zm > 59) {
      return false;
    }
    std::tm tm{};
    tm.tm_year = static_cast<int>(year) - 1900;
    tm.tm_mon = month;
    tm.tm_mday = static_cast<int>(day);
    tm.tm_hour = static_cast<int>(hour);
    tm.tm_min = static_cast<int>(minute);
    tm.tm_sec = static_cast<int>(second);
    const std::tm asked = tm;
    const std::time_t t = timegm(&tm);
    // timegm normalises 31 Feb or 24:00; a date that does not survive the round trip is bad.
    if (tm.tm_year != asked.tm_year || tm.tm_mon != asked.tm_mon || tm.tm_mday != asked.tm_mday ||
        tm.tm_hour != asked.tm_hour || tm.tm_min != asked.tm_min || tm.tm_sec != asked.tm_sec) {
      return false;
    }
    const std::int64_t zone = static_cast<std::int64_t>(zh * 3600 + zm * 60);
    r.time_us = (static_cast<std::int64_t>(t) + (sv(cap[7]) == "+" ? -zone : zone)) * 1'000'000;
    re2::StringPiece method, target;
    if (!RE2::FullMatch(cap[10], *request_, &method, &target)) return false;
    parse_method(sv(method), r.method);
    const std::string_view tgt = sv(target);
    const std::size_t q = tgt.find('?');
    set_string(tgt.substr(0, q), r.path, esc, kEscPath, false);
    set_string(q == std::string_view::npos ? std::string_view() : tgt.substr(q + 1), r.query, esc,
               kEscQuery, false);
    std::uint64_t status;
    if (!to_u64(sv(cap[11]), status) || !to_u64(sv(cap[12]), r.bytes_sent)) return false;
    r.status = static_cast<std::uint16_t>(status);
    set_string(sv(cap[13]), r.referer, esc, kEscReferer, true);
    set_string(sv(cap[14]), r.user_agent, esc, kEscUserAgent, true);
    r.escaped = esc;
    return true;
  }
  // tsv and jsonl share the field order.
  const bool json = format_ == Format::jsonl;
  if (!seconds_to_us(sv(cap[0]), r.time_us) || !ip_to_u32(sv(cap[1]), r.client_ip)) return false;
  parse_method(sv(cap[2]), r.method);
  r.scheme = sv(cap[3]) == "https" ? Scheme::https : Scheme::http;
  std::uint64_t status;
  if (!to_u64(sv(cap[7]), status) || !to_u64(sv(cap[8]), r.bytes_sent) ||
      !duration_to_us(sv(cap[9]), r.request_time_us) ||
      !duration_to_us(sv(cap[10]), r.upstream_time_us)) {
    return false;
  }
  r.status = static_cast<std::uint16_t>(status);
  std::string_view* strings[] = {&r.host, &r.path, &r.query, &r.user_agent, &r.referer, &r.rule_id};
  const int string_caps[] = {4, 5, 6, 11, 12, 13};
  const std::uint8_t bits[] = {kEscHost,      kEscPath,    kEscQuery,
                               kEscUserAgent, kEscReferer, kEscRuleId};
  for (int i = 0; i < 6; ++i) {
    if (json) {
      set_json_string(sv(cap[string_caps[i]]), *strings[i], esc, bits[i]);
    } else {
      set_string(sv(cap[string_caps[i]]), *strings[i], esc, bits[i], true);
    }
  }
  std::string_view action = sv(cap[14]);
  if (json) action = action == "null" ? "-" : action.substr(1, action.size() - 2);
  if (!action_from_token(action, r.action)) return false;
  r.escaped = esc;
  return true;
}

BatchResult Re2AccessLogParser::parse(std::string_view buffer, std::span<AccessLogRecord> records,
                                      std::span<AccessLogError> errors) const {
  BatchResult res;
  std::size_t pos = 0;
  while (pos < buffer.size() && res.records < records.size() && res.errors < errors.size()) {
    std::size_t nl = buffer.find('\n', pos);
    if (nl == std::string_view::npos) nl = buffer.size();
    const std::string_view line = buffer.substr(pos, nl - pos);
    if (!line.empty() && parse_line(line, records[res.records])) {
      ++res.records;
    } else {
      errors[res.errors++] = {pos, pos,
                              line.empty() ? ErrorReason::empty_line : ErrorReason::bad_syntax};
    }
    pos = nl + 1 < buffer.size() ? nl + 1 : buffer.size();
  }
  res.consumed = pos;
  return res;
}

}  // namespace gatebench::peers
