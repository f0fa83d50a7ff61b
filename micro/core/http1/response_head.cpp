#include "micro/core/http1/response_head.hpp"

#include "micro/core/http1/connection.hpp"
#include "micro/core/http1/scan.hpp"

namespace gatebench::http1 {
namespace {

// The framing headers of one response, read field by field.
struct Framing {
  explicit Framing(std::uint8_t minor) : conn(minor) {}

  // fields: the recorded lines (for Connection's hop-by-hop marks), or nullptr.
  void apply(const HeaderLine& h, std::string_view buf, HeadFields* fields) {
    const std::string_view value(buf.data() + h.value_off, h.value_len);
    switch (h.kind) {
      case KnownHeader::kContentLength: {
        std::uint64_t n = 0;
        if (!detail::parse_length(value, n)) {
          fault("invalid Content-Length from upstream");
        } else if (have_length && n != length) {
          fault("conflicting Content-Length from upstream");
        }
        have_length = true;
        length = n;
        break;
      }
      case KnownHeader::kTransferEncoding: {
        have_te = true;
        // Only the final coding decides the framing.
        std::string_view last = value;
        const std::size_t comma = value.rfind(',');
        if (comma != std::string_view::npos) last = detail::trim(value.substr(comma + 1));
        chunked = detail::value_is<"chunked">(last);
        break;
      }
      case KnownHeader::kConnection:
        conn.apply(value, buf, fields);
        break;
      default:
        break;
    }
  }

  // The first fault is the one reported, as when the fields are read in order.
  void fault(const char* why) {
    if (error == nullptr) error = why;
  }

  ConnectionOptions conn;
  bool have_length = false;
  bool have_te = false;
  bool chunked = false;
  std::uint64_t length = 0;
  const char* error = nullptr;
};

// "HTTP/1.x NNN[ reason]" (`line` without its CRLF); nullptr when it is valid.
const char* parse_status_line(std::string_view line, ResponseStatus& out) {
  if (line.size() < 12 || !detail::parse_version(line.substr(0, 8), out.minor_version) ||
      line[8] != ' ') {
    return "malformed status line";
  }
  unsigned status = 0;
  for (std::size_t i = 9; i < 12; ++i) {
    if (line[i] < '0' || line[i] > '9') return "malformed status code";
    status = status * 10 + static_cast<unsigned>(line[i] - '0');
  }
  if (status < 100 || (line.size() > 12 && line[12] != ' ')) return "malformed status code";
  out.status = static_cast<std::uint16_t>(status);
  out.reason_off = 12;
  return nullptr;
}

// fields: where to record the header lines, or nullptr to read them in passing.
HeadStatus parse_response(std::string_view buf, std::size_t max_head, bool request_was_head,
                          ResponseStatus& out, HeadFields* fields) {
  auto fail = [&](HeadStatus st, const char* why) {
    out.error = why;
    return st;
  };
  const char* base = buf.data();
  const detail::FirstLine first =
      detail::find_first_line(buf, max_head, "status line too long", "malformed status line");
  if (first.status == HeadStatus::kIncomplete) return first.status;
  if (first.status != HeadStatus::kComplete) return fail(first.status, first.error);
  const std::size_t lf = first.lf;
  if (const char* why = parse_status_line(std::string_view(base, lf - 1), out)) {
    return fail(HeadStatus::kBad, why);
  }
  out.status_line_len = static_cast<std::uint32_t>(lf + 1);
  Framing framing(out.minor_version);
  detail::LineScan scan{};
  if (fields != nullptr) {
    fields->count = 0;
    scan = detail::scan_fields(buf, lf + 1, max_head, [fields](const HeaderLine& h) {
      if (fields->count == kMaxHeaderFields) return false;
      fields->lines[fields->count++] = h;
      return true;
    });
    if (scan.status == HeadStatus::kComplete) {
      for (std::uint16_t i = 0; i < fields->count; ++i) {
        framing.apply(fields->lines[i], buf, fields);
      }
    }
  } else {
    std::size_t count = 0;
    scan = detail::scan_fields(buf, lf + 1, max_head, [&](const HeaderLine& h) {
      if (count == kMaxHeaderFields) return false;
      ++count;
      framing.apply(h, buf, nullptr);
      return true;
    });
  }
  if (scan.status == HeadStatus::kIncomplete) return scan.status;
  if (scan.status != HeadStatus::kComplete) return fail(scan.status, scan.error);
  if (framing.error != nullptr) return fail(HeadStatus::kBad, framing.error);
  if (framing.have_te && framing.have_length) {
    return fail(HeadStatus::kBad, "both Content-Length and Transfer-Encoding");
  }
  out.head_len = static_cast<std::uint32_t>(scan.end);
  out.content_length = framing.have_length ? framing.length : 0;
  out.keep_alive = framing.conn.keep_alive();
  const unsigned status = out.status;
  if (request_was_head || status < 200 || status == 204 || status == 304) {
    out.body = BodyKind::kNone;
  } else if (framing.have_te) {
    out.body = framing.chunked ? BodyKind::kChunked : BodyKind::kUntilClose;
  } else if (framing.have_length) {
    out.body = out.content_length > 0 ? BodyKind::kLength : BodyKind::kNone;
  } else {
    out.body = BodyKind::kUntilClose;
  }
  if (out.body == BodyKind::kUntilClose) out.keep_alive = false;
  out.error = nullptr;
  return HeadStatus::kComplete;
}

}  // namespace

HeadStatus parse_response_head(std::string_view buf, std::size_t max_head, bool request_was_head,
                               ResponseHead& out) {
  return parse_response(buf, max_head, request_was_head, out, &out.fields);
}

HeadStatus parse_response_status(std::string_view buf, std::size_t max_head, bool request_was_head,
                                 ResponseStatus& out) {
  return parse_response(buf, max_head, request_was_head, out, nullptr);
}

}  // namespace gatebench::http1
