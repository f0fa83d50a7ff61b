#include "micro/core/tokens/jwt_json.hpp"

#include <limits>

namespace gatebench::tokens {
namespace {

class Reader {
 public:
  explicit Reader(std::string_view s) : s_(s) {}

  bool at_end() const { return pos_ == s_.size(); }
  std::size_t pos() const { return pos_; }

  void skip_ws() {
    while (pos_ < s_.size() &&
           (s_[pos_] == ' ' || s_[pos_] == '\t' || s_[pos_] == '\n' || s_[pos_] == '\r')) {
      ++pos_;
    }
  }

  bool eat(char c) {
    skip_ws();
    if (pos_ < s_.size() && s_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }

  char peek() {
    skip_ws();
    return pos_ < s_.size() ? s_[pos_] : '\0';
  }

  // At an opening quote: the raw content up to the closing quote.
  bool string(std::string_view& raw, bool& has_escape) {
    if (!eat('"')) return false;
    const std::size_t start = pos_;
    has_escape = false;
    while (pos_ < s_.size()) {
      const auto c = static_cast<unsigned char>(s_[pos_]);
      if (c == '"') {
        raw = s_.substr(start, pos_ - start);
        ++pos_;
        return true;
      }
      if (c < 0x20) return false;
      if (c >= 0x80) {
        if (!utf8_sequence()) return false;
        continue;
      }
      if (c == '\\') {
        has_escape = true;
        if (++pos_ >= s_.size()) return false;
        const char e = s_[pos_];
        if (e == 'u') {
          for (int i = 0; i < 4; ++i) {
            if (++pos_ >= s_.size() || !is_hex(s_[pos_])) return false;
          }
        } else if (e != '"' && e != '\\' && e != '/' && e != 'b' && e != 'f' && e != 'n' &&
                   e != 'r' && e != 't') {
          return false;
        }
      }
      ++pos_;
    }
    return false;
  }

  // A JSON number; `integer` gets its integer part when it has no exponent and fits an int64.
  bool number(std::int64_t& integer, bool& integer_ok) {
    skip_ws();
    const bool negative = pos_ < s_.size() && s_[pos_] == '-';
    if (negative) ++pos_;
    if (pos_ >= s_.size() || !is_digit(s_[pos_])) return false;
    integer_ok = true;
    std::uint64_t magnitude = 0;
    if (s_[pos_] == '0') {
      ++pos_;
    } else {
      while (pos_ < s_.size() && is_digit(s_[pos_])) {
        const auto d = static_cast<std::uint64_t>(s_[pos_] - '0');
        if (magnitude > (std::numeric_limits<std::uint64_t>::max() - d) / 10)
          integer_ok = false;
        else
          magnitude = magnitude * 10 + d;
        ++pos_;
      }
    }
    if (pos_ < s_.size() && s_[pos_] == '.') {
      ++pos_;
      if (pos_ >= s_.size() || !is_digit(s_[pos_])) return false;
      while (pos_ < s_.size() && is_digit(s_[pos_])) ++pos_;
    }
    if (pos_ < s_.size() && (s_[pos_] == 'e' || s_[pos_] == 'E')) {
      integer_ok = false;
      ++pos_;
      if (pos_ < s_.size() && (s_[pos_] == '+' || s_[pos_] == '-')) ++pos_;
      if (pos_ >= s_.size() || !is_digit(s_[pos_])) return false;
      while (pos_ < s_.size() && is_digit(s_[pos_])) ++pos_;
    }
    const std::uint64_t limit =
        negative ? std::uint64_t{1} << 63 : std::uint64_t{std::numeric_limits<std::int64_t>::max()};
    if (magnitude > limit) integer_ok = false;
    if (integer_ok) {
      integer = negative ? static_cast<std::int64_t>(0 - magnitude)
                         : static_cast<std::int64_t>(magnitude);
    }
    return true;
  }

  bool literal(std::string_view word) {
    skip_ws();
    if (s_.substr(pos_, word.size()) != word) return false;
    pos_ += word.size();
    return true;
  }

  bool value(int depth) {
    if (depth > kJwtJsonMaxDepth) return false;
    switch (peek()) {
      case '"': {
        std::string_view raw;
        bool esc;
        return string(raw, esc);
      }
      case '{': {
        ++pos_;
        if (eat('}')) return true;
        do {
          std::string_view raw;
          bool esc;
          if (!string(raw, esc) || !eat(':') || !value(depth + 1)) return false;
        } while (eat(','));
        return eat('}');
      }
      case '[': {
        ++pos_;
        if (eat(']')) return true;
        do {
          if (!value(depth + 1)) return false;
        } while (eat(','));
        return eat(']');
      }
      case 't':
        return literal("true");
      case 'f':
        return literal("false");
      case 'n':
        return literal("null");
      default: {
        std::int64_t ignored;
        bool ok;
        return number(ignored, ok);
      }
    }
  }

 private:
  // At a byte >= 0x80: consumes one well-formed UTF-8 sequence (no overlong forms, no
  // surrogates, nothing above U+10FFFF), as RFC 8259 text must be.
  bool utf8_sequence() {
    const auto byte = [&](std::size_t i) { return static_cast<unsigned char>(s_[pos_ + i]); };
    const unsigned char c = byte(0);
    std::size_t length;
    unsigned char low = 0x80, high = 0xbf;  // range of the second byte
    if (c >= 0xc2 && c <= 0xdf) {
      length = 2;
    } else if (c >= 0xe0 && c <= 0xef) {
      length = 3;
      if (c == 0xe0) low = 0xa0;
      if (c == 0xed) high = 0x9f;
    } else if (c >= 0xf0 && c <= 0xf4) {
      length = 4;
      if (c == 0xf0) low = 0x90;
      if (c == 0xf4) high = 0x8f;
    } else {
      return false;
    }
    if (s_.size() - pos_ < length) return false;
    if (byte(1) < low || byte(1) > high) return false;
    for (std::size_t i = 2; i < length; ++i) {
      if (byte(i) < 0x80 || byte(i) > 0xbf) return false;
    }
    pos_ += length;
    return true;
  }

  static bool is_digit(char c) { return c >= '0' && c <= '9'; }
  static bool is_hex(char c) {
    return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
  }

  std::string_view s_;
  std::size_t pos_ = 0;
};

}  // namespace

bool scan_json_object(std::string_view json, std::span<JwtJsonField> fields) {
  Reader r(json);
  if (!r.eat('{')) return false;
  if (!r.eat('}')) {
    do {
      std::string_view name;
      bool name_escaped;
      if (!r.string(name, name_escaped) || !r.eat(':')) return false;
      JwtJsonField* field = nullptr;
      if (!name_escaped) {
        for (auto& f : fields) {
          if (f.name == name) field = &f;
        }
      }
      if (field == nullptr) {
        if (!r.value(1)) return false;
        continue;
      }
      if (field->found) return false;
      field->found = true;
      if (field->type == JwtJsonField::Type::raw) {
        r.skip_ws();
        const std::size_t start = r.pos();
        if (!r.value(1)) return false;
        field->string_raw = json.substr(start, r.pos() - start);
        field->type_ok = true;
      } else if (field->type == JwtJsonField::Type::string && r.peek() == '"') {
        if (!r.string(field->string_raw, field->string_has_escape)) return false;
        field->type_ok = true;
      } else if (field->type == JwtJsonField::Type::integer && r.peek() != '"' && r.peek() != '{' &&
                 r.peek() != '[' && r.peek() != 't' && r.peek() != 'f' && r.peek() != 'n') {
        if (!r.number(field->integer, field->type_ok)) return false;
      } else {
        if (!r.value(1)) return false;  // present with another type: type_ok stays false
      }
    } while (r.eat(','));
    if (!r.eat('}')) return false;
  }
  r.skip_ws();
  return r.at_end();
}

bool json_value_has_string(std::string_view raw_value, std::string_view needle) {
  Reader r(raw_value);
  std::string_view s;
  bool escaped = false;
  if (r.peek() == '"') return r.string(s, escaped) && !escaped && s == needle;
  if (!r.eat('[') || r.eat(']')) return false;
  do {
    if (r.peek() != '"') {
      if (!r.value(1)) return false;
      continue;
    }
    if (!r.string(s, escaped)) return false;
    if (!escaped && s == needle) return true;
  } while (r.eat(','));
  return false;
}

bool for_each_json_member(std::string_view json, JsonMemberVisitor visit, void* context) {
  Reader r(json);
  if (!r.eat('{')) return false;
  if (!r.eat('}')) {
    do {
      std::string_view name;
      bool escaped;
      if (!r.string(name, escaped) || !r.eat(':')) return false;
      r.skip_ws();
      const std::size_t start = r.pos();
      if (!r.value(1)) return false;
      visit(context, name, json.substr(start, r.pos() - start));
    } while (r.eat(','));
    if (!r.eat('}')) return false;
  }
  r.skip_ws();
  return r.at_end();
}

namespace {

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// Four hex digits at raw[i..i+3].
std::optional<std::uint32_t> hex4(std::string_view raw, std::size_t i) {
  if (raw.size() < i + 4) return std::nullopt;
  std::uint32_t v = 0;
  for (std::size_t k = 0; k < 4; ++k) {
    const int h = hex_value(raw[i + k]);
    if (h < 0) return std::nullopt;
    v = v * 16 + static_cast<std::uint32_t>(h);
  }
  return v;
}

}  // namespace

std::optional<std::size_t> json_unescape(std::string_view raw, std::span<char> out) {
  std::size_t n = 0;
  const auto put = [&](char c) {
    if (n == out.size()) return false;
    out[n++] = c;
    return true;
  };
  for (std::size_t i = 0; i < raw.size(); ++i) {
    if (raw[i] != '\\') {
      if (!put(raw[i])) return std::nullopt;
      continue;
    }
    if (++i == raw.size()) return std::nullopt;
    char c = raw[i];
    switch (c) {
      case '"':
      case '\\':
      case '/':
        break;
      case 'b':
        c = '\b';
        break;
      case 'f':
        c = '\f';
        break;
      case 'n':
        c = '\n';
        break;
      case 'r':
        c = '\r';
        break;
      case 't':
        c = '\t';
        break;
      case 'u': {
        std::optional<std::uint32_t> cp = hex4(raw, i + 1);
        if (!cp) return std::nullopt;
        i += 4;
        if (*cp >= 0xDC00 && *cp <= 0xDFFF) return std::nullopt;  // a lone low surrogate
        if (*cp >= 0xD800 && *cp <= 0xDBFF) {
          if (raw.substr(i + 1, 2) != "\\u") return std::nullopt;
          std::optional<std::uint32_t> low = hex4(raw, i + 3);
          if (!low || *low < 0xDC00 || *low > 0xDFFF) return std::nullopt;
          i += 6;
          *cp = 0x10000 + ((*cp - 0xD800) << 10) + (*low - 0xDC00);
        }
        const std::uint32_t v = *cp;
        bool ok = true;
        if (v < 0x80) {
          ok = put(static_cast<char>(v));
        } else if (v < 0x800) {
          ok = put(static_cast<char>(0xC0 | (v >> 6))) && put(static_cast<char>(0x80 | (v & 0x3F)));
        } else if (v < 0x10000) {
          ok = put(static_cast<char>(0xE0 | (v >> 12))) &&
               put(static_cast<char>(0x80 | ((v >> 6) & 0x3F))) &&
               put(static_cast<char>(0x80 | (v & 0x3F)));
        } else {
          ok = put(static_cast<char>(0xF0 | (v >> 18))) &&
               put(static_cast<char>(0x80 | ((v >> 12) & 0x3F))) &&
               put(static_cast<char>(0x80 | ((v >> 6) & 0x3F))) &&
               put(static_cast<char>(0x80 | (v & 0x3F)));
        }
        if (!ok) return std::nullopt;
        continue;
      }
      default:
        return std::nullopt;
    }
    if (!put(c)) return std::nullopt;
  }
  return n;
}

}  // namespace gatebench::tokens
