#include "micro/peers/access_log_simdjson.hpp"

#include <simdjson.h>

#include <cmath>
#include <cstring>

namespace gatebench::peers {
namespace {

using namespace access_log;
namespace od = simdjson::ondemand;

static_assert(SimdjsonAccessLogParser::kPadding >= simdjson::SIMDJSON_PADDING);

bool ip_from_text(std::string_view s, std::uint32_t& out) {
  std::uint32_t ip = 0;
  std::size_t i = 0;
  for (int octet = 0; octet < 4; ++octet) {
    if (octet) {
      if (i >= s.size() || s[i] != '.') return false;
      ++i;
    }
    std::uint32_t v = 0;
    std::size_t digits = 0;
    while (i < s.size() && digits < 3 && s[i] >= '0' && s[i] <= '9') {
      v = v * 10 + static_cast<std::uint32_t>(s[i++] - '0');
      ++digits;
    }
    if (digits == 0 || v > 255) return false;
    ip = ip << 8 | v;
  }
  out = ip;
  return i == s.size();
}

bool seconds(od::value v, std::int64_t& out) {
  double d;
  if (v.get_double().get(d) || !(d >= 0) || d > 1e10) return false;
  out = std::llround(d * 1e6);
  return true;
}

bool optional_seconds(od::value v, std::int64_t& out) {
  bool null = false;
  if (v.is_null().get(null)) return false;
  if (null) {
    out = kAbsent;
    return true;
  }
  return seconds(v, out);
}

// A string (raw bytes between the quotes) or null (empty).
bool raw_string(od::value v, std::string_view& out, std::uint8_t& escaped, std::uint8_t bit) {
  od::json_type t;
  if (v.type().get(t)) return false;
  if (t == od::json_type::null) {
    out = {};
    return v.is_null().error() == simdjson::SUCCESS;
  }
  if (t != od::json_type::string) return false;
  std::string_view tok = v.raw_json_token();
  while (!tok.empty() && tok.back() != '"') tok.remove_suffix(1);  // trailing whitespace
  if (tok.size() < 2) return false;
  out = tok.substr(1, tok.size() - 2);
  if (std::memchr(out.data(), '\\', out.size())) escaped |= bit;
  return true;
}

bool parse_line(od::parser& parser, const char* p, std::size_t len, std::size_t capacity,
                AccessLogRecord& r) {
  od::document doc;
  if (parser.iterate(p, len, capacity).get(doc)) return false;
  od::object obj;
  if (doc.get_object().get(obj)) return false;
  std::uint32_t seen = 0;
  std::uint8_t esc = 0;
  auto once = [&](int bit) {
    if (seen & (1u << bit)) return false;
    seen |= 1u << bit;
    return true;
  };
  for (auto field_result : obj) {
    od::field field;
    if (std::move(field_result).get(field)) return false;
    std::string_view key;
    if (field.unescaped_key().get(key)) return false;
    od::value v = field.value();
    std::string_view s;
    std::uint64_t u = 0;
    bool ok = true;
    if (key == "time") {
      ok = once(0) && seconds(v, r.time_us);
    } else if (key == "client") {
      ok = once(1) && !v.get_string().get(s) && ip_from_text(s, r.client_ip);
    } else if (key == "method") {
      ok = once(2) && !v.get_string().get(s) && !s.empty() && s.size() <= 16 &&
           s.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZ") == std::string_view::npos;
      if (ok) r.method = method_from_token(s);
    } else if (key == "scheme") {
      ok = once(3) && !v.get_string().get(s) && (s == "http" || s == "https");
      if (ok) r.scheme = s == "https" ? Scheme::https : Scheme::http;
    } else if (key == "host") {
      ok = once(4) && raw_string(v, r.host, esc, kEscHost);
    } else if (key == "path") {
      ok = once(5) && raw_string(v, r.path, esc, kEscPath);
    } else if (key == "query") {
      ok = once(6) && raw_string(v, r.query, esc, kEscQuery);
    } else if (key == "status") {
      ok = once(7) && !v.get_uint64().get(u) && u >= 100 && u <= 599;
      r.status = static_cast<std::uint16_t>(u);
    } else if (key == "bytes") {
      ok = once(8) && !v.get_uint64().get(r.bytes_sent);
    } else if (key == "request_time") {
      ok = once(9) && optional_seconds(v, r.request_time_us);
    } else if (key == "upstream_time") {
      ok = once(10) && optional_seconds(v, r.upstream_time_us);
    } else if (key == "user_agent") {
      ok = once(11) && raw_string(v, r.user_agent, esc, kEscUserAgent);
    } else if (key == "referer") {
      ok = once(12) && raw_string(v, r.referer, esc, kEscReferer);
    } else if (key == "rule") {
      ok = once(13) && raw_string(v, r.rule_id, esc, kEscRuleId);
    } else if (key == "action") {
      bool null = false;
      ok = once(14) && !v.is_null().get(null);
      if (ok && null) {
        r.action = Action::none;
      } else if (ok) {
        ok = !v.get_string().get(s) && action_from_token(s, r.action);
      }
    }
    if (!ok) return false;
  }
  r.escaped = esc;
  // simdjson 3.0 has no at_end(): past the last token current_location() reports out of bounds,
  // anything else is trailing content.
  const char* trailing = nullptr;
  return seen == (1u << 15) - 1 && doc.current_location().get(trailing) != simdjson::SUCCESS;
}

}  // namespace

struct SimdjsonAccessLogParser::Impl {
  od::parser parser;
};

SimdjsonAccessLogParser::SimdjsonAccessLogParser() : impl_(std::make_unique<Impl>()) {}
SimdjsonAccessLogParser::~SimdjsonAccessLogParser() = default;

BatchResult SimdjsonAccessLogParser::parse(std::string_view buffer,
                                           std::span<AccessLogRecord> records,
                                           std::span<AccessLogError> errors) {
  BatchResult res;
  const char* const d = buffer.data();
  const std::size_t n = buffer.size();
  std::size_t pos = 0;
  while (pos < n && res.records < records.size() && res.errors < errors.size()) {
    const auto* nl = static_cast<const char*>(std::memchr(d + pos, '\n', n - pos));
    const std::size_t end = nl ? static_cast<std::size_t>(nl - d) : n;
    const std::size_t len = end - pos;
    if (len != 0 &&
        parse_line(impl_->parser, d + pos, len, n + kPadding - pos, records[res.records])) {
      ++res.records;
    } else {
      errors[res.errors++] = {pos, pos,
                              len == 0 ? ErrorReason::empty_line : ErrorReason::bad_syntax};
    }
    pos = end < n ? end + 1 : n;
  }
  res.consumed = pos;
  return res;
}

}  // namespace gatebench::peers
