#include "micro/core/rules/body_fields.hpp"

#include <algorithm>
#include <array>
#include <cstring>

#include "micro/core/rules/hex_digits.hpp"
#include "micro/core/rules/normalize.hpp"
#include "micro/core/rules/request_ascii.hpp"

namespace gatebench::rules {
namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

// The value of parameter `name` (lower case) in a header value's "; k=v" list, quotes removed.
std::string_view header_param(std::string_view value, std::string_view name) {
  for (std::size_t semi = value.find(';'); semi != std::string_view::npos;) {
    const std::size_t next = value.find(';', semi + 1);
    const std::string_view param = trim(value.substr(semi + 1, next - semi - 1));
    const std::size_t eq = param.find('=');
    if (eq != std::string_view::npos && equals_lower(trim(param.substr(0, eq)), name)) {
      std::string_view v = trim(param.substr(eq + 1));
      if (v.size() >= 2 && v.front() == '"' && v.back() == '"') v = v.substr(1, v.size() - 2);
      return v;
    }
    semi = next;
  }
  return {};
}

class Writer {
 public:
  explicit Writer(char* out) : out_(out) {}
  void put(char c) { out_[len_++] = c; }
  void put(std::string_view s) {
    if (!s.empty()) std::memcpy(out_ + len_, s.data(), s.size());
    len_ += s.size();
  }
  std::string_view view() const { return {out_, len_}; }

