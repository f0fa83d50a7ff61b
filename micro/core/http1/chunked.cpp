#include "micro/core/http1/chunked.hpp"

#include <array>
#include <cstdint>

#include "micro/core/http1/scan.hpp"

namespace gatebench::http1 {
namespace {

constexpr int kMaxSizeDigits = 15;  // < 2^60 bytes: no overflow when accumulating

// The value of each hex digit, -1 for every other byte: one load per digit.
constexpr std::array<std::int8_t, 256> kHexValue = [] {
  std::array<std::int8_t, 256> t{};
  for (int c = 0; c < 256; ++c) t[static_cast<std::size_t>(c)] = -1;
  for (int c = '0'; c <= '9'; ++c)
    t[static_cast<std::size_t>(c)] = static_cast<std::int8_t>(c - '0');
  for (int c = 'a'; c <= 'f'; ++c) {
    t[static_cast<std::size_t>(c)] = static_cast<std::int8_t>(c - 'a' + 10);
    t[static_cast<std::size_t>(c - 'a' + 'A')] = static_cast<std::int8_t>(c - 'a' + 10);
  }
  return t;
}();

inline int hex_value(char c) {
  return kHexValue[static_cast<unsigned char>(c)];
}

// The common size line, 1-15 hex digits then CRLF and all of it in [p, p + avail): its length,
// with its size in `size`; 0 for any other line (an extension, a 16th digit, a bad byte, a
// line cut by the slice's end), which the byte-by-byte states then read with their checks and
// messages. Such a line passes each of those checks, so taking it whole changes no outcome.
inline std::size_t plain_size_line(const char* p, std::size_t avail, std::uint64_t& size) {
  std::size_t k = 0;
  std::uint64_t s = 0;
  const auto max_digits = static_cast<std::size_t>(kMaxSizeDigits);
  const std::size_t digits = avail < max_digits ? avail : max_digits;
  for (; k < digits; ++k) {
    const int h = hex_value(p[k]);
    if (h < 0) break;
    s = s * 16 + static_cast<std::uint64_t>(h);
  }
  if (k == 0 || avail - k < 2 || p[k] != '\r' || p[k + 1] != '\n') return 0;
  size = s;
  return k + 2;
}

inline bool crlf_at(std::string_view data, std::size_t i) {
  return data.size() - i >= 2 && data[i] == '\r' && data[i + 1] == '\n';
}

}  // namespace

// One byte of a chunk extension (RFC 9112 7.1.1):
//   chunk-ext = *( BWS ";" BWS chunk-ext-name [ BWS "=" BWS chunk-ext-val ] )
//   chunk-ext-name = token, chunk-ext-val = token / quoted-string
// The state after it, kSizeLf at the CR that ends the line, kError for any byte the grammar does
// not allow there (whitespace with nothing after it included).
ChunkedDecoder::State ChunkedDecoder::extension_step(State state, char c) {
  const bool ws = c == ' ' || c == '\t';
  // qdtext and the byte after a backslash: HTAB, SP, VCHAR, obs-text ('"' and '\\' are taken
  // before the check where they mean something).
  const bool text = !detail::is_value_ctl(static_cast<unsigned char>(c));
  switch (state) {
    case State::kExtBws:
      if (ws) return state;
      if (c == ';') return State::kExtNameStart;
      break;
    case State::kExtNameStart:
      if (ws) return state;
      if (detail::is_tchar(c)) return State::kExtName;
      break;
    case State::kExtName:
    case State::kExtNameBws:
      if (state == State::kExtName && detail::is_tchar(c)) return state;
      if (ws) return State::kExtNameBws;
      if (c == '=') return State::kExtValueStart;
      if (c == ';') return State::kExtNameStart;
      if (c == '\r' && state == State::kExtName) return State::kSizeLf;
      break;
    case State::kExtValueStart:
      if (ws) return state;
      if (detail::is_tchar(c)) return State::kExtToken;
      if (c == '"') return State::kExtQuoted;
      break;
    case State::kExtToken:
    case State::kExtValueEnd:
      if (state == State::kExtToken && detail::is_tchar(c)) return state;
      if (ws) return State::kExtBws;
      if (c == ';') return State::kExtNameStart;
      if (c == '\r') return State::kSizeLf;
      break;
    case State::kExtQuoted:
      if (c == '"') return State::kExtValueEnd;
      if (c == '\\') return State::kExtQuotedPair;
      if (text) return state;
      break;
    case State::kExtQuotedPair:
      if (text) return State::kExtQuoted;
      break;
    default:
      break;
  }
  return State::kError;
}

std::size_t ChunkedDecoder::feed(std::string_view data) {
  // The decoder's fields live in locals while the slice is read and are stored once on the way
  // out. Kept in the object, each would be stored and loaded again around every byte read (a
  // char read may alias them), and the compiler reads remaining_ and data_bytes_ back as one
  // 16-byte vector right after storing them apart, which stalls on store forwarding: most of
  // the time of a chunk, measured with perf.
  State state = state_;
  std::uint8_t digits = digits_;
  std::uint32_t line_bytes = line_bytes_;
  std::uint64_t remaining = remaining_;
  std::uint64_t data_bytes = data_bytes_;
  const auto save = [&](std::size_t used) {
    state_ = state;
    digits_ = digits;
    line_bytes_ = line_bytes;
    remaining_ = remaining;
    data_bytes_ = data_bytes;
    return used;
  };
  const auto fail = [&](std::size_t used, const char* why) {
    state = State::kError;
    reason_ = why;
    return save(used);
  };
  std::size_t i = 0;
  const std::size_t n = data.size();
  while (i < n) {
    switch (state) {
      case State::kData: {
        std::uint64_t take = remaining;
        if (take > n - i) take = n - i;
        i += static_cast<std::size_t>(take);
        remaining -= take;
        data_bytes += take;
        if (remaining == 0) state = State::kDataCr;
        continue;
      }
      // Whole lines at once when the slice holds them: a plain size line, the CRLF after the
      // data, the empty line that ends the body. Anything else goes byte by byte below.
      case State::kSize: {
        std::uint64_t size = 0;
        std::size_t len = plain_size_line(data.data() + i, n - i, size);
        if (len == 0) break;
        // Whole chunks (size line, data, CRLF) in this tight loop while the slice holds them.
        while (size != 0 && n - i - len >= size + 2 && crlf_at(data, i + len + size)) {
          i += len + size + 2;
          data_bytes += size;
          len = plain_size_line(data.data() + i, n - i, size);
          if (len == 0) break;
        }
        if (len == 0) continue;  // state is kSize still: the byte states read this line
        i += len;
        remaining = size;
        line_bytes = 0;
        state = size == 0 ? State::kTrailerStart : State::kData;
        continue;
      }
      case State::kDataCr:
        if (crlf_at(data, i)) {
          i += 2;
          state = State::kSize;
          continue;
        }
        break;
      case State::kTrailerStart:
        if (crlf_at(data, i)) {
          state = State::kDone;
          return save(i + 2);
        }
        break;
      case State::kDone:
      case State::kError:
        return save(i);
      default:
        break;
    }
    const char c = data[i++];
    switch (state) {
      case State::kSize: {
        const int h = hex_value(c);
        if (h < 0) return fail(i, "bad chunk size");
        remaining = static_cast<std::uint64_t>(h);
        digits = 1;
        line_bytes = 1;
        state = State::kSizeAny;
        break;
      }
      case State::kSizeAny: {
        if (++line_bytes > kMaxSizeLine) return fail(i, "chunk size line too long");
        const int h = hex_value(c);
        if (h >= 0) {
          if (++digits > kMaxSizeDigits) return fail(i, "chunk size too large");
          remaining = remaining * 16 + static_cast<std::uint64_t>(h);
        } else if (c == ';') {
          state = State::kExtNameStart;
        } else if (c == ' ' || c == '\t') {
          state = State::kExtBws;
        } else if (c == '\r') {
          state = State::kSizeLf;
        } else {
          return fail(i, "bad chunk size");
        }
        break;
      }
      case State::kExtBws:
      case State::kExtNameStart:
      case State::kExtName:
      case State::kExtNameBws:
      case State::kExtValueStart:
      case State::kExtToken:
      case State::kExtQuoted:
      case State::kExtQuotedPair:
      case State::kExtValueEnd:
        if (++line_bytes > kMaxSizeLine) return fail(i, "chunk size line too long");
        state = extension_step(state, c);
        if (state == State::kError) return fail(i, "bad chunk extension");
        break;
      case State::kSizeLf:
        if (c != '\n') return fail(i, "bad chunk size line ending");
        line_bytes = 0;
        state = remaining == 0 ? State::kTrailerStart : State::kData;
        break;
      case State::kDataCr:
        if (c != '\r') return fail(i, "chunk data not followed by CRLF");
        state = State::kDataLf;
        break;
      case State::kDataLf:
        if (c != '\n') return fail(i, "chunk data not followed by CRLF");
        state = State::kSize;
        break;
      case State::kTrailerStart:
        if (c == '\r') {
          state = State::kFinalLf;
        } else if (detail::is_tchar(c)) {
          if (++line_bytes > kMaxTrailerBytes) return fail(i, "trailer too large");
          state = State::kTrailerName;
        } else {
          return fail(i, "bad trailer line");
        }
        break;
      // RFC 9110 5.1 and 5.5 (RFC 9112 5.1: no whitespace before the colon).
      case State::kTrailerName:
        if (++line_bytes > kMaxTrailerBytes) return fail(i, "trailer too large");
        if (c == ':') {
          state = State::kTrailerValue;
        } else if (!detail::is_tchar(c)) {
          return fail(i, "bad trailer line");
        }
        break;
      case State::kTrailerValue:
        if (++line_bytes > kMaxTrailerBytes) return fail(i, "trailer too large");
        if (c == '\r') {
          state = State::kTrailerLf;
        } else if (c == '\n') {
          return fail(i, "bad trailer line ending");
        } else if (detail::is_value_ctl(static_cast<unsigned char>(c))) {
          return fail(i, "bad trailer field value");
        }
        break;
      case State::kTrailerLf:
        if (c != '\n') return fail(i, "bad trailer line ending");
        state = State::kTrailerStart;
        break;
      case State::kFinalLf:
        if (c != '\n') return fail(i, "bad end of chunked body");
        state = State::kDone;
        return save(i);
      default:
        break;
    }
  }
  return save(i);
}

}  // namespace gatebench::http1
