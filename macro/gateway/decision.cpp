#include "macro/gateway/decision.hpp"

#include <cstring>

#include "macro/gateway/text_buf.hpp"
#include "micro/core/cidr/ipv4.hpp"
#include "micro/core/tokens/jwt_json.hpp"

namespace gatebench::gateway {
namespace {

// Appends to a head under construction; `ok` turns false for good once something did not fit.
class HeadOut {
 public:
  explicit HeadOut(std::span<char> out) : out_(out) {}
  void put(std::string_view s) {
    if (!ok || n_ + s.size() > out_.size()) {
      ok = false;
      return;
    }
    if (!s.empty()) std::memcpy(out_.data() + n_, s.data(), s.size());
    n_ += s.size();
  }
  // A JSON string's raw content, unescaped in place. An escaped CR or LF would end the line
  // early and smuggle in a header of its own: refused (the parser judges every other byte).
  void put_json(std::string_view raw) {
    if (!ok) return;
    const auto n = tokens::json_unescape(raw, out_.subspan(n_));
    if (!n) {
      ok = false;
      return;
    }
    for (std::size_t i = n_; i < n_ + *n; ++i) {
      if (out_[i] == '\r' || out_[i] == '\n') ok = false;
    }
    n_ += *n;
  }
  std::size_t size() const { return n_; }
  bool ok = true;

