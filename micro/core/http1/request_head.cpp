#include "micro/core/http1/request_head.hpp"

#include "micro/core/http1/connection.hpp"
#include "micro/core/http1/scan.hpp"

namespace gatebench::http1 {
namespace {

using detail::is_tchar;

// The request line's rules one by one, for the message of the first one a line breaks (the
// fast path in parse_request_line only knows that one is broken).
const char* request_line_fault(std::string_view line) {
  const std::size_t sp1 = line.find(' ');
  if (sp1 == std::string_view::npos || sp1 == 0) return "bad request line";
  const std::size_t sp2 = line.find(' ', sp1 + 1);
  if (sp2 == std::string_view::npos || sp2 == sp1 + 1) return "bad request line";
  for (char c : line.substr(0, sp1)) {
    if (!is_tchar(c)) return "bad method";
  }
  for (char c : line.substr(sp1 + 1, sp2 - sp1 - 1)) {
    if (detail::is_target_stop(static_cast<unsigned char>(c))) return "bad request target";
  }
  return "unsupported HTTP version";
}

// Splits "method SP target SP HTTP/1.x" (`line` without its CRLF); nullptr when it is valid.
const char* parse_request_line(std::string_view line, RequestHead& out) {
  const char* const base = line.data();
  const std::size_t m = detail::find_non_tchar(base, base + line.size());
  if (m == 0 || m == line.size() || base[m] != ' ') return request_line_fault(line);
  const std::size_t t = m + 1;
  const std::size_t sp2 = t + detail::find_target_stop(base + t, base + line.size());
  if (sp2 == t || sp2 == line.size() || base[sp2] != ' ') return request_line_fault(line);
  if (!detail::parse_version(line.substr(sp2 + 1), out.minor_version)) {
    return request_line_fault(line);
  }
  out.method = line.substr(0, m);
  out.target = line.substr(t, sp2 - t);
  return nullptr;
}

// The common request line, "method SP target SP HTTP/1.x CRLF", split without first searching
// for its LF: none of those bytes before the CR is an LF, so when they are all there the LF that
// follows is the first one, and the line is the one the careful path would accept. Returns the
// index of that LF (and fills method, target, version), or 0 for any other line, which the
// careful path then judges with its messages.
std::size_t parse_plain_request_line(std::string_view buf, std::size_t max_head, RequestHead& out) {
  const char* const base = buf.data();
  const char* const end = base + buf.size();
  const std::size_t m = detail::find_non_tchar(base, end);
  if (m == 0 || m == buf.size() || base[m] != ' ') return 0;
  const std::size_t t = m + 1;
  const std::size_t sp2 = t + detail::find_target_stop(base + t, end);
  if (sp2 == t || buf.size() - sp2 < 11 || base[sp2] != ' ') return 0;
  const std::size_t lf = sp2 + 10;  // SP, "HTTP/1.x", CR
  if (lf >= max_head || base[lf - 1] != '\r' || base[lf] != '\n') return 0;
  if (!detail::parse_version(std::string_view(base + sp2 + 1, 8), out.minor_version)) return 0;
  out.method = std::string_view(base, m);
  out.target = std::string_view(base + t, sp2 - t);
  return lf;
}

}  // namespace

HeadStatus parse_request_head(std::string_view buf, std::size_t max_head, RequestHead& out) {
  auto fail = [&](HeadStatus st, const char* why) {
    out.error = why;
    out.error_status = st == HeadStatus::kTooLarge ? 431 : 400;
    return st;
  };
  const char* base = buf.data();
  std::size_t lf = parse_plain_request_line(buf, max_head, out);
  if (lf == 0) {
    const detail::FirstLine first =
        detail::find_first_line(buf, max_head, "request line too long", "bare LF in request line");
    if (first.status == HeadStatus::kIncomplete) return first.status;
    if (first.status != HeadStatus::kComplete) return fail(first.status, first.error);
    lf = first.lf;
    if (const char* why = parse_request_line(std::string_view(base, lf - 1), out)) {
      return fail(HeadStatus::kBad, why);
    }
  }
  HeadFields& fields = out.fields;
  fields.count = 0;
  const detail::LineScan scan =
      detail::scan_fields(buf, lf + 1, max_head, [&fields](const HeaderLine& h) {
        if (fields.count == kMaxHeaderFields) return false;
        fields.lines[fields.count++] = h;
        return true;
      });
  if (scan.status == HeadStatus::kIncomplete) return scan.status;
  if (scan.status != HeadStatus::kComplete) return fail(scan.status, scan.error);

  out.head_len = static_cast<std::uint32_t>(scan.end);
  out.host = {};
  out.cookie = {};
  out.user_agent = {};
  out.referer = {};
  out.body = BodyKind::kNone;
  out.content_length = 0;
  out.expect_continue = false;
  out.is_head = out.method == "HEAD";
  ConnectionOptions conn(out.minor_version);
  bool have_length = false;
  bool have_te = false;
  bool have_host = false;
  for (std::uint16_t i = 0; i < fields.count; ++i) {
    const HeaderLine& h = fields.lines[i];
    const std::string_view value(base + h.value_off, h.value_len);
    switch (h.kind) {
      case KnownHeader::kHost:
        if (have_host) return fail(HeadStatus::kBad, "duplicate Host header");
        have_host = true;
        out.host = value;
        break;
      case KnownHeader::kContentLength: {
        std::uint64_t n = 0;
        if (!detail::parse_length(value, n)) {
          return fail(HeadStatus::kBad, "invalid Content-Length");
        }
        if (have_length && n != out.content_length) {
          return fail(HeadStatus::kBad, "conflicting Content-Length headers");
        }
        have_length = true;
        out.content_length = n;
        break;
      }
      case KnownHeader::kTransferEncoding:
        if (have_te) return fail(HeadStatus::kBad, "duplicate Transfer-Encoding header");
        have_te = true;
        if (!detail::value_is<"chunked">(value)) {
          return fail(HeadStatus::kBad, "unsupported Transfer-Encoding");
        }
        break;
      case KnownHeader::kConnection:
        conn.apply(value, buf, &fields);
        break;
      case KnownHeader::kExpect:
        out.expect_continue = detail::value_is<"100-continue">(value);
        break;
      case KnownHeader::kCookie:
        // Several Cookie lines are legal in HTTP/1.1 only through proxies; keep the first.
        if (out.cookie.empty()) out.cookie = value;
        break;
      case KnownHeader::kUserAgent:
        out.user_agent = value;
        break;
      case KnownHeader::kReferer:
        out.referer = value;
        break;
      default:
        break;
    }
  }
  if (have_te && have_length) {
    return fail(HeadStatus::kBad, "both Content-Length and Transfer-Encoding");
  }
  if (have_te && out.minor_version == 0) {
    return fail(HeadStatus::kBad, "Transfer-Encoding in an HTTP/1.0 request");
  }
  if (!have_host && out.minor_version == 1) return fail(HeadStatus::kBad, "missing Host header");
  out.keep_alive = conn.keep_alive();
  out.has_content_length = have_length;
  if (have_te) {
    out.body = BodyKind::kChunked;
  } else if (have_length && out.content_length > 0) {
    out.body = BodyKind::kLength;
  }
  out.error = nullptr;
  out.error_status = 0;
  return HeadStatus::kComplete;
}

}  // namespace gatebench::http1
