#include "micro/core/http1/chunked.hpp"

#include "micro/core/http1/scan.hpp"

namespace gatebench::http1 {
namespace {

inline int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

constexpr int kMaxSizeDigits = 15;  // < 2^60 bytes: no overflow when accumulating

}  // namespace

std::size_t ChunkedDecoder::feed(std::string_view data) {
  std::size_t i = 0;
  const std::size_t n = data.size();
  while (i < n) {
    switch (state_) {
      case State::kData: {
        std::uint64_t take = remaining_;
        if (take > n - i) take = n - i;
        i += static_cast<std::size_t>(take);
        remaining_ -= take;
        data_bytes_ += take;
        if (remaining_ == 0) state_ = State::kDataCr;
        continue;
      }
      case State::kDone:
      case State::kError:
        return i;
      default:
        break;
    }
    const char c = data[i++];
    switch (state_) {
      case State::kSize: {
        const int h = hex_value(c);
        if (h < 0) return fail(i, "bad chunk size");
        remaining_ = static_cast<std::uint64_t>(h);
        digits_ = 1;
        line_bytes_ = 1;
        state_ = State::kSizeAny;
        break;
      }
      case State::kSizeAny: {
        if (++line_bytes_ > kMaxSizeLine) return fail(i, "chunk size line too long");
        const int h = hex_value(c);
        if (h >= 0) {
          if (++digits_ > kMaxSizeDigits) return fail(i, "chunk size too large");
          remaining_ = remaining_ * 16 + static_cast<std::uint64_t>(h);
        } else if (c == ';' || c == ' ' || c == '\t') {
          state_ = State::kExt;
        } else if (c == '\r') {
          state_ = State::kSizeLf;
        } else {
          return fail(i, "bad chunk size");
        }
        break;
      }
      case State::kExt:
        if (++line_bytes_ > kMaxSizeLine) return fail(i, "chunk size line too long");
        if (c == '\r') {
          state_ = State::kSizeLf;
        } else if (detail::is_value_ctl(static_cast<unsigned char>(c))) {
          return fail(i, "bad chunk extension");
        }
        break;
      case State::kSizeLf:
        if (c != '\n') return fail(i, "bad chunk size line ending");
        line_bytes_ = 0;
        state_ = remaining_ == 0 ? State::kTrailerStart : State::kData;
        break;
      case State::kDataCr:
        if (c != '\r') return fail(i, "chunk data not followed by CRLF");
        state_ = State::kDataLf;
        break;
      case State::kDataLf:
        if (c != '\n') return fail(i, "chunk data not followed by CRLF");
        state_ = State::kSize;
        break;
      case State::kTrailerStart:
        if (c == '\r') {
          state_ = State::kFinalLf;
        } else if (detail::is_tchar(c)) {
          if (++line_bytes_ > kMaxTrailerBytes) return fail(i, "trailer too large");
          state_ = State::kTrailerLine;
        } else {
          return fail(i, "bad trailer line");
        }
        break;
      case State::kTrailerLine:
        if (++line_bytes_ > kMaxTrailerBytes) return fail(i, "trailer too large");
        if (c == '\r') {
          state_ = State::kTrailerLf;
        } else if (c == '\n') {
          return fail(i, "bad trailer line ending");
        }
        break;
      case State::kTrailerLf:
        if (c != '\n') return fail(i, "bad trailer line ending");
        state_ = State::kTrailerStart;
        break;
      case State::kFinalLf:
        if (c != '\n') return fail(i, "bad end of chunked body");
        state_ = State::kDone;
        return i;
      default:
        break;
    }
  }
  return i;
}

}  // namespace gatebench::http1
