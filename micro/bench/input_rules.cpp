#include "micro/bench/input_rules.hpp"

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "micro/core/cidr/ipv4.hpp"
#include "micro/core/rules/loader.hpp"

namespace gatebench::bench {
namespace {

using nlohmann::json;

class TrafficLine {
 public:
  TrafficLine(const InputFile& file, std::size_t line) : file_(file), line_(line) {}

  [[noreturn]] void fail(const std::string& what) const { fail_at(file_, line_, what); }

  std::string text(const json& obj, const char* key, std::string fallback) const {
    const auto it = obj.find(key);
    if (it == obj.end()) return fallback;
    if (!it->is_string()) fail(std::string("\"") + key + "\": expected a string");
    return it->get<std::string>();
  }

  fixtures::OwnedRequest request(const json& obj) const {
    static constexpr std::string_view kKeys[] = {"method",  "scheme",    "host",    "path", "query",
                                                 "headers", "client_ip", "country", "body"};
    for (const auto& [key, _] : obj.items()) {
      bool known = false;
      for (std::string_view k : kKeys) known = known || key == k;
      if (!known) fail("unknown key \"" + key + "\"");
    }
    fixtures::OwnedRequest r;
    r.method = text(obj, "method", "GET");
    r.scheme = text(obj, "scheme", "http");
    if (r.scheme != "http" && r.scheme != "https") fail("\"scheme\": expected http or https");
    r.host = text(obj, "host", "");
    r.path = text(obj, "path", "");
    if (r.path.empty() || r.path[0] != '/') fail("\"path\": expected a string starting with /");
    r.query = text(obj, "query", "");
    r.country = text(obj, "country", "");
    r.body = text(obj, "body", "");
    const std::string ip = text(obj, "client_ip", "192.0.2.1");
    const cidr::Ipv4ParseResult parsed = cidr::parse_ipv4(ip);
    if (!parsed) fail("\"client_ip\": " + std::string(cidr::describe(parsed.error)));
    r.client_ip = parsed.address;
    if (const auto it = obj.find("headers"); it != obj.end()) {
      if (!it->is_array()) fail("\"headers\": expected an array of [name, value]");
      for (const json& h : *it) {
        if (!h.is_array() || h.size() != 2 || !h[0].is_string() || !h[1].is_string())
          fail("\"headers\": expected an array of [name, value] strings");
        r.headers.emplace_back(h[0].get<std::string>(), h[1].get<std::string>());
      }
    }
    return r;
  }

 private:
  const InputFile& file_;
  std::size_t line_;
};

}  // namespace

rules::RuleSet load_rules_input(const InputFile& file) {
  try {
    return rules::load_rule_set(file.bytes, file.path);
  } catch (const rules::RuleLoadError& e) {
    throw InputError(e.what());
  }
}

fixtures::Traffic load_traffic_input(const InputFile& file) {
  std::vector<fixtures::OwnedRequest> requests;
  std::string_view rest = file.bytes;
  for (std::size_t line = 1; !rest.empty(); ++line) {
    const std::size_t end = rest.find('\n');
    const std::string_view text = rest.substr(0, end);
    rest.remove_prefix(end == std::string_view::npos ? rest.size() : end + 1);
    if (text.empty() || text[0] == '#') continue;
    const TrafficLine parser(file, line);
    json obj = json::parse(text, nullptr, false);
    if (obj.is_discarded() || !obj.is_object()) parser.fail("expected one JSON object");
    requests.push_back(parser.request(obj));
  }
  if (requests.empty()) fail_at(file, 1, "no requests in the file");
  return fixtures::Traffic(std::move(requests));
}

}  // namespace gatebench::bench
