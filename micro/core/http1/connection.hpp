// The Connection header's options (internal to micro/core/http1), the same rule for requests and
// responses: "close" ends the connection after this message whatever else is listed,
// "keep-alive" matters only for HTTP/1.0, and any other token names a hop-by-hop header.
#pragma once

#include <cstdint>
#include <string_view>

#include "micro/core/http1/message.hpp"
#include "micro/core/http1/scan.hpp"

namespace gatebench::http1 {

class ConnectionOptions {
 public:
  explicit ConnectionOptions(std::uint8_t minor_version) : http10_(minor_version == 0) {}

  // fields: where to mark the headers the tokens name; nullptr when the caller keeps none.
  void apply(std::string_view value, std::string_view buf, HeadFields* fields) {
    // The two values nearly every message carries, whole, before the list is split.
    if (detail::value_is<"keep-alive">(value)) {
      keep_alive_ = true;
      return;
    }
    if (detail::value_is<"close">(value)) {
      close_ = true;
      return;
    }
    detail::for_each_token(value, [&](std::string_view tok) {
      if (detail::value_is<"close">(tok)) {
        close_ = true;
      } else if (detail::value_is<"keep-alive">(tok)) {
        keep_alive_ = true;
      } else if (fields != nullptr) {
        detail::mark_connection_token(buf, *fields, tok);
      }
    });
  }

  bool keep_alive() const { return !close_ && (!http10_ || keep_alive_); }

 private:
  bool http10_;
  bool close_ = false;
  bool keep_alive_ = false;
};

}  // namespace gatebench::http1
