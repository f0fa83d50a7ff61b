#include "macro/load/h2_requests.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <string_view>

namespace gatebench::load {
namespace {

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// RFC 9113, section 8.2.2: connection-specific fields are malformed in HTTP/2.
bool connection_specific(std::string_view name) {
  static constexpr std::array<std::string_view, 5> kFields = {
      "connection", "keep-alive", "proxy-connection", "transfer-encoding", "upgrade"};
  return std::find(kFields.begin(), kFields.end(), name) != kFields.end();
}

nghttp2_nv make_nv(const std::string& name, const std::string& value) {
  nghttp2_nv nv{};
  // nghttp2 takes non-const pointers but, with the NO_COPY flags, neither copies nor writes them.
  nv.name = reinterpret_cast<uint8_t*>(const_cast<char*>(name.data()));
  nv.namelen = name.size();
  nv.value = reinterpret_cast<uint8_t*>(const_cast<char*>(value.data()));
  nv.valuelen = value.size();
  nv.flags = NGHTTP2_NV_FLAG_NO_COPY_NAME | NGHTTP2_NV_FLAG_NO_COPY_VALUE;
  return nv;
}

}  // namespace

H2Requests::H2Requests(const RequestSet& requests, const Target& target,
                       const std::vector<std::string>& global_headers) {
  const auto templates = requests.templates();
  fields_.resize(templates.size());
  for (std::size_t i = 0; i < templates.size(); ++i) {
    const RequestTemplate& t = templates[i];
    auto& fields = fields_[i];
    const auto headers = request_headers(t, target, global_headers, false);
    std::string authority = target.host_header;
    std::vector<std::pair<std::string, std::string>> regular;
    for (const auto& [name, value] : headers) {
      std::string n = lower(name);
      if (n == "host") {
        authority = value;
      } else if (!connection_specific(n)) {
        regular.emplace_back(std::move(n), value);
      }
    }
    fields.emplace_back(":method", t.method);
    fields.emplace_back(":scheme", target.tls ? "https" : "http");
    fields.emplace_back(":authority", authority);
    fields.emplace_back(":path", t.target);
    for (auto& f : regular) fields.push_back(std::move(f));
    bodies_.push_back(t.body);
  }
  // Only now: the strings above no longer move.
  for (const auto& fields : fields_) {
    std::vector<nghttp2_nv> list;
    list.reserve(fields.size());
    for (const auto& [name, value] : fields) list.push_back(make_nv(name, value));
    lists_.push_back(std::move(list));
  }
}

std::string H2Requests::describe(std::size_t tmpl) const {
  std::string out;
  for (const auto& [name, value] : fields_[tmpl]) out += name + ": " + value + "\n";
  return out;
}

}  // namespace gatebench::load
