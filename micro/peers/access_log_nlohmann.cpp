#include "micro/peers/access_log_nlohmann.hpp"

#include <cmath>
#include <nlohmann/json.hpp>

namespace gatebench::peers {
namespace {

using namespace access_log;
using nlohmann::json;

bool ip_from_text(const std::string& s, std::uint32_t& out) {
  unsigned a, b, c, d;
  char tail;
  if (std::sscanf(s.c_str(), "%3u.%3u.%3u.%3u%c", &a, &b, &c, &d, &tail) != 4) return false;
  if (a > 255 || b > 255 || c > 255 || d > 255 || s.find_first_not_of("0123456789.") != s.npos) {
    return false;
  }
  out = a << 24 | b << 16 | c << 8 | d;
  return true;
}

bool seconds(const json& v, std::int64_t& out) {
  if (!v.is_number()) return false;
  const double d = v.get<double>();
  if (!(d >= 0) || d > 1e10) return false;
  out = std::llround(d * 1e6);
  return true;
}

}  // namespace

BatchResult NlohmannAccessLogParser::parse(std::string_view buffer,
                                           std::span<AccessLogRecord> records,
                                           std::span<AccessLogError> errors) {
  // Decoded strings are never longer than their JSON text: reserving the buffer size once
  // keeps every view into the arena valid for this call.
  arena_.clear();
  arena_.reserve(buffer.size());
  auto keep = [&](const json& v, std::string_view& out) {
    if (v.is_null()) {
      out = {};
      return true;
    }
    if (!v.is_string()) return false;
    const auto& s = v.get_ref<const std::string&>();
    const std::size_t at = arena_.size();
    arena_ += s;
    out = std::string_view(arena_).substr(at, s.size());
    return true;
  };
  BatchResult res;
  std::size_t pos = 0;
  while (pos < buffer.size() && res.records < records.size() && res.errors < errors.size()) {
    std::size_t end = buffer.find('\n', pos);
    if (end == std::string_view::npos) end = buffer.size();
    const std::string_view line = buffer.substr(pos, end - pos);
    AccessLogRecord& r = records[res.records];
    bool ok = false;
    const json j = json::parse(line.begin(), line.end(), nullptr, /*allow_exceptions=*/false);
    static constexpr const char* kKeys[] = {
        "time",          "client",     "method",  "scheme", "host",
        "path",          "query",      "status",  "bytes",  "request_time",
        "upstream_time", "user_agent", "referer", "rule",   "action"};
    if (!line.empty() && j.is_object()) {
      ok = true;
      for (const char* k : kKeys) ok = ok && j.contains(k);
    }
    if (ok) {
      r = AccessLogRecord{};
      const json& method = j["method"];
      const json& scheme = j["scheme"];
      const json& status = j["status"];
      const json& bytes = j["bytes"];
      const json& action = j["action"];
      ok = seconds(j["time"], r.time_us) && j["client"].is_string() &&
           ip_from_text(j["client"].get_ref<const std::string&>(), r.client_ip) &&
           method.is_string() && scheme.is_string() && status.is_number_unsigned() &&
           bytes.is_number_unsigned() && keep(j["host"], r.host) && keep(j["path"], r.path) &&
           keep(j["query"], r.query) && keep(j["user_agent"], r.user_agent) &&
           keep(j["referer"], r.referer) && keep(j["rule"], r.rule_id);
      if (ok) {
        const auto& m = method.get_ref<const std::string&>();
        ok = !m.empty() && m.size() <= 16 &&
             m.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZ") == std::string::npos;
        r.method = method_from_token(m);
        const auto& s = scheme.get_ref<const std::string&>();
        ok = ok && (s == "http" || s == "https");
        r.scheme = s == "https" ? Scheme::https : Scheme::http;
        const auto st = status.get<std::uint64_t>();
        ok = ok && st >= 100 && st <= 599;
        r.status = static_cast<std::uint16_t>(st);
        r.bytes_sent = bytes.get<std::uint64_t>();
        for (auto [key, out] : {std::pair{"request_time", &r.request_time_us},
                                std::pair{"upstream_time", &r.upstream_time_us}}) {
          if (j[key].is_null()) {
            *out = kAbsent;
          } else {
            ok = ok && seconds(j[key], *out);
          }
        }
        if (action.is_null()) {
          r.action = Action::none;
        } else {
          ok = ok && action.is_string() &&
               action_from_token(action.get_ref<const std::string&>(), r.action);
        }
      }
    }
    if (ok) {
      ++res.records;
    } else {
      errors[res.errors++] = {pos, pos,
                              line.empty() ? ErrorReason::empty_line : ErrorReason::bad_syntax};
    }
    pos = end < buffer.size() ? end + 1 : buffer.size();
  }
  res.consumed = pos;
  return res;
}

}  // namespace gatebench::peers
