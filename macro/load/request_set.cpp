#include "macro/load/request_set.hpp"

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "macro/common/usage_error.hpp"

namespace gatebench::load {
namespace {

// Ordered: queries, headers and cookies go out in the order the file lists them.
using json = nlohmann::ordered_json;

bool iequals(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) ==
                  std::tolower(static_cast<unsigned char>(y));
         });
}

std::string percent_encode(std::string_view s) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : s) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  return out;
}

bool valid_token(std::string_view s) {
  if (s.empty()) return false;
  return std::all_of(s.begin(), s.end(), [](char c) {
    return c > ' ' && c < 127 &&
           std::string_view("()<>@,;:\\\"/[]?={}").find(c) == std::string_view::npos;
  });
}

bool has_line_break(std::string_view s) {
  return s.find_first_of("\r\n") != std::string_view::npos;
}

[[noreturn]] void bad(const std::string& where, const std::string& what) {
  throw common::UsageError(where + ": " + what);
}

std::string need_string(const json& v, const std::string& where) {
  if (!v.is_string()) bad(where, "expected a string");
  return v.get<std::string>();
}

// Object of name -> string (or number/bool, written as JSON text).
std::vector<std::pair<std::string, std::string>> string_map(const json& v,
                                                            const std::string& where) {
  if (!v.is_object()) bad(where, "expected an object of name: value");
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& [k, val] : v.items()) {
    if (val.is_string())
      out.emplace_back(k, val.get<std::string>());
    else if (val.is_number() || val.is_boolean())
      out.emplace_back(k, val.dump());
    else
      bad(where + "." + k, "expected a string or number");
  }
  return out;
}

RequestTemplate parse_template(const json& j, const std::string& where, std::size_t index) {
  if (!j.is_object()) bad(where, "expected an object");
  RequestTemplate t;
  t.name = "t" + std::to_string(index);
  static const std::vector<std::string> kKnown = {
      "name", "weight", "method", "path", "query", "headers", "cookies", "body", "expect_status"};
  for (const auto& [k, v] : j.items()) {
    if (std::find(kKnown.begin(), kKnown.end(), k) == kKnown.end())
      bad(where + "." + k,
          "unknown field (known: name, weight, method, path, query, headers, "
          "cookies, body, expect_status)");
  }
  if (j.contains("name")) t.name = need_string(j["name"], where + ".name");
  if (j.contains("weight")) {
    if (!j["weight"].is_number() || j["weight"].get<double>() <= 0 ||
        !std::isfinite(j["weight"].get<double>()))
      bad(where + ".weight", "expected a positive number");
    t.weight = j["weight"].get<double>();
  }
  if (j.contains("method")) {
    t.method = need_string(j["method"], where + ".method");
    if (!valid_token(t.method)) bad(where + ".method", "not a valid HTTP method token");
  }
  t.head = t.method == "HEAD";
  std::string path = "/";
  if (j.contains("path")) {
    path = need_string(j["path"], where + ".path");
    if (!path.starts_with("/")) bad(where + ".path", "must start with '/'");
    if (path.find_first_of(" \r\n") != std::string::npos)
      bad(where + ".path", "must not contain spaces or line breaks (percent-encode them)");
  }
  std::string query;
  if (j.contains("query")) {
    const json& q = j["query"];
    if (q.is_string()) {
      query = q.get<std::string>();
      if (query.find_first_of(" \r\n") != std::string::npos)
        bad(where + ".query", "must not contain spaces or line breaks (percent-encode them)");
    } else if (q.is_object()) {
      for (const auto& [k, v] : string_map(q, where + ".query")) {
        if (!query.empty()) query += '&';
        query += percent_encode(k) + "=" + percent_encode(v);
      }
    } else {
      bad(where + ".query", "expected a string or an object");
    }
  }
  t.target = path;
  if (!query.empty()) t.target += (path.find('?') == std::string::npos ? "?" : "&") + query;
  if (j.contains("headers")) {
    t.headers = string_map(j["headers"], where + ".headers");
    for (const auto& [k, v] : t.headers) {
      if (!valid_token(k)) bad(where + ".headers." + k, "invalid header name");
      if (has_line_break(v)) bad(where + ".headers." + k, "line breaks are not allowed");
      if (iequals(k, "content-length") || iequals(k, "transfer-encoding"))
        bad(where + ".headers." + k, "set by the generator from the body");
    }
  }
  if (j.contains("cookies")) {
    t.cookies = string_map(j["cookies"], where + ".cookies");
    for (const auto& [k, v] : t.cookies)
      if (!valid_token(k) || has_line_break(v) || v.find(';') != std::string::npos)
        bad(where + ".cookies." + k, "invalid cookie name or value");
  }
  if (j.contains("body")) {
    const json& b = j["body"];
    if (b.is_string()) {
      t.body = b.get<std::string>();
    } else if (b.is_object() || b.is_array()) {
      t.body = b.dump();
      const bool typed = std::any_of(t.headers.begin(), t.headers.end(), [](const auto& h) {
        return iequals(h.first, "content-type");
      });
      if (!typed) t.headers.emplace_back("Content-Type", "application/json");
    } else {
      bad(where + ".body", "expected a string, an object or an array");
    }
  }
  if (j.contains("expect_status")) {
    const json& s = j["expect_status"];
    if (!s.is_number_integer() || s.get<int>() < 100 || s.get<int>() > 599)
      bad(where + ".expect_status", "expected an HTTP status code from 100 to 599");
    t.expect_status = s.get<int>();
  }
  return t;
}

}  // namespace

