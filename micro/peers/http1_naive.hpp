// The HTTP/1 head parser a script would write: lines split with find, names lowered into
// strings, one rule checked after another. The same contract as gatecore's http1 parsers
// (micro/core/http1, docs/http1.md), so it is the oracle of the differential tests and the
// naive peer of the http1 benchmarks. It allocates and copies freely.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "micro/core/http1/message.hpp"

namespace gatebench::peers {

struct NaiveField {
  std::string name;   // lower case
  std::string value;  // without surrounding whitespace
  std::size_t line_off = 0;
  std::size_t line_len = 0;  // including CRLF
  bool hop_by_hop = false;   // named in a Connection header (Host never is)
};

struct NaiveHead {
  http1::HeadStatus status = http1::HeadStatus::kIncomplete;
  std::string method;  // requests
  std::string target;
  int status_code = 0;  // responses
  int minor_version = 1;
  std::vector<NaiveField> fields;
  std::size_t head_len = 0;
  http1::BodyKind body = http1::BodyKind::kNone;
  std::uint64_t content_length = 0;
  bool keep_alive = false;
  bool expect_continue = false;
  std::string host, cookie, user_agent, referer;
};

NaiveHead naive_parse_request(std::string_view buf, std::size_t max_head);
NaiveHead naive_parse_response(std::string_view buf, std::size_t max_head, bool request_was_head);

// The length of the chunked body at the start of `s` (trailers and final CRLF included), or
// nullopt when it is malformed or incomplete.
std::optional<std::size_t> naive_chunked_length(std::string_view s);

}  // namespace gatebench::peers
