#pragma once
// The names scenario files and the hosts file give things: services, ports, tools, cookies,
// service blocks, hosts. In a file of its own because the scenario loader, the service-block
// resolver it calls and the hosts file all check names, and none of them should include another
// for that.
#include <algorithm>
#include <string>

namespace gatebench::macro {

// [a-z0-9_-]+, non-empty.
inline bool is_name(const std::string& text) {
  return !text.empty() && std::all_of(text.begin(), text.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_';
  });
}

}  // namespace gatebench::macro
