// Incremental HTTP/1.1 response parser for the load generator's hot path. It keeps no copy of
// the response: the caller owns one read buffer per connection and presents the unconsumed bytes
// again (plus new ones) while the header block is incomplete; body bytes are counted and
// skipped. The head and the chunked coding are read by gatecore's HTTP/1 parsers (the
// gateway's rules, docs/http1.md); this class adds what a client needs around them: interim 1xx
// responses skipped, 101 and codes over 599 refused, bodies counted, EOF handling.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "macro/load/header_count.hpp"
#include "micro/core/http1/chunked.hpp"

namespace gatebench::load {

enum class ParseStatus { kNeedMore, kComplete, kError };

struct ParseResult {
  ParseStatus status;
  // Bytes of the presented data that belong to this response and need not be presented again.
  // While the header block is incomplete this is 0: present the same bytes again with more.
  std::size_t consumed;
};

class ResponseParser {
 public:
  // A header block larger than this is a protocol error (the read buffer must hold it).
  static constexpr std::size_t kMaxHeaderBytes = 16384;

  // Prepares for the response to a new request; HEAD responses carry no body.
  void reset(bool head_request = false);
  // --count-header: the value of field `lower_name` in each final head is looked up in `counts`
  // while the head is in the buffer (count_slot() then says which); kept across reset().
  void count_field(std::string_view lower_name, HeaderCounts* counts) {
    count_name_ = lower_name;
    counts_ = counts;
  }
  // The slot of the last final head's counted value (HeaderCounts::kAbsent without one).
  int count_slot() const { return count_slot_; }
  ParseResult feed(std::string_view data);
  // The server closed the connection: completes a close-delimited body, otherwise the response
  // is truncated (error). Returns the final status.
  ParseStatus finish_eof();

  // 100..599 once a response is complete (other codes are errors).
  int status_code() const { return status_code_; }
  // Whether the connection may carry another request after this response.
  bool keep_alive() const { return keep_alive_; }
  std::uint64_t body_bytes() const { return body_bytes_; }
  // True once any byte of this response was seen (EOF before that is a closed idle connection).
  bool started() const { return started_; }
  // Why the last kError happened (a static string).
  std::string_view error() const { return error_; }

 private:
  enum class State {
    kHeaders,
    kBodyLength,
    kBodyUntilClose,
    kChunked,
    kDone,
    kFailed,
  };

  ParseResult fail(const char* why);
  // Reads the heads (interim ones included) at the start of `data`; sets the body state.
  ParseResult feed_heads(std::string_view data, std::size_t& pos);

  State state_ = State::kHeaders;
  bool head_request_ = false;
  bool keep_alive_ = true;
  bool started_ = false;
  int status_code_ = 0;
  std::uint64_t remaining_ = 0;  // Content-Length bytes still expected
  std::uint64_t body_bytes_ = 0;
  http1::ChunkedDecoder chunks_;
  const char* error_ = "";
  std::string_view count_name_;
  HeaderCounts* counts_ = nullptr;
  int count_slot_ = HeaderCounts::kAbsent;
};

}  // namespace gatebench::load
