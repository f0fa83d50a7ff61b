#include "micro/peers/http1_beast.hpp"

#include <boost/asio/buffer.hpp>
#include <boost/beast/http/empty_body.hpp>
#include <boost/beast/http/parser.hpp>
#include <limits>

namespace gatebench::peers {
namespace {

namespace http = boost::beast::http;

// Parses the head in `bytes` with the parser as an application sets it up for a proxy: the
// header limit of the caller, no body limit (the body is streamed elsewhere).
bool put_head(http::request_parser<http::empty_body>& p, std::string_view bytes,
              std::size_t max_head) {
  p.header_limit(static_cast<std::uint32_t>(max_head));
  p.body_limit(std::numeric_limits<std::uint64_t>::max());
  boost::beast::error_code ec;
  p.put(boost::asio::const_buffer(bytes.data(), bytes.size()), ec);
  return !ec && p.is_header_done();
}

}  // namespace

std::optional<BeastRequest> beast_parse_request(std::string_view head, std::size_t max_head) {
  http::request_parser<http::empty_body> p;
  if (!put_head(p, head, max_head)) return std::nullopt;
  const auto& req = p.get();
  BeastRequest out;
  out.method = std::string(req.method_string());
  out.target = std::string(req.target());
  out.version = static_cast<int>(req.version());
  for (const auto& f : req) out.fields.emplace_back(f.name_string(), f.value());
  if (auto n = p.content_length()) out.content_length = *n;
  out.chunked = p.chunked();
  out.keep_alive = p.keep_alive();
  return out;
}

int beast_request_fields(std::string_view head) {
  http::request_parser<http::empty_body> p;
  if (!put_head(p, head, 8192)) return -1;
  int n = 0;
  for (auto it = p.get().begin(); it != p.get().end(); ++it) ++n;
  return n;
}

long long beast_response_body(std::string_view message) {
  http::response_parser<http::empty_body> p;
  p.eager(true);
  p.body_limit(std::numeric_limits<std::uint64_t>::max());
  long long body = 0;
  auto on_chunk = [&body](std::uint64_t, boost::beast::string_view data,
                          boost::beast::error_code&) -> std::size_t {
    body += static_cast<long long>(data.size());
    return data.size();
  };
  p.on_chunk_body(on_chunk);
  boost::beast::error_code ec;
  p.put(boost::asio::const_buffer(message.data(), message.size()), ec);
  if (ec || !p.is_done()) return -1;
  return body;
}

}  // namespace gatebench::peers
