// Incremental HTTP/1.1 response parser for the load generator's hot path. It keeps no copy of
// the response: the caller owns one read buffer per connection and presents the unconsumed bytes
// again (plus new ones) while the header block is incomplete; body bytes are counted and
// skipped. It understands what framing needs: the status line, Content-Length,
// Transfer-Encoding: chunked (extensions, trailers), Connection: close/keep-alive, HTTP/1.0
// defaults, bodiless responses (HEAD, 1xx, 204, 304) and bodies delimited by the server's close.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

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
    kChunkSize,
    kChunkExtension,
    kChunkSizeLf,
    kChunkData,
    kChunkDataCr,
    kChunkDataLf,
    kTrailerStart,
    kTrailerLine,
    kTrailerLf,
    kTrailerEndLf,
    kDone,
    kFailed,
  };

  ParseResult fail(const char* why);
  // Parses a complete header block (ending with the empty line); sets the body state.
  bool parse_head(std::string_view head);
  ParseResult feed_chunked(std::string_view data, std::size_t pos);

  State state_ = State::kHeaders;
  bool head_request_ = false;
  bool keep_alive_ = true;
  bool started_ = false;
  int status_code_ = 0;
  std::size_t header_scan_ = 0;  // where to resume looking for the end of the header block
  std::uint64_t remaining_ = 0;  // body or chunk bytes still expected
  std::uint64_t body_bytes_ = 0;
  int chunk_digits_ = 0;
  std::size_t line_bytes_ = 0;  // length of the current chunk-size or trailer line
  const char* error_ = "";
};

}  // namespace gatebench::load
