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

// [A-Za-z_][A-Za-z0-9_]*: what a shell and env(1) take as a variable name.
inline bool is_env_name(const std::string& text) {
  if (text.empty() || (text.front() >= '0' && text.front() <= '9')) return false;
  return std::all_of(text.begin(), text.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
  });
}

// A container image as the engine names it: repository[:tag][@digest] or an ID. No spaces and
// no leading '-': it becomes an argument of `podman run`.
inline bool is_image_reference(const std::string& text) {
  if (text.empty() || text.front() == '-' || text.size() > 255) return false;
  return std::all_of(text.begin(), text.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           std::string("._-/:@").find(c) != std::string::npos;
  });
}

// An absolute directory inside a container other than "/", without "..", ':' or ',' (it becomes
// part of a `-v host:container:ro` argument).
inline bool is_container_dir(const std::string& text) {
  if (text.size() < 2 || text.front() != '/' || text.find_first_of(":,") != std::string::npos)
    return false;
  return text.find("/../") == std::string::npos && !text.ends_with("/..");
}

}  // namespace gatebench::macro
