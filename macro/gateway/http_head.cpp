#include "macro/gateway/http_head.hpp"

#include <cstring>

namespace gatebench::gateway {
namespace {

// RFC 9110 tchar, as a 256-entry table so the name scan is one load per byte.
constexpr std::array<bool, 256> make_tchar() {
  std::array<bool, 256> t{};
  for (int c = '0'; c <= '9'; ++c) t[c] = true;
  for (int c = 'a'; c <= 'z'; ++c) t[c] = true;
  for (int c = 'A'; c <= 'Z'; ++c) t[c] = true;
  for (char c : std::string_view("!#$%&'*+-.^_`|~")) t[static_cast<unsigned char>(c)] = true;
  return t;
}
constexpr auto kTchar = make_tchar();

inline char lower(char c) {
  return (c >= 'A' && c <= 'Z') ? static_cast<char>(c + 32) : c;
}

KnownHeader classify(std::string_view n) {
  switch (n.size()) {
    case 2:
      if (iequals_lower(n, "te")) return KnownHeader::kTe;
      break;
    case 4:
      if (iequals_lower(n, "host")) return KnownHeader::kHost;
      break;
    case 6:
      if (iequals_lower(n, "cookie")) return KnownHeader::kCookie;
      if (iequals_lower(n, "expect")) return KnownHeader::kExpect;
      break;
    case 7:
      if (iequals_lower(n, "trailer")) return KnownHeader::kTrailer;
      if (iequals_lower(n, "upgrade")) return KnownHeader::kUpgrade;
      if (iequals_lower(n, "referer")) return KnownHeader::kReferer;
      break;
    case 10:
      if (iequals_lower(n, "connection")) return KnownHeader::kConnection;
      if (iequals_lower(n, "keep-alive")) return KnownHeader::kKeepAlive;
      if (iequals_lower(n, "user-agent")) return KnownHeader::kUserAgent;
      break;
    case 14:
      if (iequals_lower(n, "content-length")) return KnownHeader::kContentLength;
      break;
    case 15:
      if (iequals_lower(n, "x-forwarded-for")) return KnownHeader::kXForwardedFor;
      break;
    case 16:
      if (iequals_lower(n, "proxy-connection")) return KnownHeader::kProxyConnection;
      break;
    case 17:
      if (iequals_lower(n, "transfer-encoding")) return KnownHeader::kTransferEncoding;
      if (iequals_lower(n, "x-forwarded-proto")) return KnownHeader::kXForwardedProto;
      break;
    default:
      break;
  }
  return KnownHeader::kOther;
}

// Parses a Content-Length value: digits only (a comma list such as "5, 5" is refused).
bool parse_length(std::string_view v, std::uint64_t& out) {
  if (v.empty() || v.size() > 18) return false;
  std::uint64_t n = 0;
  for (char c : v) {
    if (c < '0' || c > '9') return false;
    n = n * 10 + static_cast<std::uint64_t>(c - '0');
  }
  out = n;
  return true;
}

std::string_view trim(std::string_view v) {
  while (!v.empty() && (v.front() == ' ' || v.front() == '\t')) v.remove_prefix(1);
  while (!v.empty() && (v.back() == ' ' || v.back() == '\t')) v.remove_suffix(1);
  return v;
}

// Calls f(token) for each comma-separated token of a Connection-style list.
template <class F>
void for_each_token(std::string_view v, F&& f) {
  while (!v.empty()) {
    std::size_t comma = v.find(',');
    std::string_view tok = trim(v.substr(0, comma));
    if (!tok.empty()) f(tok);
    if (comma == std::string_view::npos) break;
    v.remove_prefix(comma + 1);
  }
}

struct LineScan {
  HeadStatus status;
  const char* error;
};

// Scans header lines starting at `pos` into `fields`; sets `end` past the empty line.
LineScan scan_fields(std::string_view buf, std::size_t pos, std::size_t max_head,
                     HeadFields& fields, std::size_t& end) {
  const char* base = buf.data();
  fields.count = 0;
  for (;;) {
    if (pos >= buf.size()) {
      return {buf.size() >= max_head ? HeadStatus::kTooLarge : HeadStatus::kIncomplete,
              "header section too large"};
    }
    const void* nl = std::memchr(base + pos, '\n', buf.size() - pos);
    if (nl == nullptr) {
      return {buf.size() >= max_head ? HeadStatus::kTooLarge : HeadStatus::kIncomplete,
              "header section too large"};
    }
    std::size_t lf = static_cast<std::size_t>(static_cast<const char*>(nl) - base);
    if (lf + 1 > max_head) return {HeadStatus::kTooLarge, "header section too large"};
    if (lf == pos || base[lf - 1] != '\r') return {HeadStatus::kBad, "bare LF in header section"};
    std::size_t line_end = lf - 1;  // index of CR
    if (line_end == pos) {
      end = lf + 1;
      return {HeadStatus::kComplete, nullptr};
    }
    char first = base[pos];
    if (first == ' ' || first == '\t') return {HeadStatus::kBad, "obsolete line folding"};
    std::size_t p = pos;
    while (p < line_end && kTchar[static_cast<unsigned char>(base[p])]) ++p;
    if (p == pos || p == line_end || base[p] != ':') {
      return {HeadStatus::kBad, "malformed header name"};
    }
    std::size_t name_len = p - pos;
    std::size_t v = p + 1;
    while (v < line_end && (base[v] == ' ' || base[v] == '\t')) ++v;
    std::size_t ve = line_end;
    while (ve > v && (base[ve - 1] == ' ' || base[ve - 1] == '\t')) --ve;
    for (std::size_t i = v; i < ve; ++i) {
      unsigned char c = static_cast<unsigned char>(base[i]);
      if ((c < 0x20 && c != '\t') || c == 0x7f) {
        return {HeadStatus::kBad, "control character in header value"};
      }
    }
    if (fields.count == kMaxHeaderFields) return {HeadStatus::kTooLarge, "too many header fields"};
    HeaderLine& h = fields.lines[fields.count++];
    h.line_off = static_cast<std::uint32_t>(pos);
    h.line_len = static_cast<std::uint32_t>(lf + 1 - pos);
    h.value_off = static_cast<std::uint32_t>(v);
    h.value_len = static_cast<std::uint32_t>(ve - v);
    h.name_len = static_cast<std::uint16_t>(name_len);
    h.kind = classify(std::string_view(base + pos, name_len));
    h.named_in_connection = false;
    pos = lf + 1;
  }
}

void mark_connection_tokens(std::string_view buf, HeadFields& fields, std::string_view tok) {
  for (std::uint16_t i = 0; i < fields.count; ++i) {
    HeaderLine& h = fields.lines[i];
    std::string_view name(buf.data() + h.line_off, h.name_len);
    if (name.size() != tok.size()) continue;
    bool eq = true;
    for (std::size_t k = 0; k < tok.size() && eq; ++k) eq = lower(name[k]) == lower(tok[k]);
    if (eq && h.kind != KnownHeader::kHost) h.named_in_connection = true;
  }
}

bool parse_version(std::string_view v, std::uint8_t& minor) {
  if (v.size() != 8 || v.substr(0, 7) != "HTTP/1.") return false;
  if (v[7] != '0' && v[7] != '1') return false;
  minor = static_cast<std::uint8_t>(v[7] - '0');
  return true;
}

}  // namespace

bool iequals_lower(std::string_view s, std::string_view low) {
  if (s.size() != low.size()) return false;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (lower(s[i]) != low[i]) return false;
  }
  return true;
}