 private:
  char* out_;
  std::size_t len_ = 0;
};

int hex4(std::string_view s, std::size_t at) {
  if (at + 4 > s.size()) return -1;
  int v = 0;
  for (std::size_t k = at; k < at + 4; ++k) {
    const std::uint8_t d = kHexValue[static_cast<unsigned char>(s[k])];
    if (d > 15) return -1;
    v = v * 16 + d;
  }
  return v;
}

void put_utf8(Writer& w, std::uint32_t cp) {
  if (cp < 0x80) {
    w.put(static_cast<char>(cp));
  } else if (cp < 0x800) {
    w.put(static_cast<char>(0xC0 | (cp >> 6)));
    w.put(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    w.put(static_cast<char>(0xE0 | (cp >> 12)));
    w.put(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    w.put(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    w.put(static_cast<char>(0xF0 | (cp >> 18)));
    w.put(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    w.put(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    w.put(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

// JSON as a flat list of fields. The grammar is RFC 8259's; output per scalar: its text (strings
// unescaped), '&' after it, and "name=" before a member's value.
class JsonFields {
 public:
  JsonFields(std::string_view s, bool complete, char* out) : s_(s), complete_(complete), w_(out) {}

  BodyStatus run(std::string_view& text) {
    const bool ok = parse();
    text = w_.view();
    // A cut body ends inside some value: the fields before the cut are what there is to scan.
    return ok || !complete_ ? BodyStatus::kOk : BodyStatus::kBadJson;
  }

 private:
  void ws() {
    while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\t' || s_[i_] == '\n' || s_[i_] == '\r'))
      ++i_;
  }
  bool at(char c) {
    ws();
    if (i_ < s_.size() && s_[i_] == c) {
      ++i_;
      return true;
    }
    return false;
  }

  bool string() {  // at the opening quote
    ++i_;
    while (i_ < s_.size()) {
      const char c = s_[i_];
      if (c == '"') {
        ++i_;
        return true;
      }
      if (static_cast<unsigned char>(c) < 0x20) return false;
      if (c != '\\') {
        w_.put(c);
        ++i_;
        continue;
      }
      if (i_ + 1 >= s_.size()) return false;
      const char e = s_[i_ + 1];
      i_ += 2;
      switch (e) {
        case '"':
        case '\\':
        case '/':
          w_.put(e);
          break;
        case 'b':
          w_.put('\b');
          break;
        case 'f':
          w_.put('\f');
          break;
        case 'n':
          w_.put('\n');
          break;
        case 'r':
          w_.put('\r');
          break;
        case 't':
          w_.put('\t');
          break;
        case 'u': {
          int cp = hex4(s_, i_);
          if (cp < 0) return false;
          i_ += 4;
          if (cp >= 0xD800 && cp < 0xDC00 && i_ + 1 < s_.size() && s_[i_] == '\\' &&
              s_[i_ + 1] == 'u') {
            const int low = hex4(s_, i_ + 2);
            if (low >= 0xDC00 && low < 0xE000) {
              cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
              i_ += 6;
            }
          }
          // A lone surrogate has no UTF-8 form: the replacement character stands for it.
          if (cp >= 0xD800 && cp < 0xE000) cp = 0xFFFD;
          put_utf8(w_, static_cast<std::uint32_t>(cp));
          break;
        }
        default:
          return false;
      }
    }
    return false;
  }

  bool scalar() {  // number, true, false, null: copied as written
    const std::size_t start = i_;
    while (i_ < s_.size()) {
      const char c = s_[i_];
      const bool token = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || c == '-' || c == '+' ||
                         c == '.' || c == 'E';
      if (!token) break;
      ++i_;
    }
    const std::string_view t = s_.substr(start, i_ - start);
    if (t.empty()) return false;
    if (t != "true" && t != "false" && t != "null") {
      for (char c : t) {
        if (!((c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E'))
          return false;
      }
    }
    w_.put(t);
    return true;
  }

  // One value; containers are walked with an explicit stack so hostile nesting cannot overflow
  // the thread's stack.
  bool parse() {
    std::array<bool, kMaxJsonDepth> in_object{};
    std::size_t depth = 0;
    for (;;) {
      // A value.
      ws();
      if (i_ >= s_.size()) return false;
      const char c = s_[i_];
      bool opened = false;
      if (c == '{' || c == '[') {
        if (depth == kMaxJsonDepth) return false;
        ++i_;
        in_object[depth++] = c == '{';
        opened = true;
      } else if (c == '"') {
        if (!string()) return false;
        w_.put('&');
      } else {
        if (!scalar()) return false;
        w_.put('&');
      }
      // What follows: a member name, the next element, or closings.
      bool first = opened;
      for (;;) {
        if (depth == 0) {
          ws();
          return i_ == s_.size();
        }
        const bool object = in_object[depth - 1];
        if (first) {
          if (at(object ? '}' : ']')) {
            --depth;
            first = false;
            continue;
          }
        } else if (at(object ? '}' : ']')) {
          --depth;
          continue;
        } else if (!at(',')) {
          return false;
        }
        if (object) {
          ws();
          if (i_ >= s_.size() || s_[i_] != '"' || !string()) return false;
          w_.put('=');
          if (!at(':')) return false;
        }
        break;  // parse the next value
      }
    }
  }

  std::string_view s_;
  bool complete_;
  Writer w_;
  std::size_t i_ = 0;
};

// The next delimiter line "--boundary" at the start of a line (or of the body) at or after
// `from`; npos when there is none.
std::size_t find_delimiter(std::string_view body, std::string_view boundary, std::size_t from) {
  for (std::size_t k = body.find(boundary, from); k != std::string_view::npos;
       k = body.find(boundary, k + 1)) {
    if (k < 2 || body[k - 1] != '-' || body[k - 2] != '-') continue;
    const std::size_t line = k - 2;
    if (line == 0 || (line >= 2 && body[line - 1] == '\n' && body[line - 2] == '\r')) return line;
  }
  return std::string_view::npos;
}

BodyStatus multipart(std::string_view body, std::string_view boundary, bool complete, char* out,
                     std::string_view& text) {
  Writer w(out);
  text = {};
  if (boundary.empty()) return BodyStatus::kBadMultipart;
  std::size_t d = find_delimiter(body, boundary, 0);
  if (d == std::string_view::npos) return complete ? BodyStatus::kBadMultipart : BodyStatus::kOk;
  for (;;) {
    std::size_t p = d + 2 + boundary.size();
    if (body.substr(p, 2) == "--") {  // the closing delimiter
      text = w.view();
      return BodyStatus::kOk;
    }
    const std::size_t head_end = body.find("\r\n\r\n", p);
    if (head_end == std::string_view::npos) break;
    const std::string_view head = body.substr(p, head_end - p);
    std::string_view name;
    std::string_view filename;
    for (std::size_t l = 0; l < head.size();) {
      std::size_t e = head.find("\r\n", l);
      if (e == std::string_view::npos) e = head.size();
      const std::string_view line = head.substr(l, e - l);
      const std::size_t colon = line.find(':');
      if (colon != std::string_view::npos &&
          equals_lower(trim(line.substr(0, colon)), "content-disposition")) {
        const std::string_view value = line.substr(colon + 1);
        name = header_param(value, "name");
        filename = header_param(value, "filename");
      }
      l = e + 2;
    }
    const std::size_t content = head_end + 4;
    const std::size_t next = find_delimiter(body, boundary, content);
    const std::size_t content_end = next == std::string_view::npos ? body.size() : next - 2;
    if (!filename.empty()) {
      w.put(filename);
      w.put('&');
    }
    w.put(name);
    w.put('=');
    if (content_end > content) w.put(body.substr(content, content_end - content));
    w.put('&');
    if (next == std::string_view::npos) break;
    d = next;
  }
  text = w.view();
  return complete ? BodyStatus::kBadMultipart : BodyStatus::kOk;
}

}  // namespace

const char* to_string(BodyStatus status) {
  switch (status) {
    case BodyStatus::kOk:
      return "ok";
    case BodyStatus::kBadEncoding:
      return "bad percent-encoding in form body";
    case BodyStatus::kBadJson:
      return "body is not valid JSON";
    case BodyStatus::kBadMultipart:
      return "bad multipart body";
  }
  return "?";
}

BodyFormat body_format(std::string_view content_type, std::string_view& boundary) {
  boundary = {};
  const std::string_view type = trim(content_type.substr(0, content_type.find(';')));
  if (equals_lower(type, "application/x-www-form-urlencoded")) return BodyFormat::kForm;
  if (equals_lower(type, "application/json") ||
      (type.size() > 5 && equals_lower(type.substr(type.size() - 5), "+json"))) {
    return BodyFormat::kJson;
  }
  if (equals_lower(type, "multipart/form-data")) {
    boundary = header_param(content_type, "boundary");
    return BodyFormat::kMultipart;
  }
  return BodyFormat::kRaw;
}

std::string_view chunked_data(std::string_view framed, char* out) {
  Writer w(out);
  std::size_t i = 0;
  while (i < framed.size()) {
    std::uint64_t size = 0;
    std::size_t digits = 0;
    for (; i < framed.size() && digits < 16; ++i, ++digits) {
      const std::uint8_t d = kHexValue[static_cast<unsigned char>(framed[i])];
      if (d > 15) break;
      size = size * 16 + d;
    }
    const std::size_t eol = framed.find('\n', i);
    if (size == 0 || eol == std::string_view::npos) break;
    i = eol + 1;
    const std::size_t take =
        static_cast<std::size_t>(std::min<std::uint64_t>(size, framed.size() - i));
    w.put(framed.substr(i, take));
    i += take + 2;  // the CRLF after the data
  }
  return w.view();
}

BodyStatus decode_body_fields(BodyFormat format, std::string_view boundary, std::string_view body,
                              bool complete, char* out, std::string_view& text) {
  switch (format) {
    case BodyFormat::kRaw:
      text = body;
      return BodyStatus::kOk;
    case BodyFormat::kForm: {
      std::string_view b = body;
      if (!complete) {  // cut inside an escape: what precedes it
        const std::size_t pct = b.rfind('%');
        if (pct != std::string_view::npos && pct + 3 > b.size()) b = b.substr(0, pct);
      }
      return normalize_query(b, out, text) == NormalizeStatus::kOk ? BodyStatus::kOk
                                                                   : BodyStatus::kBadEncoding;
    }
    case BodyFormat::kJson:
      return JsonFields(body, complete, out).run(text);
    case BodyFormat::kMultipart:
      return multipart(body, boundary, complete, out, text);
  }
  return BodyStatus::kOk;
}

}  // namespace gatebench::rules
