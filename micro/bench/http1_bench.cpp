// http1/<impl>/<case>: one HTTP/1.1 message per iteration, parsed from the same buffer (in L1,
// as a proxy's read buffer is), gatecore against Boost.Beast, Node's http_parser, the naive
// parser and the memchr floor. Cases: a short GET (curl's), a browser request (16 fields with
// cookies, 854 bytes), and a response with a chunked body (nginx's head, four 1000-byte chunks).
// items = messages, bytes = message bytes.
#include <benchmark/benchmark.h>

#include <string>

#include "micro/core/http1/chunked.hpp"
#include "micro/core/http1/request_head.hpp"
#include "micro/core/http1/response_head.hpp"
#include "micro/peers/http1_beast.hpp"
#include "micro/peers/http1_http_parser.hpp"
#include "micro/peers/http1_limit.hpp"
#include "micro/peers/http1_naive.hpp"

namespace gatebench::http1 {
namespace {

constexpr std::size_t kMaxHead = 8192;

enum class Case { kShortGet, kBrowser, kChunkedResponse };

const std::string& message(Case c) {
  static const std::string kShortGet =
      "GET /index.html HTTP/1.1\r\nHost: example.com\r\nUser-Agent: curl/7.88.1\r\n"
      "Accept: */*\r\n\r\n";
  static const std::string kBrowser =
      "GET /api/v2/orders?page=3&sort=created HTTP/1.1\r\n"
      "Host: shop.example.com\r\n"
      "Connection: keep-alive\r\n"
      "sec-ch-ua: \"Chromium\";v=\"119\", \"Not?A_Brand\";v=\"24\"\r\n"
      "sec-ch-ua-mobile: ?0\r\n"
      "sec-ch-ua-platform: \"Linux\"\r\n"
      "Upgrade-Insecure-Requests: 1\r\n"
      "User-Agent: Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) "
      "Chrome/119.0.0.0 Safari/537.36\r\n"
      "Accept: text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,"
      "*/*;q=0.8\r\n"
      "Sec-Fetch-Site: same-origin\r\n"
      "Sec-Fetch-Mode: navigate\r\n"
      "Sec-Fetch-User: ?1\r\n"
      "Sec-Fetch-Dest: document\r\n"
      "Referer: https://shop.example.com/api/v2/orders?page=2&sort=created\r\n"
      "Accept-Encoding: gzip, deflate, br\r\n"
      "Accept-Language: en-GB,en;q=0.9,de;q=0.8\r\n"
      "Cookie: session=9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08; "
      "csrftoken=Zx4Gq2Lr8Tn1Vb6Wm3Ks9Pd0; _ga=GA1.2.1234567890.1700000000; theme=dark\r\n"
      "\r\n";
  static const std::string kChunked = [] {
    std::string m =
        "HTTP/1.1 200 OK\r\nServer: nginx/1.22.1\r\nDate: Tue, 01 Dec 2026 10:00:00 GMT\r\n"
        "Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n"
        "Connection: keep-alive\r\nVary: Accept-Encoding\r\nCache-Control: no-store\r\n\r\n";
    for (int i = 0; i < 4; ++i)
      m += "3e8\r\n" + std::string(1000, static_cast<char>('a' + i)) + "\r\n";
    return m + "0\r\n\r\n";
  }();
  switch (c) {
    case Case::kShortGet:
      return kShortGet;
    case Case::kBrowser:
      return kBrowser;
    default:
      return kChunked;
  }
}

const char* name(Case c) {
  switch (c) {
    case Case::kShortGet:
      return "short_get";
    case Case::kBrowser:
      return "browser";
    default:
      return "chunked_response";
  }
}

// parse(std::string_view) -> long long, negative when the parser rejected the message; the
// value (fields or body bytes) must match across implementations for the case to run.
template <typename Parse>
void run(benchmark::State& state, Case c, long long expect, Parse&& parse) {
  const std::string& m = message(c);
  const std::string_view bytes(m);
  if (const long long got = parse(bytes); got != expect) {
    state.SkipWithError(
        ("parser returned " + std::to_string(got) + ", expected " + std::to_string(expect))
            .c_str());
    return;
  }
  for (auto _ : state) {
    benchmark::DoNotOptimize(bytes.data());
    long long r = parse(bytes);
    benchmark::DoNotOptimize(r);
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()));
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * m.size()));
}

// Fields for the request cases, chunk data bytes for the response.
long long expected(Case c) {
  switch (c) {
    case Case::kShortGet:
      return 3;
    case Case::kBrowser:
      return 16;
    default:
      return 4000;
  }
}

void gatecore(benchmark::State& state, Case c) {
  if (c != Case::kChunkedResponse) {
    RequestHead head;
    run(state, c, expected(c), [&head](std::string_view b) -> long long {
      return parse_request_head(b, kMaxHead, head) == HeadStatus::kComplete ? head.fields.count
                                                                            : -1;
    });
    return;
  }
  ResponseHead head;
  run(state, c, expected(c), [&head](std::string_view b) -> long long {
    if (parse_response_head(b, kMaxHead, false, head) != HeadStatus::kComplete) return -1;
    ChunkedDecoder body;
    body.feed(b.substr(head.head_len));
    return body.done() ? static_cast<long long>(body.data_bytes()) : -1;
  });
}

void beast(benchmark::State& state, Case c) {
  run(state, c, expected(c), [c](std::string_view b) -> long long {
    return c == Case::kChunkedResponse ? peers::beast_response_body(b)
                                       : peers::beast_request_fields(b);
  });
}

void http_parser(benchmark::State& state, Case c) {
  if (!peers::http_parser_available()) {
    state.SkipWithError(peers::http_parser_unavailable_reason());
    return;
  }
  run(state, c, expected(c), [c](std::string_view b) -> long long {
    return c == Case::kChunkedResponse ? peers::http_parser_response_body(b)
                                       : peers::http_parser_request_fields(b);
  });
}

void naive(benchmark::State& state, Case c) {
  run(state, c, expected(c), [c](std::string_view b) -> long long {
    if (c != Case::kChunkedResponse) {
      const peers::NaiveHead h = peers::naive_parse_request(b, kMaxHead);
      return h.status == HeadStatus::kComplete ? static_cast<long long>(h.fields.size()) : -1;
    }
    const peers::NaiveHead h = peers::naive_parse_response(b, kMaxHead, false);
    if (h.status != HeadStatus::kComplete) return -1;
    return peers::naive_chunked_length(b.substr(h.head_len)) ? 4000 : -1;
  });
}

void limit(benchmark::State& state, Case c) {
  run(state, c, expected(c), [c](std::string_view b) -> long long {
    const std::size_t head = peers::head_end_memchr(b);
    if (c != Case::kChunkedResponse) return head == b.size() ? expected(c) : -1;
    return peers::chunked_end_memchr(b.substr(head)) == b.size() - head ? expected(c) : -1;
  });
}

const bool registered = [] {
  for (Case c : {Case::kShortGet, Case::kBrowser, Case::kChunkedResponse}) {
    const std::string n = name(c);
    benchmark::RegisterBenchmark(("http1/gatecore/" + n).c_str(), gatecore, c);
    benchmark::RegisterBenchmark(("http1/beast/" + n).c_str(), beast, c);
    benchmark::RegisterBenchmark(("http1/http_parser/" + n).c_str(), http_parser, c);
    benchmark::RegisterBenchmark(("http1/naive/" + n).c_str(), naive, c);
    benchmark::RegisterBenchmark(("http1/limit/" + n).c_str(), limit, c);
  }
  return true;
}();

}  // namespace
}  // namespace gatebench::http1
