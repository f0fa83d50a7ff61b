#include "macro/load/response_parser.hpp"

#include <algorithm>

#include "micro/core/http1/response_head.hpp"

namespace gatebench::load {

void ResponseParser::reset(bool head_request) {
  const std::string_view name = count_name_;
  HeaderCounts* const counts = counts_;
  *this = ResponseParser{};
  head_request_ = head_request;
  count_field(name, counts);
}

ParseResult ResponseParser::fail(const char* why) {
  state_ = State::kFailed;
  error_ = why;
  keep_alive_ = false;
  return {ParseStatus::kError, 0};
}

ParseResult ResponseParser::feed_heads(std::string_view data, std::size_t& pos) {
  for (;;) {
    const std::string_view rest = data.substr(pos);
    // Garbage is recognised at once rather than after a header block that may never end.
    constexpr std::string_view kPrefix = "HTTP/";
    const std::size_t check = std::min(rest.size(), kPrefix.size());
    if (rest.substr(0, check) != kPrefix.substr(0, check)) return fail("not an HTTP response");
    http1::ResponseStatus head;
    switch (http1::parse_response_status(rest, kMaxHeaderBytes, head_request_, head)) {
      case http1::HeadStatus::kIncomplete:
        return {ParseStatus::kNeedMore, pos};  // interim heads before it are consumed
      case http1::HeadStatus::kComplete:
        break;
      case http1::HeadStatus::kTooLarge:
        return fail("header block too large");
      default:
        return fail(head.error);
    }
    // RFC 9110 15: 100-599; the counters are sized for that.
    if (head.status > 599) return fail("status code out of range");
    if (head.status == 101) return fail("unexpected 101 Switching Protocols");
    status_code_ = head.status;
    keep_alive_ = head.keep_alive;
    if (head.status >= 200 && counts_ != nullptr) {
      const auto value = find_field(rest.substr(0, head.head_len), count_name_);
      count_slot_ = value ? counts_->slot(*value) : HeaderCounts::kAbsent;
    }
    pos += head.head_len;
    if (head.status >= 200) {
      switch (head.body) {
        case http1::BodyKind::kNone:
          state_ = State::kDone;
          break;
        case http1::BodyKind::kLength:
          remaining_ = head.content_length;
          state_ = State::kBodyLength;
          break;
        case http1::BodyKind::kChunked:
          state_ = State::kChunked;
          break;
        case http1::BodyKind::kUntilClose:
          state_ = State::kBodyUntilClose;
          break;
      }
      return {ParseStatus::kComplete, pos};
    }
    // An interim 1xx response: the real one follows in the same stream.
  }
}

ParseResult ResponseParser::feed(std::string_view data) {
  if (state_ == State::kFailed) return {ParseStatus::kError, 0};
  if (state_ == State::kDone) return {ParseStatus::kComplete, 0};
  if (!data.empty()) started_ = true;
  std::size_t pos = 0;
  if (state_ == State::kHeaders) {
    const ParseResult heads = feed_heads(data, pos);
    if (heads.status != ParseStatus::kComplete) return heads;
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
    case State::kChunked: {
      pos += chunks_.feed(data.substr(pos));
      body_bytes_ = chunks_.data_bytes();
      if (chunks_.error()) return fail(chunks_.reason());
      if (chunks_.done()) {
        state_ = State::kDone;
        return {ParseStatus::kComplete, pos};
      }
      return {ParseStatus::kNeedMore, pos};
    }
    default:
      return fail("internal parser state");
  }
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
