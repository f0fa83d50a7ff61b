#include "micro/peers/http1_naive.hpp"

#include <re2/re2.h>

#include <algorithm>
#include <cctype>
#include <memory>

namespace gatebench::peers {
namespace {

using http1::BodyKind;
using http1::HeadStatus;

bool is_token_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) ||
         std::string_view("!#$%&'*+-.^_`|~").find(c) != std::string_view::npos;
}

bool is_token(const std::string& s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), is_token_char);
}

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::string trim(const std::string& s) {
  const std::size_t b = s.find_first_not_of(" \t");
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(" \t") - b + 1);
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  for (;;) {
    const std::size_t at = s.find(sep, start);
    parts.push_back(s.substr(start, at == std::string::npos ? std::string::npos : at - start));
    if (at == std::string::npos) return parts;
    start = at + 1;
  }
}

bool is_digit(char c) {
  return c >= '0' && c <= '9';
}

bool all_digits(const std::string& s) {
  return !s.empty() && s.size() <= 18 && std::all_of(s.begin(), s.end(), is_digit);
}

bool parse_version(const std::string& v, int& minor) {
  if (v != "HTTP/1.0" && v != "HTTP/1.1") return false;
  minor = v[7] - '0';
  return true;
}

// Splits the head into its first line and fields; returns kComplete with head.head_len set, or
// the status of the first fault. first_line gets the first line without its CRLF, once whole.
HeadStatus split_head(const std::string& s, std::size_t max_head,
                      std::optional<std::string>& first_line, NaiveHead& head) {
  const HeadStatus short_status =
      s.size() >= max_head ? HeadStatus::kTooLarge : HeadStatus::kIncomplete;
  const std::size_t lf = s.find('\n');
  if (lf == std::string::npos || lf >= max_head) return short_status;
  if (lf == 0 || s[lf - 1] != '\r') return HeadStatus::kBad;
  first_line = s.substr(0, lf - 1);
  std::size_t pos = lf + 1;
  for (;;) {
    const std::size_t nl = pos < s.size() ? s.find('\n', pos) : std::string::npos;
    if (nl == std::string::npos) return short_status;
    if (nl + 1 > max_head) return HeadStatus::kTooLarge;
    if (nl == pos || s[nl - 1] != '\r') return HeadStatus::kBad;
    const std::string line = s.substr(pos, nl - 1 - pos);
    if (line.empty()) {
      head.head_len = nl + 1;
      return HeadStatus::kComplete;
    }
    if (line[0] == ' ' || line[0] == '\t') return HeadStatus::kBad;
    const std::size_t colon = line.find(':');
    if (colon == std::string::npos || !is_token(line.substr(0, colon))) return HeadStatus::kBad;
    const std::string value = trim(line.substr(colon + 1));
    for (char c : value) {
      const auto u = static_cast<unsigned char>(c);
      if ((u < 0x20 && c != '\t') || u == 0x7f) return HeadStatus::kBad;
    }
    if (head.fields.size() == http1::kMaxHeaderFields) return HeadStatus::kTooLarge;
    head.fields.push_back({lower(line.substr(0, colon)), value, pos, nl + 1 - pos, false});
    pos = nl + 1;
  }
}

std::vector<const NaiveField*> named(const NaiveHead& head, const std::string& name) {
  std::vector<const NaiveField*> out;
  for (const NaiveField& f : head.fields) {
    if (f.name == name) out.push_back(&f);
  }
  return out;
}

// Connection tokens: close, keep-alive (HTTP/1.0), and the names of hop-by-hop fields.
void apply_connection(NaiveHead& head) {
  bool close = false;
  bool keep = false;
  for (const NaiveField* f : named(head, "connection")) {
    for (const std::string& raw : split(f->value, ',')) {
      const std::string tok = lower(trim(raw));
      if (tok.empty()) continue;
      if (tok == "close") {
        close = true;
      } else if (tok == "keep-alive") {
        keep = true;
      } else {
        for (NaiveField& g : head.fields) {
          if (g.name == tok && g.name != "host") g.hop_by_hop = true;
        }
      }
    }
  }
  head.keep_alive = !close && (head.minor_version == 1 || keep);
}

