#include "macro/gateway/response_writer.hpp"

#include <charconv>
#include <cstring>

#include "macro/gateway/loop_guard.hpp"

namespace gatebench::gateway {
namespace {

constexpr std::string_view kBasicHeaders =
    "X-Content-Type-Options: nosniff\r\n"
    "X-Frame-Options: SAMEORIGIN\r\n"
    "Referrer-Policy: strict-origin-when-cross-origin\r\n";

constexpr std::string_view kStrictHeaders =
    "X-Content-Type-Options: nosniff\r\n"
    "X-Frame-Options: DENY\r\n"
    "Referrer-Policy: no-referrer\r\n"
    "Strict-Transport-Security: max-age=63072000; includeSubDomains\r\n"
    "Content-Security-Policy: default-src 'self'; frame-ancestors 'none'; base-uri 'none'\r\n"
    "Cross-Origin-Opener-Policy: same-origin\r\n"
    "Permissions-Policy: camera=(), microphone=(), geolocation=()\r\n";

// Names of the headers a security level sets (lower case), to drop the upstream's copies.
bool is_security_header(std::string_view name, SecurityHeaders sh) {
  if (sh == SecurityHeaders::kOff) return false;
  static constexpr std::string_view kBasic[] = {"x-content-type-options", "x-frame-options",
                                                "referrer-policy"};
  static constexpr std::string_view kStrict[] = {
      "strict-transport-security", "content-security-policy", "cross-origin-opener-policy",
      "permissions-policy"};
  for (std::string_view n : kBasic) {
    if (iequals_lower(name, n)) return true;
  }
  if (sh == SecurityHeaders::kStrict) {
    for (std::string_view n : kStrict) {
      if (iequals_lower(name, n)) return true;
    }
  }
  return false;
}

class Out {
 public:
  Out(char* p, std::size_t cap) : p_(p), cap_(cap) {}
  void put(std::string_view s) {
    if (s.empty()) return;  // an empty view may carry a null pointer memcpy must not see
    if (len_ + s.size() > cap_) {
      overflow_ = true;
      return;
    }
    std::memcpy(p_ + len_, s.data(), s.size());
    len_ += s.size();
  }
  void put_uint(std::uint64_t v) {
    char tmp[24];
    auto r = std::to_chars(tmp, tmp + sizeof tmp, v);
    put(std::string_view(tmp, static_cast<std::size_t>(r.ptr - tmp)));
  }
  std::size_t result() const { return overflow_ ? 0 : len_; }