 private:
  std::span<char> out_;
  std::size_t n_ = 0;
};

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

// The content of a raw JSON string value (between its quotes); false when it is not a string.
bool json_string(std::string_view raw, std::string_view& content) {
  if (raw.size() < 2 || raw.front() != '"' || raw.back() != '"') return false;
  content = raw.substr(1, raw.size() - 2);
  return true;
}

struct HeadersVisit {
  HeadOut* out;
  bool bad = false;
};

// Headers the rebuilt head states itself (Host) or that describe a body the request does not
// carry here; a described request is judged on its head.
bool skipped_header(std::string_view name) {
  return iequals_lower(name, "host") || iequals_lower(name, "content-length") ||
         iequals_lower(name, "transfer-encoding");
}

void visit_header(void* context, std::string_view name, std::string_view value) {
  auto& v = *static_cast<HeadersVisit*>(context);
  std::string_view text;
  if (!json_string(value, text) || name.find('\\') != std::string_view::npos) {
    v.bad = true;
    return;
  }
  if (skipped_header(name)) return;
  v.out->put(name);
  v.out->put(": ");
  v.out->put_json(text);
  v.out->put("\r\n");
}

// The address of the last X-Forwarded-For entry (the one the proxy in front appended).
bool last_forwarded_for(std::string_view value, std::uint32_t& ip) {
  const std::size_t comma = value.rfind(',');
  const std::string_view last =
      trim(comma == std::string_view::npos ? value : value.substr(comma + 1));
  const cidr::Ipv4ParseResult r = cidr::parse_ipv4(last);
  if (!r) return false;
  ip = r.address;
  return true;
}

}  // namespace

std::string_view to_string(Verdict v) {
  switch (v) {
    case Verdict::kAllow:
      return "allow";
    case Verdict::kDeny:
      return "deny";
    case Verdict::kChallenge:
      return "challenge";
    case Verdict::kRateLimited:
      return "rate-limited";
  }
  return "deny";
}

Verdict verdict_of(const Decision& d) {
  if (!d.respond) return Verdict::kAllow;
  if (d.action == access_log::Action::ratelimit) return Verdict::kRateLimited;
  if (d.action == access_log::Action::challenge || d.action == access_log::Action::queue) {
    return Verdict::kChallenge;
  }
  // A 303 of the challenge verify endpoint or the queue join is the client earning its cookie.
  if (d.action == access_log::Action::allow) return Verdict::kChallenge;
  return Verdict::kDeny;
}

Described describe_from_json(std::string_view body, std::uint32_t peer_ip, std::span<char> out) {
  Described d;
  d.client_ip = peer_ip;
  tokens::JwtJsonField f[] = {{"method", tokens::JwtJsonField::Type::string},
                              {"host", tokens::JwtJsonField::Type::string},
                              {"path", tokens::JwtJsonField::Type::string},
                              {"query", tokens::JwtJsonField::Type::string},
                              {"scheme", tokens::JwtJsonField::Type::string},
                              {"client_ip", tokens::JwtJsonField::Type::string},
                              {"headers", tokens::JwtJsonField::Type::raw}};
  if (!tokens::scan_json_object(body, f)) {
    d.error = "the body is not one JSON object (or repeats a member)";
    return d;
  }
  for (const auto& field : f) {
    if (field.found && !field.type_ok) {
      d.error = "method, host, path, query, scheme and client_ip must be strings";
      return d;
    }
  }
  if (!f[1].found || !f[2].found) {
    d.error = "\"host\" and \"path\" are required";
    return d;
  }
  if (f[4].found) {
    if (f[4].string_raw != "http" && f[4].string_raw != "https") {
      d.error = "\"scheme\" must be \"http\" or \"https\"";
      return d;
    }
    d.https = f[4].string_raw == "https";
  }
  if (f[5].found) {
    const cidr::Ipv4ParseResult ip = cidr::parse_ipv4(f[5].string_raw);
    if (!ip) {
      d.error = "\"client_ip\" must be an IPv4 address";
      return d;
    }
    d.client_ip = ip.address;
  }
  HeadOut o(out);
  if (f[0].found) {
    o.put_json(f[0].string_raw);
  } else {
    o.put("GET");
  }
  o.put(" ");
  o.put_json(f[2].string_raw);
  if (f[3].found && !f[3].string_raw.empty()) {
    o.put("?");
    o.put_json(f[3].string_raw);
  }
  o.put(" HTTP/1.1\r\nHost: ");
  o.put_json(f[1].string_raw);
  o.put("\r\n");
  if (f[6].found) {
    HeadersVisit v{&o};
    if (f[6].string_raw.front() != '{' ||
        !tokens::for_each_json_member(f[6].string_raw, visit_header, &v) || v.bad) {
      d.error = "\"headers\" must be an object of strings";
      return d;
    }
  }
  o.put("\r\n");
  if (!o.ok) {
    d.error = "the described request is too large, or has a bad escape or an escaped CR or LF";
    return d;
  }
  d.head_len = o.size();
  return d;
}

Described describe_from_original(const RequestHead& req, std::string_view head,
                                 std::uint32_t peer_ip, std::span<char> out) {
  Described d;
  d.client_ip = peer_ip;
  std::string_view method = "GET";
  std::string_view uri;
  std::string_view host = req.host;
  std::string_view forwarded_host;
  for (std::uint16_t i = 0; i < req.fields.count; ++i) {
    const HeaderLine& h = req.fields.lines[i];
    const std::string_view name = head.substr(h.line_off, h.name_len);
    const std::string_view value = head.substr(h.value_off, h.value_len);
    if (h.kind == KnownHeader::kXForwardedFor) {
      if (!last_forwarded_for(value, d.client_ip)) {
        d.error = "the last X-Forwarded-For entry is not an IPv4 address";
        return d;
      }
    } else if (h.kind == KnownHeader::kXForwardedProto) {
      d.https = iequals_lower(value, "https");
    } else if (h.kind == KnownHeader::kOther) {
      if (iequals_lower(name, "x-original-method")) {
        method = value;
      } else if (iequals_lower(name, "x-original-uri")) {
        uri = value;
      } else if (iequals_lower(name, "x-forwarded-host")) {
        forwarded_host = value;
      }
    }
  }
  if (uri.empty()) {
    d.error = "X-Original-URI is required";
    return d;
  }
  if (!forwarded_host.empty()) host = forwarded_host;
  HeadOut o(out);
  o.put(method);
  o.put(" ");
  o.put(uri);
  o.put(" HTTP/1.1\r\nHost: ");
  o.put(host);
  o.put("\r\n");
  // The original request's other headers, in runs of whole lines; what described the request
  // and the subrequest's own framing and hop-by-hop headers stay out.
  for (std::uint16_t i = 0; i < req.fields.count; ++i) {
    const HeaderLine& h = req.fields.lines[i];
    if (h.kind != KnownHeader::kOther && h.kind != KnownHeader::kCookie &&
        h.kind != KnownHeader::kUserAgent && h.kind != KnownHeader::kReferer) {
      continue;
    }
    const std::string_view name = head.substr(h.line_off, h.name_len);
    if (name.size() > 11 && iequals_lower(name.substr(0, 11), "x-original-")) continue;
    if (iequals_lower(name, "x-forwarded-host")) continue;
    o.put(head.substr(h.line_off, h.line_len));
  }
  o.put("\r\n");
  if (!o.ok) {
    d.error = "the described request is too large";
    return d;
  }
  d.head_len = o.size();
  return d;
}

std::string_view decision_json(const Decision& d, std::span<char> out) {
  TextBuf b(out);
  b << "{\"verdict\":\"" << to_string(verdict_of(d))
    << "\",\"status\":" << std::uint64_t{d.respond ? d.response.status : 200u} << ",\"rule\":";
  if (d.rule_id.empty()) {
    b << "null";
  } else {
    b << "\"";
    b.json_escaped(d.rule_id);
    b << "\"";
  }
  b << ",\"action\":\"" << access_log::name(d.action) << "\",\"headers\":[";
  std::string_view lines = d.respond ? d.response.extra_headers : std::string_view();
  bool first = true;
  while (!lines.empty()) {
    const std::size_t end = lines.find("\r\n");
    const std::string_view line = lines.substr(0, end);
    lines = end == std::string_view::npos ? std::string_view() : lines.substr(end + 2);
    if (line.empty()) continue;
    b << (first ? "\"" : ",\"");
    first = false;
    b.json_escaped(line);
    b << "\"";
  }
  b << "]}\n";
  return b.view();
}

}  // namespace gatebench::gateway