// All Content-Length values: digits, and equal. Sets head.content_length.
bool read_lengths(NaiveHead& head, const std::vector<const NaiveField*>& lengths) {
  for (const NaiveField* f : lengths) {
    if (!all_digits(f->value)) return false;
    if (std::stoull(f->value) != std::stoull(lengths.front()->value)) return false;
  }
  if (!lengths.empty()) head.content_length = std::stoull(lengths.front()->value);
  return true;
}

NaiveHead bad(HeadStatus st) {
  NaiveHead h;
  h.status = st;
  return h;
}

}  // namespace

NaiveHead naive_parse_request(std::string_view buf, std::size_t max_head) {
  const std::string s(buf);
  NaiveHead head;
  std::optional<std::string> line;
  const HeadStatus st = split_head(s, max_head, line, head);
  // The request line is judged as soon as it is whole, before the fields.
  if (!line) return bad(st);
  const std::vector<std::string> parts = split(*line, ' ');
  if (parts.size() != 3 || !is_token(parts[0]) || parts[1].empty() ||
      !parse_version(parts[2], head.minor_version)) {
    return bad(HeadStatus::kBad);
  }
  for (char c : parts[1]) {
    const auto u = static_cast<unsigned char>(c);
    if (u <= 0x20 || u == 0x7f) return bad(HeadStatus::kBad);
  }
  if (st != HeadStatus::kComplete) return bad(st);
  head.method = parts[0];
  head.target = parts[1];

  const auto hosts = named(head, "host");
  const auto lengths = named(head, "content-length");
  const auto codings = named(head, "transfer-encoding");
  if (hosts.size() > 1 || (hosts.empty() && head.minor_version == 1)) return bad(HeadStatus::kBad);
  if (!read_lengths(head, lengths)) return bad(HeadStatus::kBad);
  if (codings.size() > 1) return bad(HeadStatus::kBad);
  if (!codings.empty() &&
      (lower(codings[0]->value) != "chunked" || !lengths.empty() || head.minor_version == 0)) {
    return bad(HeadStatus::kBad);
  }
  apply_connection(head);
  if (!hosts.empty()) head.host = hosts[0]->value;
  if (auto v = named(head, "cookie"); !v.empty()) head.cookie = v.front()->value;
  if (auto v = named(head, "user-agent"); !v.empty()) head.user_agent = v.back()->value;
  if (auto v = named(head, "referer"); !v.empty()) head.referer = v.back()->value;
  if (auto v = named(head, "expect"); !v.empty()) {
    head.expect_continue = lower(v.back()->value) == "100-continue";
  }
  if (!codings.empty()) {
    head.body = BodyKind::kChunked;
  } else if (head.content_length > 0) {
    head.body = BodyKind::kLength;
  }
  head.status = HeadStatus::kComplete;
  return head;
}

NaiveHead naive_parse_response(std::string_view buf, std::size_t max_head, bool request_was_head) {
  const std::string s(buf);
  NaiveHead head;
  std::optional<std::string> first;
  const HeadStatus st = split_head(s, max_head, first, head);
  if (!first) return bad(st);
  const std::string& line = *first;
  if (line.size() < 12 || !parse_version(line.substr(0, 8), head.minor_version) || line[8] != ' ' ||
      !std::all_of(line.begin() + 9, line.begin() + 12, is_digit) ||
      (line.size() > 12 && line[12] != ' ')) {
    return bad(HeadStatus::kBad);
  }
  head.status_code = std::stoi(line.substr(9, 3));
  if (head.status_code < 100) return bad(HeadStatus::kBad);
  if (st != HeadStatus::kComplete) return bad(st);
  const auto lengths = named(head, "content-length");
  const auto codings = named(head, "transfer-encoding");
  if (!read_lengths(head, lengths)) return bad(HeadStatus::kBad);
  if (!codings.empty() && !lengths.empty()) return bad(HeadStatus::kBad);
  apply_connection(head);
  const int code = head.status_code;
  if (request_was_head || code < 200 || code == 204 || code == 304) {
    head.body = BodyKind::kNone;
  } else if (!codings.empty()) {
    const std::vector<std::string> list = split(codings.back()->value, ',');
    head.body = lower(trim(list.back())) == "chunked" ? BodyKind::kChunked : BodyKind::kUntilClose;
  } else if (!lengths.empty()) {
    head.body = head.content_length > 0 ? BodyKind::kLength : BodyKind::kNone;
  } else {
    head.body = BodyKind::kUntilClose;
  }
  if (head.body == BodyKind::kUntilClose) head.keep_alive = false;
  head.status = HeadStatus::kComplete;
  return head;
}

