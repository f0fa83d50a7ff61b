#include "micro/core/access_log/unescape.hpp"

#include "micro/core/access_log/scan.hpp"

namespace gatebench::access_log {
namespace {

int hex2(const char* p) {
  return detail::hex_value(static_cast<unsigned char>(p[0])) * 16 +
         detail::hex_value(static_cast<unsigned char>(p[1]));
}

std::size_t put_utf8(char* o, std::uint32_t cp) {
  if (cp < 0x80) {
    o[0] = static_cast<char>(cp);
    return 1;
  }
  if (cp < 0x800) {
    o[0] = static_cast<char>(0xc0 | (cp >> 6));
    o[1] = static_cast<char>(0x80 | (cp & 0x3f));
    return 2;
  }
  if (cp < 0x10000) {
    o[0] = static_cast<char>(0xe0 | (cp >> 12));
    o[1] = static_cast<char>(0x80 | ((cp >> 6) & 0x3f));
    o[2] = static_cast<char>(0x80 | (cp & 0x3f));
    return 3;
  }
  o[0] = static_cast<char>(0xf0 | (cp >> 18));
  o[1] = static_cast<char>(0x80 | ((cp >> 12) & 0x3f));
  o[2] = static_cast<char>(0x80 | ((cp >> 6) & 0x3f));
  o[3] = static_cast<char>(0x80 | (cp & 0x3f));
  return 4;
}

std::uint32_t hex4(const char* p) {
  return static_cast<std::uint32_t>(hex2(p) << 8 | hex2(p + 2));
}

}  // namespace

std::string_view unescape(Format format, std::string_view raw, std::span<char> out) {
  char* o = out.data();
  const char* p = raw.data();
  const char* const e = p + raw.size();
  while (p < e) {
    if (*p != '\\' || e - p < 2) {
      *o++ = *p++;
      continue;
    }
    const char c = p[1];
    if (c == 'x' && format != Format::jsonl && e - p >= 4) {
      *o++ = static_cast<char>(hex2(p + 2));
      p += 4;
      continue;
    }
    if (format == Format::combined) {  // nginx writes no other escape
      *o++ = *p++;
      continue;
    }
    switch (c) {
      case '\\':
        *o++ = '\\';
        break;
      case 't':
        *o++ = '\t';
        break;
      case 'n':
        *o++ = '\n';
        break;
      case 'r':
        *o++ = '\r';
        break;
      case '"':
        *o++ = '"';
        break;
      case '/':
        *o++ = '/';
        break;
      case 'b':
        *o++ = '\b';
        break;
      case 'f':
        *o++ = '\f';
        break;
      case 'u':
        if (e - p >= 6) {
          std::uint32_t cp = hex4(p + 2);
          std::size_t used = 6;
          if (cp >= 0xd800 && cp < 0xdc00 && e - p >= 12 && p[6] == '\\' && p[7] == 'u') {
            const std::uint32_t lo = hex4(p + 8);
            if (lo >= 0xdc00 && lo < 0xe000) {
              cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
              used = 12;
            }
          }
          if (cp >= 0xd800 && cp < 0xe000) cp = 0xfffd;
          o += put_utf8(o, cp);
          p += used;
          continue;
        }
        [[fallthrough]];
      default:  // not produced by an accepting parser; keep the bytes
        *o++ = p[0];
        *o++ = p[1];
        break;
    }
    p += 2;
  }
  return {out.data(), static_cast<std::size_t>(o - out.data())};
}

std::string unescape_copy(Format format, std::string_view raw) {
  std::string s(raw.size(), '\0');
  s.resize(unescape(format, raw, s).size());
  return s;
}

std::string field_value(Format format, const AccessLogRecord& r, std::string_view field,
                        std::uint8_t escaped_bit) {
  if ((r.escaped & escaped_bit) == 0) return std::string(field);
  return unescape_copy(format, field);
}

}  // namespace gatebench::access_log
