// Boost.Beast's HTTP/1 parser (boost::beast::http::parser) over one message in one buffer: the
// http1 benchmarks' third-party peer and the fuzz target's reference.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace gatebench::peers {

struct BeastRequest {
  std::string method;
  std::string target;
  int version = 11;  // 10 or 11
  std::vector<std::pair<std::string, std::string>> fields;
  std::optional<std::uint64_t> content_length;
  bool chunked = false;
  bool keep_alive = false;
  std::size_t head_len = 0;
};

// The request head at the start of `head` (at most max_head bytes), or nullopt when Beast
// rejects it or it is incomplete.
std::optional<BeastRequest> beast_parse_request(std::string_view head, std::size_t max_head);

// Benchmark form: the number of fields of the request head, or -1 when Beast rejects it.
int beast_request_fields(std::string_view head);

// One response with its chunked body, counted and not stored: the body's data bytes, or -1.
long long beast_response_body(std::string_view message);

}  // namespace gatebench::peers