namespace {

// RFC 9112 7.1 and RFC 9110 5.1, 5.5, 5.6.2, 5.6.4 written out as expressions, so the decoder's
// states are checked against the grammar itself:
//   chunk-size [ chunk-ext ]  with  chunk-ext = *( BWS ";" BWS token [ BWS "=" BWS
//                                   ( token / quoted-string ) ] )
//   field-name ":" OWS field-value OWS  (a trailer line)
// Latin-1, so that obs-text (0x80-0xFF) is one byte each.
const RE2& grammar(bool trailer) {
  static const auto make = [](const std::string& expr) {
    RE2::Options options;
    options.set_encoding(RE2::Options::EncodingLatin1);
    options.set_log_errors(false);
    return std::make_unique<RE2>(expr, options);
  };
  static const std::string token = "[!#$%&'*+\\-.^_`|~0-9A-Za-z]+";
  static const std::string quoted =
      "\"(?:[\\t \\x21\\x23-\\x5b\\x5d-\\x7e\\x80-\\xff]|\\\\[\\t \\x21-\\x7e\\x80-\\xff])*\"";
  static const std::unique_ptr<RE2> size_line =
      make("[0-9A-Fa-f]+(?:[ \\t]*;[ \\t]*" + token + "(?:[ \\t]*=[ \\t]*(?:" + token + "|" +
           quoted + "))?)*");
  static const std::unique_ptr<RE2> field_line = make(token + ":[\\t \\x21-\\x7e\\x80-\\xff]*");
  return trailer ? *field_line : *size_line;
}

}  // namespace

std::optional<std::size_t> naive_chunked_length(std::string_view in) {
  const std::string s(in);
  std::size_t p = 0;
  for (;;) {
    const std::size_t crlf = s.find("\r\n", p);
    if (crlf == std::string::npos || crlf == p) return std::nullopt;
    const std::string line = s.substr(p, crlf - p);
    if (line.size() + 1 > 4096) return std::nullopt;
    const std::size_t ext = line.find_first_of("; \t");
    const std::string digits = line.substr(0, ext);
    if (digits.empty() || digits.size() > 15 ||
        !std::all_of(digits.begin(), digits.end(),
                     [](char c) { return std::isxdigit(static_cast<unsigned char>(c)); })) {
      return std::nullopt;
    }
    if (!RE2::FullMatch(line, grammar(false))) return std::nullopt;
    const std::size_t size = std::stoull(digits, nullptr, 16);
    p = crlf + 2;
    if (size == 0) break;
    if (p + size + 2 > s.size() || s.compare(p + size, 2, "\r\n") != 0) return std::nullopt;
    p += size + 2;
  }
  std::size_t trailer_bytes = 0;
  for (;;) {
    const std::size_t crlf = s.find("\r\n", p);
    if (crlf == std::string::npos) return std::nullopt;
    if (crlf == p) return p + 2;
    const std::string line = s.substr(p, crlf - p);
    if (!RE2::FullMatch(line, grammar(true))) return std::nullopt;
    trailer_bytes += line.size() + 1;
    if (trailer_bytes > 8192) return std::nullopt;
    p = crlf + 2;
  }
}

}  // namespace gatebench::peers