std::string serialise_request(const RequestTemplate& t, const Target& target,
                              const std::vector<std::string>& global_headers, bool close) {
  std::vector<std::pair<std::string, std::string>> headers;
  headers.emplace_back("Host", target.host_header);
  auto set = [&](const std::string& name, const std::string& value) {
    for (auto& h : headers) {
      if (iequals(h.first, name)) {
        h = {name, value};
        return;
      }
    }
    headers.emplace_back(name, value);
  };
  for (const std::string& g : global_headers) {
    const std::size_t colon = g.find(':');
    std::string value = g.substr(colon + 1);
    const std::size_t first = value.find_first_not_of(" \t");
    value = first == std::string::npos ? "" : value.substr(first);
    set(g.substr(0, colon), value);
  }
  for (const auto& [k, v] : t.headers) set(k, v);
  if (!t.cookies.empty()) {
    std::string cookie;
    for (const auto& [k, v] : t.cookies) {
      if (!cookie.empty()) cookie += "; ";
      cookie += k + "=" + v;
    }
    set("Cookie", cookie);
  }
  const bool needs_length =
      !t.body.empty() || t.method == "POST" || t.method == "PUT" || t.method == "PATCH";
  if (needs_length) set("Content-Length", std::to_string(t.body.size()));
  if (close) set("Connection", "close");
  std::string out = t.method + " " + t.target + " HTTP/1.1\r\n";
  for (const auto& [k, v] : headers) out += k + ": " + v + "\r\n";
  out += "\r\n";
  out += t.body;
  return out;
}

RequestSet RequestSet::single(const Target& target, const std::vector<std::string>& headers,
                              bool close) {
  RequestSet set;
  RequestTemplate t;
  t.name = "default";
  t.target = target.path;
  set.templates_.push_back(std::move(t));
  set.finish(target, headers, close);
  return set;
}

RequestSet RequestSet::load(const std::string& path, const Target& target,
                            const std::vector<std::string>& headers, bool close) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw common::UsageError(path + ": cannot open");
  std::stringstream ss;
  ss << in.rdbuf();
  return parse(ss.str(), path, target, headers, close);
}

RequestSet RequestSet::parse(const std::string& text, const std::string& source,
                             const Target& target, const std::vector<std::string>& headers,
                             bool close) {
  json doc;
  try {
    doc = json::parse(text);
  } catch (const json::parse_error& e) {
    throw common::UsageError(source + ": not valid JSON: " + e.what());
  }
  if (!doc.is_object()) bad(source, "expected an object with a \"requests\" array");
  if (doc.contains("schema") &&
      (!doc["schema"].is_string() || doc["schema"] != "gatebench.requests/1"))
    bad(source + ": schema", "expected \"gatebench.requests/1\"");
  for (const auto& [k, v] : doc.items())
    if (k != "schema" && k != "requests") bad(source + ": " + k, "unknown field");
  if (!doc.contains("requests") || !doc["requests"].is_array() || doc["requests"].empty())
    bad(source + ": requests", "expected a non-empty array of request templates");
  RequestSet set;
  std::size_t i = 0;
  for (const json& j : doc["requests"]) {
    set.templates_.push_back(
        parse_template(j, source + ": requests[" + std::to_string(i) + "]", i));
    ++i;
  }
  for (std::size_t a = 0; a < set.templates_.size(); ++a)
    for (std::size_t b = 0; b < a; ++b)
      if (set.templates_[a].name == set.templates_[b].name)
        bad(source + ": requests[" + std::to_string(a) + "].name",
            "duplicate name '" + set.templates_[a].name + "'");
  set.finish(target, headers, close);
  return set;
}

void RequestSet::finish(const Target& target, const std::vector<std::string>& headers, bool close) {
  double total = 0;
  for (auto& t : templates_) {
    t.wire = serialise_request(t, target, headers, close);
    total += t.weight;
  }
  double acc = 0;
  cumulative_.clear();
  for (const auto& t : templates_) {
    acc += t.weight / total;
    cumulative_.push_back(acc);
  }
  cumulative_.back() = 1.0;
}

std::size_t RequestSet::pick(double u) const {
  if (cumulative_.size() == 1) return 0;
  const auto it = std::upper_bound(cumulative_.begin(), cumulative_.end(), u);
  return std::min<std::size_t>(static_cast<std::size_t>(it - cumulative_.begin()),
                               cumulative_.size() - 1);
}

}  // namespace gatebench::load
