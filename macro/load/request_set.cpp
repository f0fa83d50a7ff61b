#include "macro/load/request_set.hpp"

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

#include "macro/common/json_field.hpp"

namespace gatebench::load {
namespace {

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

// Ordered: queries, headers and cookies go out in the order the file lists them.
using Json = nlohmann::ordered_json;
using Field = common::OrderedJsonField;

// Object of name -> string (or number/bool, written as JSON text), in the file's order.
std::vector<std::pair<std::string, std::string>> string_pairs(const Field& f) {
  if (!f.json().is_object()) f.fail("expected an object of name: value");
  std::vector<std::pair<std::string, std::string>> out;
  for (const std::string& k : f.keys()) {
    const Field v = f.child(k);
    if (v.json().is_string())
      out.emplace_back(k, v.string());
    else if (v.json().is_number() || v.json().is_boolean())
      out.emplace_back(k, v.json().dump());
    else
      v.fail("expected a string or number");
  }
  return out;
}

RequestTemplate parse_template(const Field& j, std::size_t index) {
  j.expect_object();
  RequestTemplate t;
  t.name = "t" + std::to_string(index);
  static const std::vector<std::string> kKnown = {
      "name", "weight", "method", "path", "query", "headers", "cookies", "body", "expect_status"};
  for (const std::string& k : j.keys()) {
    if (std::find(kKnown.begin(), kKnown.end(), k) == kKnown.end())
      j.child(k).fail(
          "unknown field (known: name, weight, method, path, query, headers, "
          "cookies, body, expect_status)");
  }
  t.name = j.string_or("name", t.name);
  if (j.has("weight")) {
    const Field w = j.child("weight");
    if (!w.json().is_number() || !(w.number() > 0) || !std::isfinite(w.number()))
      w.fail("expected a positive number");
    t.weight = w.number();
  }
  if (j.has("method")) {
    t.method = j.child("method").string();
    if (!valid_token(t.method)) j.child("method").fail("not a valid HTTP method token");
  }
  t.head = t.method == "HEAD";
  std::string path = "/";
  if (j.has("path")) {
    const Field p = j.child("path");
    path = p.string();
    if (!path.starts_with("/")) p.fail("must start with '/'");
    if (path.find_first_of(" \r\n") != std::string::npos)
      p.fail("must not contain spaces or line breaks (percent-encode them)");
  }
  std::string query;
  if (j.has("query")) {
    const Field q = j.child("query");
    if (q.json().is_string()) {
      query = q.string();
      if (query.find_first_of(" \r\n") != std::string::npos)
        q.fail("must not contain spaces or line breaks (percent-encode them)");
    } else if (q.json().is_object()) {
      for (const auto& [k, v] : string_pairs(q)) {
        if (!query.empty()) query += '&';
        query += percent_encode(k) + "=" + percent_encode(v);
      }
    } else {
      q.fail("expected a string or an object");
    }
  }
  t.target = path;
  if (!query.empty()) t.target += (path.find('?') == std::string::npos ? "?" : "&") + query;
  if (j.has("headers")) {
    const Field headers = j.child("headers");
    t.headers = string_pairs(headers);
    for (const auto& [k, v] : t.headers) {
      if (!valid_token(k)) headers.child(k).fail("invalid header name");
      if (has_line_break(v)) headers.child(k).fail("line breaks are not allowed");
      if (iequals(k, "content-length") || iequals(k, "transfer-encoding"))
        headers.child(k).fail("set by the generator from the body");
    }
  }
  if (j.has("cookies")) {
    const Field cookies = j.child("cookies");
    t.cookies = string_pairs(cookies);
    for (const auto& [k, v] : t.cookies)
      if (!valid_token(k) || has_line_break(v) || v.find(';') != std::string::npos)
        cookies.child(k).fail("invalid cookie name or value");
  }
  if (j.has("body")) {
    const Field b = j.child("body");
    if (b.json().is_string()) {
      t.body = b.string();
    } else if (b.json().is_object() || b.json().is_array()) {
      t.body = b.json().dump();
      const bool typed = std::any_of(t.headers.begin(), t.headers.end(), [](const auto& h) {
        return iequals(h.first, "content-type");
      });
      if (!typed) t.headers.emplace_back("Content-Type", "application/json");
    } else {
      b.fail("expected a string, an object or an array");
    }
  }
  if (j.has("expect_status")) {
    const Field s = j.child("expect_status");
    if (!s.json().is_number_integer() || s.json().get<long>() < 100 || s.json().get<long>() > 599)
      s.fail("expected an HTTP status code from 100 to 599");
    t.expect_status = static_cast<int>(s.json().get<long>());
  }
  return t;
}

std::vector<RequestTemplate> parse_templates(const Json& doc, const std::string& source) {
  const Field root(doc, source);
  if (!doc.is_object()) root.fail("expected an object with a \"requests\" array");
  const Field schema = root.child("schema");
  if (schema.present() && (!schema.json().is_string() || schema.string() != "gatebench.requests/1"))
    schema.fail("expected \"gatebench.requests/1\"");
  root.allow_only({"schema", "requests"});
  const Field requests = root.child("requests");
  if (!requests.present() || !requests.json().is_array() || requests.size() == 0)
    requests.fail("expected a non-empty array of request templates");
  std::vector<RequestTemplate> out;
  for (std::size_t i = 0; i < requests.size(); ++i)
    out.push_back(parse_template(requests.at(i), i));
  for (std::size_t a = 0; a < out.size(); ++a)
    for (std::size_t b = 0; b < a; ++b)
      if (out[a].name == out[b].name)
        requests.at(a).child("name").fail("duplicate name '" + out[a].name + "'");
  return out;
}

}  // namespace

std::vector<std::pair<std::string, std::string>> request_headers(
    const RequestTemplate& t, const Target& target, const std::vector<std::string>& global_headers,
    bool close) {
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
  return headers;
}

std::string serialise_request(const RequestTemplate& t, const Target& target,
                              const std::vector<std::string>& global_headers, bool close) {
  std::string out = t.method + " " + t.target + " HTTP/1.1\r\n";
  for (const auto& [k, v] : request_headers(t, target, global_headers, close))
    out += k + ": " + v + "\r\n";
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
  RequestSet set;
  set.templates_ = parse_templates(common::read_json_file<Json>(path), path);
  set.finish(target, headers, close);
  return set;
}

RequestSet RequestSet::parse(const std::string& text, const std::string& source,
                             const Target& target, const std::vector<std::string>& headers,
                             bool close) {
  RequestSet set;
  set.templates_ = parse_templates(common::parse_json_text<Json>(text, source), source);
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