 private:
  char* p_;
  std::size_t cap_;
  std::size_t len_ = 0;
  bool overflow_ = false;
};

bool hop_by_hop(const HeaderLine& h) {
  switch (h.kind) {
    case KnownHeader::kConnection:
    case KnownHeader::kKeepAlive:
    case KnownHeader::kProxyConnection:
    case KnownHeader::kTe:
    case KnownHeader::kUpgrade:
    case KnownHeader::kTransferEncoding:
      return true;
    default:
      return h.named_in_connection;
  }
}

}  // namespace

std::string_view security_header_lines(SecurityHeaders sh) {
  switch (sh) {
    case SecurityHeaders::kBasic:
      return kBasicHeaders;
    case SecurityHeaders::kStrict:
      return kStrictHeaders;
    default:
      return {};
  }
}

std::string_view reason_phrase(std::uint16_t status) {
  switch (status) {
    case 200:
      return "OK";
    case 302:
      return "Found";
    case 303:
      return "See Other";
    case 400:
      return "Bad Request";
    case 401:
      return "Unauthorized";
    case 403:
      return "Forbidden";
    case 404:
      return "Not Found";
    case 405:
      return "Method Not Allowed";
    case 408:
      return "Request Timeout";
    case 413:
      return "Content Too Large";
    case 421:
      return "Misdirected Request";
    case 429:
      return "Too Many Requests";
    case 431:
      return "Request Header Fields Too Large";
    case 500:
      return "Internal Server Error";
    case 502:
      return "Bad Gateway";
    case 503:
      return "Service Unavailable";
    case 504:
      return "Gateway Timeout";
    case 508:
      return "Loop Detected";
    default:
      return "Unknown";
  }
}

std::size_t write_upstream_head(char* out, std::size_t cap, std::string_view head,
                                const RequestHead& req, std::string_view client_ip, bool https,
                                std::string_view hop_lines) {
  Out o(out, cap);
  o.put(req.method);
  o.put(" ");
  o.put(req.target);
  o.put(req.minor_version == 0 ? " HTTP/1.0\r\n" : " HTTP/1.1\r\n");
  // Kept header lines are copied in runs: consecutive kept lines are one memcpy.
  std::size_t run_start = 0;
  std::size_t run_end = 0;
  bool have_xff = false;
  for (std::uint16_t i = 0; i < req.fields.count; ++i) {
    const HeaderLine& h = req.fields.lines[i];
    bool drop =
        hop_by_hop(h) || h.kind == KnownHeader::kExpect || h.kind == KnownHeader::kContentLength ||
        h.kind == KnownHeader::kXForwardedFor || h.kind == KnownHeader::kXForwardedProto ||
        (!hop_lines.empty() && h.kind == KnownHeader::kOther && h.name_len == kHopHeader.size() &&
         iequals_lower(head.substr(h.line_off, h.name_len), kHopHeader));
    have_xff = have_xff || h.kind == KnownHeader::kXForwardedFor;
    if (drop) continue;
    if (h.line_off == run_end && run_end != 0) {
      run_end += h.line_len;
    } else {
      if (run_end != 0) o.put(head.substr(run_start, run_end - run_start));
      run_start = h.line_off;
      run_end = h.line_off + h.line_len;
    }
  }
  if (run_end != 0) o.put(head.substr(run_start, run_end - run_start));
  o.put("X-Forwarded-For: ");
  if (have_xff) {
    for (std::uint16_t i = 0; i < req.fields.count; ++i) {
      const HeaderLine& h = req.fields.lines[i];
      if (h.kind != KnownHeader::kXForwardedFor || h.value_len == 0) continue;
      o.put(head.substr(h.value_off, h.value_len));
      o.put(", ");
    }
  }
  o.put(client_ip);
  o.put(https ? "\r\nX-Forwarded-Proto: https\r\n" : "\r\nX-Forwarded-Proto: http\r\n");
  o.put(hop_lines);
  if (req.body == BodyKind::kChunked) {
    o.put("Transfer-Encoding: chunked\r\n");
  } else if (req.has_content_length) {
    o.put("Content-Length: ");
    o.put_uint(req.content_length);
    o.put("\r\n");
  }
  if (req.minor_version == 0) o.put("Connection: keep-alive\r\n");
  o.put("\r\n");
  return o.result();
}

namespace {

// Status line, kept header lines (copied in runs), framing and security headers: what the client
// and the cache both get. `drop_age`: the cache states its own Age.
void put_response_lines(Out& o, std::string_view head, const ResponseHead& resp, SecurityHeaders sh,
                        bool drop_age) {
  o.put("HTTP/1.1");
  o.put(head.substr(8, resp.status_line_len - 8));
  std::size_t run_start = 0;
  std::size_t run_end = 0;
  for (std::uint16_t i = 0; i < resp.fields.count; ++i) {
    const HeaderLine& h = resp.fields.lines[i];
    const std::string_view name = head.substr(h.line_off, h.name_len);
    bool drop = hop_by_hop(h) ||
                (sh != SecurityHeaders::kOff && h.kind == KnownHeader::kOther &&
                 is_security_header(name, sh)) ||
                (drop_age && h.kind == KnownHeader::kOther && iequals_lower(name, "age"));
    if (drop) continue;
    if (h.line_off == run_end && run_end != 0) {
      run_end += h.line_len;
    } else {
      if (run_end != 0) o.put(head.substr(run_start, run_end - run_start));
      run_start = h.line_off;
      run_end = h.line_off + h.line_len;
    }
  }
  if (run_end != 0) o.put(head.substr(run_start, run_end - run_start));
  if (resp.body == BodyKind::kChunked) o.put("Transfer-Encoding: chunked\r\n");
  o.put(security_header_lines(sh));
}

}  // namespace

std::size_t write_client_head(char* out, std::size_t cap, std::string_view head,
                              const ResponseHead& resp, SecurityHeaders sh, bool close,
                              bool client_http10, std::string_view extra_lines) {
  Out o(out, cap);
  put_response_lines(o, head, resp, sh, false);
  o.put(extra_lines);
  if (close) {
    o.put("Connection: close\r\n");
  } else if (client_http10) {
    o.put("Connection: keep-alive\r\n");
  }
  o.put("\r\n");
  return o.result();
}

std::size_t write_stored_head(char* out, std::size_t cap, std::string_view head,
                              const ResponseHead& resp, SecurityHeaders sh) {
  Out o(out, cap);
  put_response_lines(o, head, resp, sh, true);
  return o.result();
}

std::size_t write_local_response(char* out, std::size_t cap, std::uint16_t status,
                                 std::string_view content_type, std::string_view body,
                                 std::string_view extra_headers, SecurityHeaders sh, bool close,
                                 bool client_http10, bool head_only) {
  Out o(out, cap);
  o.put("HTTP/1.1 ");
  o.put_uint(status);
  o.put(" ");
  o.put(reason_phrase(status));
  o.put("\r\nServer: gatebench-gateway\r\nContent-Type: ");
  o.put(content_type);
  o.put("\r\nContent-Length: ");
  o.put_uint(body.size());
  o.put("\r\nCache-Control: no-store\r\n");
  o.put(extra_headers);
  o.put(security_header_lines(sh));
  if (close) {
    o.put("Connection: close\r\n");
  } else if (client_http10) {
    o.put("Connection: keep-alive\r\n");
  }
  o.put("\r\n");
  if (!head_only) o.put(body);
  return o.result();
}

}  // namespace gatebench::gateway