// Connection: close/keep-alive set persistence (keep-alive matters only for HTTP/1.0); any
// other token names a hop-by-hop header to drop. Same rule for requests and responses.
template <typename Head>
void apply_connection_header(std::string_view buf, std::string_view value, Head& out) {
  for_each_token(value, [&](std::string_view tok) {
    if (iequals_lower(tok, "close")) {
      out.keep_alive = false;
    } else if (iequals_lower(tok, "keep-alive")) {
      if (out.minor_version == 0) out.keep_alive = true;
    } else {
      mark_connection_tokens(buf, out.fields, tok);
    }
  });
}

HeadStatus parse_request_head(std::string_view buf, std::size_t max_head, RequestHead& out) {
  auto fail = [&](HeadStatus st, const char* why) {
    out.error = why;
    out.error_status = st == HeadStatus::kTooLarge ? 431 : 400;
    return st;
  };
  const char* base = buf.data();
  std::size_t limit = buf.size() < max_head ? buf.size() : max_head;
  const void* nl = std::memchr(base, '\n', limit);
  if (nl == nullptr) {
    if (buf.size() >= max_head) return fail(HeadStatus::kTooLarge, "request line too long");
    return HeadStatus::kIncomplete;
  }
  std::size_t lf = static_cast<std::size_t>(static_cast<const char*>(nl) - base);
  if (lf == 0 || base[lf - 1] != '\r') return fail(HeadStatus::kBad, "bare LF in request line");
  std::string_view line(base, lf - 1);
  std::size_t sp1 = line.find(' ');
  if (sp1 == std::string_view::npos || sp1 == 0) return fail(HeadStatus::kBad, "bad request line");
  std::size_t sp2 = line.find(' ', sp1 + 1);
  if (sp2 == std::string_view::npos || sp2 == sp1 + 1) {
    return fail(HeadStatus::kBad, "bad request line");
  }
  out.method = line.substr(0, sp1);
  for (char c : out.method) {
    if (!kTchar[static_cast<unsigned char>(c)]) return fail(HeadStatus::kBad, "bad method");
  }
  out.target = line.substr(sp1 + 1, sp2 - sp1 - 1);
  for (char c : out.target) {
    unsigned char u = static_cast<unsigned char>(c);
    if (u <= 0x20 || u == 0x7f) return fail(HeadStatus::kBad, "bad request target");
  }
  if (!parse_version(line.substr(sp2 + 1), out.minor_version)) {
    return fail(HeadStatus::kBad, "unsupported HTTP version");
  }
  std::size_t end = 0;
  LineScan scan = scan_fields(buf, lf + 1, max_head, out.fields, end);
  if (scan.status == HeadStatus::kIncomplete) return scan.status;
  if (scan.status != HeadStatus::kComplete) return fail(scan.status, scan.error);

  out.head_len = static_cast<std::uint32_t>(end);
  out.host = {};
  out.cookie = {};
  out.user_agent = {};
  out.referer = {};
  out.body = BodyKind::kNone;
  out.content_length = 0;
  out.keep_alive = out.minor_version == 1;
  out.expect_continue = false;
  out.is_head = out.method == "HEAD";
  bool have_length = false;
  bool have_te = false;
  bool have_host = false;
  for (std::uint16_t i = 0; i < out.fields.count; ++i) {
    const HeaderLine& h = out.fields.lines[i];
    std::string_view value(base + h.value_off, h.value_len);
    switch (h.kind) {
      case KnownHeader::kHost:
        if (have_host) return fail(HeadStatus::kBad, "duplicate Host header");
        have_host = true;
        out.host = value;
        break;
      case KnownHeader::kContentLength: {
        std::uint64_t n = 0;
        if (!parse_length(value, n)) return fail(HeadStatus::kBad, "invalid Content-Length");
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
        if (!iequals_lower(value, "chunked")) {
          return fail(HeadStatus::kBad, "unsupported Transfer-Encoding");
        }
        break;
      case KnownHeader::kConnection:
        apply_connection_header(buf, value, out);
        break;
      case KnownHeader::kExpect:
        out.expect_continue = iequals_lower(value, "100-continue");
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

HeadStatus parse_response_head(std::string_view buf, std::size_t max_head, bool request_was_head,
                               ResponseHead& out) {
  auto fail = [&](const char* why) {
    out.error = why;
    return HeadStatus::kBad;
  };
  const char* base = buf.data();
  std::size_t limit = buf.size() < max_head ? buf.size() : max_head;
  const void* nl = std::memchr(base, '\n', limit);
  if (nl == nullptr) {
    if (buf.size() >= max_head) {
      out.error = "status line too long";
      return HeadStatus::kTooLarge;
    }
    return HeadStatus::kIncomplete;
  }
  std::size_t lf = static_cast<std::size_t>(static_cast<const char*>(nl) - base);
  if (lf < 13 || base[lf - 1] != '\r') return fail("malformed status line");
  std::string_view line(base, lf - 1);
  if (!parse_version(line.substr(0, 8), out.minor_version) || line[8] != ' ') {
    return fail("malformed status line");
  }
  unsigned status = 0;
  for (std::size_t i = 9; i < 12; ++i) {
    if (line[i] < '0' || line[i] > '9') return fail("malformed status code");
    status = status * 10 + static_cast<unsigned>(line[i] - '0');
  }
  if (status < 100 || (line.size() > 12 && line[12] != ' ')) return fail("malformed status code");
  out.status = static_cast<std::uint16_t>(status);
  out.status_line_len = static_cast<std::uint32_t>(lf + 1);
  out.reason_off = 12;
  std::size_t end = 0;
  LineScan scan = scan_fields(buf, lf + 1, max_head, out.fields, end);
  if (scan.status != HeadStatus::kComplete) {
    if (scan.status != HeadStatus::kIncomplete) out.error = scan.error;
    return scan.status;
  }
  out.head_len = static_cast<std::uint32_t>(end);
  out.keep_alive = out.minor_version == 1;
  bool have_length = false;
  bool chunked = false;
  bool have_te = false;
  out.content_length = 0;
  for (std::uint16_t i = 0; i < out.fields.count; ++i) {
    const HeaderLine& h = out.fields.lines[i];
    std::string_view value(base + h.value_off, h.value_len);
    switch (h.kind) {
      case KnownHeader::kContentLength: {
        std::uint64_t n = 0;
        if (!parse_length(value, n)) return fail("invalid Content-Length from upstream");
        if (have_length && n != out.content_length) {
          return fail("conflicting Content-Length from upstream");
        }
        have_length = true;
        out.content_length = n;
        break;
      }
      case KnownHeader::kTransferEncoding: {
        have_te = true;
        // Only the final coding decides the framing.
        std::string_view last = value;
        std::size_t comma = value.rfind(',');
        if (comma != std::string_view::npos) last = trim(value.substr(comma + 1));
        chunked = iequals_lower(last, "chunked");
        break;
      }
      case KnownHeader::kConnection:
        apply_connection_header(buf, value, out);
        break;
      default:
        break;
    }
  }
  if (have_te && have_length) return fail("both Content-Length and Transfer-Encoding");
  if (request_was_head || status < 200 || status == 204 || status == 304) {
    out.body = BodyKind::kNone;
  } else if (have_te) {
    out.body = chunked ? BodyKind::kChunked : BodyKind::kUntilClose;
  } else if (have_length) {
    out.body = out.content_length > 0 ? BodyKind::kLength : BodyKind::kNone;
  } else {
    out.body = BodyKind::kUntilClose;
  }
  if (out.body == BodyKind::kUntilClose) out.keep_alive = false;
  out.error = nullptr;
  return HeadStatus::kComplete;
}

namespace {
inline int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}
}  // namespace

std::size_t ChunkedScanner::feed(std::string_view data) {
  std::size_t i = 0;
  const std::size_t n = data.size();
  while (i < n) {
    switch (state_) {
      case State::kData: {
        std::uint64_t take = remaining_;
        if (take > n - i) take = n - i;
        i += static_cast<std::size_t>(take);
        remaining_ -= take;
        if (remaining_ == 0) state_ = State::kDataCr;
        continue;
      }
      case State::kDone:
      case State::kError:
        return i;
      default:
        break;
    }
    char c = data[i++];
    switch (state_) {
      case State::kSize: {
        int h = hex_value(c);
        if (h < 0) {
          state_ = State::kError;
          return i;
        }
        remaining_ = static_cast<std::uint64_t>(h);
        digits_ = 1;
        state_ = State::kSizeAny;
        break;
      }
      case State::kSizeAny: {
        int h = hex_value(c);
        if (h >= 0) {
          if (++digits_ > 15) {
            state_ = State::kError;
            return i;
          }
          remaining_ = remaining_ * 16 + static_cast<std::uint64_t>(h);
        } else if (c == ';' || c == ' ' || c == '\t') {
          state_ = State::kExt;
        } else if (c == '\r') {
          state_ = State::kSizeLf;
        } else {
          state_ = State::kError;
          return i;
        }
        break;
      }
      case State::kExt:
        if (c == '\r') {
          state_ = State::kSizeLf;
        } else if (c == '\n' || (static_cast<unsigned char>(c) < 0x20 && c != '\t')) {
          state_ = State::kError;
          return i;
        }
        break;
      case State::kSizeLf:
        if (c != '\n') {
          state_ = State::kError;
          return i;
        }
        state_ = remaining_ == 0 ? State::kTrailerStart : State::kData;
        break;
      case State::kDataCr:
        state_ = c == '\r' ? State::kDataLf : State::kError;
        if (state_ == State::kError) return i;
        break;
      case State::kDataLf:
        state_ = c == '\n' ? State::kSize : State::kError;
        if (state_ == State::kError) return i;
        break;
      case State::kTrailerStart:
        if (c == '\r') {
          state_ = State::kFinalLf;
        } else if (kTchar[static_cast<unsigned char>(c)]) {
          state_ = State::kTrailerLine;
        } else {
          state_ = State::kError;
          return i;
        }
        break;
      case State::kTrailerLine:
        if (c == '\r') {
          state_ = State::kTrailerLf;
        } else if (c == '\n') {
          state_ = State::kError;
          return i;
        }
        break;
      case State::kTrailerLf:
        state_ = c == '\n' ? State::kTrailerStart : State::kError;
        if (state_ == State::kError) return i;
        break;
      case State::kFinalLf:
        state_ = c == '\n' ? State::kDone : State::kError;
        return i;
      default:
        break;
    }
  }
  return i;
}

}  // namespace gatebench::gateway
