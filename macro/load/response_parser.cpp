#include "macro/load/response_parser.hpp"

#include <algorithm>
#include <array>
#include <cstring>

namespace gatebench::load {
namespace {

constexpr std::size_t kMaxChunkLine = 4096;
constexpr std::size_t kMaxTrailerBytes = 8192;
constexpr int kMaxChunkDigits = 15;  // < 2^60 bytes: no overflow when accumulating

// Case-insensitive match against a lowercase literal: only the literal's letters may differ in
// case, so one OR per byte does and no other byte can match by accident.
bool iequals(std::string_view a, std::string_view lower_literal) {
  if (a.size() != lower_literal.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    const char x = a[i];
    const char y = lower_literal[i];
    if (x != y && (static_cast<char>(x | 0x20) != y || y < 'a' || y > 'z')) return false;
  }
  return true;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// RFC 9110 tchar, as a table: the header loop looks at every byte of every name.
constexpr std::array<bool, 256> make_token_table() {
  std::array<bool, 256> t{};
  for (int c = '0'; c <= '9'; ++c) t[static_cast<std::size_t>(c)] = true;
  for (int c = 'a'; c <= 'z'; ++c) t[static_cast<std::size_t>(c)] = true;
  for (int c = 'A'; c <= 'Z'; ++c) t[static_cast<std::size_t>(c)] = true;
  for (char c : std::string_view("!#$%&'*+-.^_`|~")) t[static_cast<unsigned char>(c)] = true;
  return t;
}
constexpr std::array<bool, 256> kTokenChar = make_token_table();

// Calls fn(token) for each comma-separated element of a header value.
template <typename Fn>
void for_each_token(std::string_view value, Fn fn) {
  while (!value.empty()) {
    const std::size_t comma = value.find(',');
    fn(trim(value.substr(0, comma)));
    if (comma == std::string_view::npos) break;
    value.remove_prefix(comma + 1);
  }
}

}  // namespace

void ResponseParser::reset(bool head_request) {
  state_ = State::kHeaders;
  head_request_ = head_request;
  keep_alive_ = true;
  started_ = false;
  status_code_ = 0;
  header_scan_ = 0;
  remaining_ = 0;
  body_bytes_ = 0;
  chunk_digits_ = 0;
  line_bytes_ = 0;
  error_ = "";
}

ParseResult ResponseParser::fail(const char* why) {
  state_ = State::kFailed;
  error_ = why;
  keep_alive_ = false;
  return {ParseStatus::kError, 0};
}

ParseResult ResponseParser::feed(std::string_view data) {
  if (state_ == State::kFailed) return {ParseStatus::kError, 0};
  if (state_ == State::kDone) return {ParseStatus::kComplete, 0};
  if (!data.empty()) started_ = true;
  std::size_t pos = 0;
  while (state_ == State::kHeaders) {
    // Garbage is recognised at once rather than after a header block that may never end.
    constexpr std::string_view kPrefix = "HTTP/";
    const std::size_t check = std::min(data.size(), kPrefix.size());
    if (data.substr(0, check) != kPrefix.substr(0, check)) return fail("not an HTTP response");
    const std::size_t from = header_scan_ >= 3 ? header_scan_ - 3 : 0;
    const std::size_t end = data.find("\r\n\r\n", from);
    if (end == std::string_view::npos) {
      if (data.size() > kMaxHeaderBytes) return fail("header block too large");
      header_scan_ = data.size();
      return {ParseStatus::kNeedMore, 0};
    }
    if (end + 4 > kMaxHeaderBytes) return fail("header block too large");
    if (!parse_head(data.substr(0, end + 2))) return {ParseStatus::kError, 0};
    pos = end + 4;
    if (state_ == State::kHeaders) {
      // An interim 1xx response: the real one follows in the same stream.
      data.remove_prefix(pos);
      if (data.empty()) return {ParseStatus::kNeedMore, pos};
      // Interim bytes are consumed only together with the final response; rescan from 0.
      ParseResult rest = feed(data);
      if (rest.status == ParseStatus::kNeedMore && rest.consumed == 0 && state_ == State::kHeaders)
        return {ParseStatus::kNeedMore, pos};
      rest.consumed += pos;
      return rest;
    }
  }
  switch (state_) {
    case State::kDone:
      return {ParseStatus::kComplete, pos};
    case State::kBodyLength: {
      const std::uint64_t take = std::min<std::uint64_t>(remaining_, data.size() - pos);
      remaining_ -= take;
      body_bytes_ += take;
      pos += take;
      if (remaining_ == 0) {
        state_ = State::kDone;
        return {ParseStatus::kComplete, pos};
      }
      return {ParseStatus::kNeedMore, pos};
    }
    case State::kBodyUntilClose:
      body_bytes_ += data.size() - pos;
      return {ParseStatus::kNeedMore, data.size()};
    default:
      return feed_chunked(data, pos);
  }
}

bool ResponseParser::parse_head(std::string_view head) {
  // Status line: HTTP/1.x SP 3DIGIT [SP reason] CRLF
  const std::size_t eol = head.find('\n') - 1;  // head ends with CRLF
  if (head[eol] != '\r') {
    fail("malformed status line");
    return false;
  }
  const std::string_view line = head.substr(0, eol);
  if (line.size() < 12 || line.substr(0, 7) != "HTTP/1." || line[8] != ' ' ||
      (line.size() > 12 && line[12] != ' ')) {
    fail("malformed status line");
    return false;
  }
  const bool http10 = line[7] == '0';
  if (!http10 && line[7] != '1') {
    fail("unsupported HTTP version");
    return false;
  }
  int code = 0;
  for (int i = 9; i < 12; ++i) {
    if (line[i] < '0' || line[i] > '9') {
      fail("malformed status code");
      return false;
    }
    code = code * 10 + (line[i] - '0');
  }
  if (code < 100 || code > 599) {  // RFC 9110 15: 100-599; counters are sized for that
    fail("status code out of range");
    return false;
  }
  status_code_ = code;

  bool have_length = false;
  std::uint64_t length = 0;
  bool chunked = false;
  bool has_transfer_encoding = false;
  bool conn_close = false;
  bool conn_keep_alive = false;
  std::string_view rest = head.substr(eol + 2);
  while (!rest.empty()) {
    // The block ends with CRLF (checked by feed), so every line has its '\n'.
    const char* base = rest.data();
    const auto len = static_cast<std::size_t>(
        static_cast<const char*>(std::memchr(base, '\n', rest.size())) - base);
    if (len == 0 || base[len - 1] != '\r') {
      fail("header line not ended by CRLF");
      return false;
    }
    const std::string_view field(base, len - 1);
    rest.remove_prefix(len + 1);
    std::size_t colon = 0;
    while (colon < field.size() && kTokenChar[static_cast<unsigned char>(field[colon])]) ++colon;
    if (colon == field.size()) {
      fail("malformed header field");
      return false;
    }
    if (colon == 0 || field[colon] != ':') {
      fail("malformed header name");
      return false;
    }
    const std::string_view name = field.substr(0, colon);
    // Only three names matter; their lengths (14, 17, 10) tell them apart before comparing.
    if (name.size() == 14 && iequals(name, "content-length")) {
      const std::string_view value = trim(field.substr(colon + 1));
      if (value.empty() || value.size() > 18) {
        fail("bad Content-Length");
        return false;
      }
      std::uint64_t v = 0;
      for (char c : value) {
        if (c < '0' || c > '9') {
          fail("bad Content-Length");
          return false;
        }
        v = v * 10 + static_cast<std::uint64_t>(c - '0');
      }
      if (have_length && v != length) {
        fail("conflicting Content-Length");
        return false;
      }
      have_length = true;
      length = v;
    } else if (name.size() == 17 && iequals(name, "transfer-encoding")) {
      has_transfer_encoding = true;
      // Chunked must be the last coding for the length to be known.
      chunked = false;
      for_each_token(trim(field.substr(colon + 1)),
                     [&](std::string_view t) { chunked = iequals(t, "chunked"); });
    } else if (name.size() == 10 && iequals(name, "connection")) {
      for_each_token(trim(field.substr(colon + 1)), [&](std::string_view t) {
        if (iequals(t, "close")) conn_close = true;
        if (iequals(t, "keep-alive")) conn_keep_alive = true;
      });
    }
  }
  keep_alive_ = !conn_close && (!http10 || conn_keep_alive);

  if (code < 200) {
    if (code == 101) {
      fail("unexpected 101 Switching Protocols");
      return false;
    }
    header_scan_ = 0;  // interim response: state stays kHeaders
    return true;
  }
  if (head_request_ || code == 204 || code == 304) {
    state_ = State::kDone;
  } else if (has_transfer_encoding) {
    if (chunked) {
      state_ = State::kChunkSize;
      chunk_digits_ = 0;
      remaining_ = 0;
      line_bytes_ = 0;
    } else {
      state_ = State::kBodyUntilClose;
      keep_alive_ = false;
    }
  } else if (have_length) {
    remaining_ = length;
    state_ = length == 0 ? State::kDone : State::kBodyLength;
  } else {
    state_ = State::kBodyUntilClose;
    keep_alive_ = false;
  }
  return true;
}

ParseResult ResponseParser::feed_chunked(std::string_view data, std::size_t pos) {
  while (pos < data.size()) {
    const char c = data[pos];
    switch (state_) {
      case State::kChunkSize: {
        const int h = hex_value(c);
        if (h >= 0) {
          if (++chunk_digits_ > kMaxChunkDigits) return fail("chunk size too large");
          remaining_ = remaining_ * 16 + static_cast<std::uint64_t>(h);
        } else if (chunk_digits_ == 0) {
          return fail("bad chunk size");
        } else if (c == ';' || c == ' ' || c == '\t') {
          state_ = State::kChunkExtension;
        } else if (c == '\r') {
          state_ = State::kChunkSizeLf;
        } else {
          return fail("bad chunk size");
        }
        if (++line_bytes_ > kMaxChunkLine) return fail("chunk size line too long");
        ++pos;
        break;
      }
      case State::kChunkExtension:
        if (c == '\r') state_ = State::kChunkSizeLf;
        if (c == '\n') return fail("bad chunk size line ending");
        if (++line_bytes_ > kMaxChunkLine) return fail("chunk size line too long");
        ++pos;
        break;
      case State::kChunkSizeLf:
        if (c != '\n') return fail("bad chunk size line ending");
        ++pos;
        line_bytes_ = 0;
        chunk_digits_ = 0;
        if (remaining_ == 0) {
          state_ = State::kTrailerStart;
        } else {
          state_ = State::kChunkData;
        }
        break;
      case State::kChunkData: {
        const std::uint64_t take = std::min<std::uint64_t>(remaining_, data.size() - pos);
        remaining_ -= take;
        body_bytes_ += take;
        pos += take;
        if (remaining_ == 0) state_ = State::kChunkDataCr;
        break;
      }
      case State::kChunkDataCr:
        if (c != '\r') return fail("chunk data not followed by CRLF");
        state_ = State::kChunkDataLf;
        ++pos;
        break;
      case State::kChunkDataLf:
        if (c != '\n') return fail("chunk data not followed by CRLF");
        state_ = State::kChunkSize;
        ++pos;
        break;
      case State::kTrailerStart:
        if (c == '\r') {
          state_ = State::kTrailerEndLf;
        } else if (c == '\n') {
          return fail("bad trailer line ending");
        } else {
          state_ = State::kTrailerLine;
          if (++line_bytes_ > kMaxTrailerBytes) return fail("trailer too large");
        }
        ++pos;
        break;
      case State::kTrailerLine:
        if (c == '\n') return fail("bad trailer line ending");
        if (c == '\r') state_ = State::kTrailerLf;
        if (++line_bytes_ > kMaxTrailerBytes) return fail("trailer too large");
        ++pos;
        break;
      case State::kTrailerLf:
        if (c != '\n') return fail("bad trailer line ending");
        state_ = State::kTrailerStart;
        ++pos;
        break;
      case State::kTrailerEndLf:
        if (c != '\n') return fail("bad end of chunked body");
        state_ = State::kDone;
        return {ParseStatus::kComplete, pos + 1};
      default:
        return fail("internal parser state");
    }
  }
  return {ParseStatus::kNeedMore, pos};
}

ParseStatus ResponseParser::finish_eof() {
  if (state_ == State::kBodyUntilClose) {
    state_ = State::kDone;
    return ParseStatus::kComplete;
  }
  if (state_ == State::kDone) return ParseStatus::kComplete;
  if (state_ != State::kFailed) fail(started_ ? "truncated response" : "closed before response");
  return ParseStatus::kError;
}

}  // namespace gatebench::load
