// Body decoder and target normalisation fuzz target (micro/core/rules/body_fields.hpp,
// normalize.hpp). Input: byte 0 picks the decoder (bits 0-1: raw, form, JSON, multipart; bit 2:
// body cut at the limit; bits 3-5: boundary length for multipart, taken from the following
// bytes); the rest is the body. Every decoder writes into a buffer of exactly the documented
// size (ASan catches a byte past it); the same bytes also go through chunked_data and, as a
// path and a query, through normalisation, whose output must be free of dot segments, repeated
// slashes and backslashes.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "micro/core/rules/body_fields.hpp"
#include "micro/core/rules/normalize.hpp"

namespace {

void check(bool ok) {
  if (!ok) __builtin_trap();
}

void check_path(std::string_view p) {
  if (p == "*") return;
  check(!p.empty() && p.front() == '/');
  check(p.find("//") == std::string_view::npos);
  check(p.find('\\') == std::string_view::npos);
  check(p.find("/./") == std::string_view::npos && p.find("/../") == std::string_view::npos);
  check(!(p.size() >= 2 && p.substr(p.size() - 2) == "/."));
  check(!(p.size() >= 3 && p.substr(p.size() - 3) == "/.."));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace gatebench::rules;
  if (size == 0) return 0;
  const std::uint8_t control = data[0];
  std::string_view rest(reinterpret_cast<const char*>(data + 1), size - 1);
  const auto format = static_cast<BodyFormat>(control & 3);
  const bool complete = (control & 4) == 0;
  std::string_view boundary;
  if (format == BodyFormat::kMultipart) {
    const std::size_t n = std::min<std::size_t>((control >> 3) & 7, rest.size());
    boundary = rest.substr(0, n);
    rest.remove_prefix(n);
  }
  std::vector<char> out(rest.size() + 1);
  std::string_view text;
  const BodyStatus st = decode_body_fields(format, boundary, rest, complete, out.data(), text);
  if (st == BodyStatus::kOk) {
    check(text.size() <= rest.size() + 1);
    if (format == BodyFormat::kRaw) check(text == rest);
  }
  if (!complete && format == BodyFormat::kJson) check(st == BodyStatus::kOk);

  std::vector<char> chunks(rest.size());
  check(chunked_data(rest, chunks.data()).size() <= rest.size());

  std::vector<char> target(rest.size() + 1);
  std::string_view path;
  if (normalize_path(rest, target.data(), path) == NormalizeStatus::kOk) check_path(path);
  std::string_view query;
  if (normalize_query(rest, target.data(), query) == NormalizeStatus::kOk) {
    check(query.size() <= rest.size());
  }
  std::string_view authority;
  const std::string_view origin = origin_form(rest, authority);
  check(origin.size() + authority.size() <= rest.size());
  return 0;
}
