// Request templates, serialised once at start-up so the hot path only copies bytes to the socket,
// and the weighted choice among them. Template file format: docs/load.md ("--requests FILE").
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "macro/load/url.hpp"

namespace gatebench::load {

struct RequestTemplate {
  std::string name;
  double weight = 1;
  std::string method = "GET";
  std::string target = "/";  // path and query as sent
  std::vector<std::pair<std::string, std::string>> headers;
  std::vector<std::pair<std::string, std::string>> cookies;
  std::string body;
  int expect_status = 0;  // 0: any status is as expected
  std::string wire;       // the serialised request
  bool head = false;      // HEAD: the response has no body
};

class RequestSet {
 public:
  // A single GET of the URL's path.
  static RequestSet single(const Target& target, const std::vector<std::string>& headers,
                           bool close);
  // Reads a template file; throws common::UsageError naming the file and the field's JSON
  // pointer.
  static RequestSet load(const std::string& path, const Target& target,
                         const std::vector<std::string>& headers, bool close);
  // Parses template JSON text; `source` names it in errors.
  static RequestSet parse(const std::string& text, const std::string& source, const Target& target,
                          const std::vector<std::string>& headers, bool close);

  std::span<const RequestTemplate> templates() const { return templates_; }
  std::size_t size() const { return templates_.size(); }
  // Index for a uniform draw u in [0, 1).
  std::size_t pick(double u) const;

 private:
  void finish(const Target& target, const std::vector<std::string>& headers, bool close);
  std::vector<RequestTemplate> templates_;
  std::vector<double> cumulative_;  // normalised cumulative weights
};

// The header fields of one request in the order they are sent: Host first, then the -H headers,
// the template's headers and cookies (a later one of the same name replaces an earlier one),
// Content-Length for a body or POST/PUT/PATCH, Connection: close when `close`.
std::vector<std::pair<std::string, std::string>> request_headers(
    const RequestTemplate& t, const Target& target, const std::vector<std::string>& global_headers,
    bool close);

// The bytes of one request (exposed for tests).
std::string serialise_request(const RequestTemplate& t, const Target& target,
                              const std::vector<std::string>& global_headers, bool close);

}  // namespace gatebench::load
