#include "micro/core/access_log/record.hpp"

#include <array>

namespace gatebench::access_log {
namespace {

constexpr std::array<std::string_view, 10> kMethodNames = {
    "GET", "HEAD", "POST", "PUT", "DELETE", "PATCH", "OPTIONS", "CONNECT", "TRACE", "other"};
constexpr std::array<std::string_view, 7> kActionNames = {
    "-", "allow", "block", "challenge", "queue", "ratelimit", "detect"};
constexpr std::array<std::string_view, kErrorReasonCount> kReasonNames = {
    "empty line",    "missing field", "extra field",      "bad syntax", "bad time",
    "bad client ip", "bad method",    "bad request line", "bad scheme", "bad status",
    "bad bytes",     "bad duration",  "bad escape",       "bad action", "duplicate field"};

}  // namespace

std::string_view name(Method m) {
  return kMethodNames[static_cast<std::size_t>(m)];
}
std::string_view name(Action a) {
  return kActionNames[static_cast<std::size_t>(a)];
}
std::string_view name(ErrorReason r) {
  return kReasonNames[static_cast<std::size_t>(r)];
}

std::string_view name(Scheme s) {
  switch (s) {
    case Scheme::http:
      return "http";
    case Scheme::https:
      return "https";
    case Scheme::none:
      break;
  }
  return "-";
}

std::string_view name(Format f) {
  switch (f) {
    case Format::tsv:
      return "tsv";
    case Format::combined:
      return "combined";
    case Format::jsonl:
      return "jsonl";
  }
  return "?";
}

Method method_from_token(std::string_view t) {
  // Dispatch on length first: one compare decides almost every real method.
  switch (t.size()) {
    case 3:
      if (t == "GET") return Method::get;
      if (t == "PUT") return Method::put;
      break;
    case 4:
      if (t == "POST") return Method::post;
      if (t == "HEAD") return Method::head;
      break;
    case 5:
      if (t == "PATCH") return Method::patch;
      if (t == "TRACE") return Method::trace;
      break;
    case 6:
      if (t == "DELETE") return Method::del;
      break;
    case 7:
      if (t == "OPTIONS") return Method::options;
      if (t == "CONNECT") return Method::connect;
      break;
    default:
      break;
  }
  return Method::other;
}

bool action_from_token(std::string_view t, Action& out) {
  for (std::size_t i = 0; i < kActionNames.size(); ++i) {
    if (t == kActionNames[i]) {
      out = static_cast<Action>(i);
      return true;
    }
  }
  return false;
}

}  // namespace gatebench::access_log
