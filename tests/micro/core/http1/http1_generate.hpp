// Generated HTTP/1 heads for the http1 differential tests: mostly valid, with every shape the
// parsers must reject mixed in (smuggling pairs of framing headers, obs-fold, bare CR and LF,
// control bytes, bad names, bad versions), then random byte edits and cuts.
#pragma once

#include <string>
#include <vector>

#include "fixtures/rng.hpp"

namespace gatebench::http1::testing {

inline std::string pick(fixtures::Rng& rng, const std::vector<std::string>& items) {
  return items[rng.below(items.size())];
}

// One header line (CRLF included, unless the line's own fault is its ending).
inline std::string header_line(fixtures::Rng& rng) {
  static const std::vector<std::string> kLines = {
      "Host: example.test:8080\r\n",
      "host:a\r\n",
      "Content-Length: 5\r\n",
      "content-length: 0\r\n",
      "Content-Length: 6\r\n",
      "Content-Length: 5, 5\r\n",
      "Content-Length: +5\r\n",
      "Content-Length: 0005\r\n",
      "Content-Length: \r\n",
      "Content-Length: 1234567890123456789\r\n",
      "Transfer-Encoding: chunked\r\n",
      "transfer-encoding: Chunked \r\n",
      "Transfer-Encoding: gzip, chunked\r\n",
      "Transfer-Encoding: gzip\r\n",
      "Transfer-Encoding: chunked,\r\n",
      "Transfer-Encoding: xchunked\r\n",
      "Connection: close\r\n",
      "Connection: keep-alive\r\n",
      "connection: Keep-Alive, X-Secret\r\n",
      "Connection: close, keep-alive\r\n",
      "Connection: ,, host ,\r\n",
      "X-Secret: 1\r\n",
      "Keep-Alive: timeout=5\r\n",
      "Expect: 100-continue\r\n",
      "Expect: 100-Continue\r\n",
      "Cookie: a=1; b=2\r\n",
      "Cookie: second=1\r\n",
      "User-Agent: ua/1.0 (x)\r\n",
      "Referer: https://r.test/p?q\r\n",
      "X-Forwarded-For: 10.0.0.1\r\n",
      "Accept: */*\r\n",
      "X-Empty:\r\n",
      "X-Spaces:   \t v \t \r\n",
      "X-Tab:\tv\tw\r\n",
      "X-High: caf\xc3\xa9\r\n",
      "Content-Length : 5\r\n",    // whitespace before ':'
      " folded continuation\r\n",  // obs-fold
      "\tfolded\r\n",
      ": no name\r\n",
      "No colon\r\n",
      "Bad Name: x\r\n",
      "X-Ctl: a\x01z\r\n",
      "X-Del: a\x7fz\r\n",
      "X-CR: a\rb\r\n",
      "X-LF: bare\n",
      "X-Nul: a\x00z\r\n",
  };
  std::string line = pick(rng, kLines);
  // pick() copies the literal up to its NUL; put the NUL line back whole.
  if (line == "X-Nul: a") line = std::string("X-Nul: a\0z\r\n", 12);
  return line;
}

inline std::string request_line(fixtures::Rng& rng, bool& http10) {
  static const std::vector<std::string> kMethods = {"GET", "POST", "HEAD", "PUT", "get", "M-1"};
  static const std::vector<std::string> kTargets = {"/", "/a?b=1", "*", "http://h/x", "/%20"};
  std::string method = rng.chance(1, 30) ? pick(rng, {"G@T", "", "GE\tT"}) : pick(rng, kMethods);
  std::string target =
      rng.chance(1, 30) ? pick(rng, {"/a b", "", "/a\x01", "/\x7f", "/\t"}) : pick(rng, kTargets);
  http10 = rng.chance(1, 6);
  std::string version = http10 ? "HTTP/1.0" : "HTTP/1.1";
  if (rng.chance(1, 30)) version = pick(rng, {"HTTP/2.0", "HTTP/1.2", "HTTP/1.1 ", "http/1.1"});
  std::string sep = rng.chance(1, 40) ? "  " : " ";
  return method + sep + target + " " + version + (rng.chance(1, 40) ? "\n" : "\r\n");
}

inline std::string status_line(fixtures::Rng& rng) {
  static const std::vector<std::string> kLines = {"HTTP/1.1 200 OK\r\n",
                                                  "HTTP/1.1 204 No Content\r\n",
                                                  "HTTP/1.1 304 Not Modified\r\n",
                                                  "HTTP/1.1 100 Continue\r\n",
                                                  "HTTP/1.0 200 OK\r\n",
                                                  "HTTP/1.1 404\r\n",
                                                  "HTTP/1.1 500 Internal Server Error\r\n",
                                                  "HTTP/1.1 200 \r\n",
                                                  "HTTP/1.1 999 x\r\n"};
  if (rng.chance(1, 20)) {
    return pick(rng, {"HTTP/1.1 20 OK\r\n", "HTTP/1.1 2x0 OK\r\n", "HTTP/1.1 200OK\r\n",
                      "HTTP/2 200\r\n", "HTTP/1.1 099 x\r\n", "HTTP/1.1 200 OK\n", "\r\n"});
  }
  return pick(rng, kLines);
}

// A whole head: first line, 0-12 header lines (sometimes over 100), the empty line, then bytes
// of what follows. Some heads get random byte edits.
inline std::string generate_head(fixtures::Rng& rng, bool request) {
  bool http10 = false;
  std::string s = request ? request_line(rng, http10) : status_line(rng);
  const int lines = rng.chance(1, 200) ? 120 : static_cast<int>(rng.below(13));
  bool host = false;
  for (int i = 0; i < lines; ++i) {
    std::string line = header_line(rng);
    if (line.rfind("Host", 0) == 0 || line.rfind("host", 0) == 0) host = true;
    s += line;
  }
  // Most HTTP/1.1 requests carry their Host, so the other rules get exercised.
  if (request && !host && !http10 && rng.chance(9, 10)) s += "Host: h\r\n";
  s += rng.chance(1, 50) ? "\n" : "\r\n";
  s += "BODY";
  if (rng.chance(1, 8)) {
    static const char kBytes[] = "\r\n: \t\x01\x7f\x80,aZ0";
    const int edits = 1 + static_cast<int>(rng.below(3));
    for (int e = 0; e < edits; ++e) {
      const std::size_t at = rng.below(s.size());
      const char b = kBytes[rng.below(sizeof kBytes - 1)];
      if (rng.chance(1, 2)) {
        s[at] = b;
      } else {
        s.insert(s.begin() + static_cast<std::ptrdiff_t>(at), b);
      }
    }
  }
  return s;
}

}  // namespace gatebench::http1::testing
