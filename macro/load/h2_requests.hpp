// The request templates as HTTP/2 header lists, built once at start-up: nghttp2 is handed
// name/value pairs that point into this object (NGHTTP2_NV_FLAG_NO_COPY_*), so submitting a
// request copies no header bytes; HPACK encodes them as it writes the HEADERS frame.
#pragma once

#include <nghttp2/nghttp2.h>

#include <string>
#include <vector>

#include "macro/load/request_set.hpp"
#include "macro/load/url.hpp"

namespace gatebench::load {

class H2Requests {
 public:
  // :method, :scheme, :authority (the Host header, which HTTP/2 does not send) and :path, then
  // the template's header fields in lower case (request_headers), without the fields that
  // HTTP/2 forbids (Connection, Keep-Alive, Proxy-Connection, Transfer-Encoding, Upgrade).
  H2Requests(const RequestSet& requests, const Target& target,
             const std::vector<std::string>& global_headers);
  H2Requests(const H2Requests&) = delete;
  H2Requests& operator=(const H2Requests&) = delete;

  const std::vector<nghttp2_nv>& headers(std::size_t tmpl) const { return lists_[tmpl]; }
  const std::string& body(std::size_t tmpl) const { return bodies_[tmpl]; }
  // The header list as name: value lines (for tests and --help-free inspection).
  std::string describe(std::size_t tmpl) const;

 private:
  // Names and values of every list; never resized once the lists point into them.
  std::vector<std::vector<std::pair<std::string, std::string>>> fields_;
  std::vector<std::vector<nghttp2_nv>> lists_;
  std::vector<std::string> bodies_;
};

}  // namespace gatebench::load
