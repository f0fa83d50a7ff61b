#include "micro/peers/http1_http_parser.hpp"

#include <array>
#include <cstddef>

#if GATEBENCH_HAVE_HTTP_PARSER
#include <http_parser.h>
#endif

namespace gatebench::peers {

#if GATEBENCH_HAVE_HTTP_PARSER
namespace {

// A view with no constructor: the slots of a Capture stay unset until a callback writes them.
// An array of std::string_view would be zeroed for every message (3.2 KB of stores), work that
// gatecore, whose result is reused from message to message, does not do.
struct View {
  const char* at;
  std::size_t len;
};

// What the callbacks keep: views of each name and value, as gatecore keeps offsets.
struct Capture {
  std::array<View, 100> names;
  std::array<View, 100> values;
  int fields = 0;
  long long body = 0;
  bool complete = false;
};

Capture& capture(http_parser* p) {
  return *static_cast<Capture*>(p->data);
}

int on_field(http_parser* p, const char* at, std::size_t len) {
  Capture& c = capture(p);
  if (c.fields == static_cast<int>(c.names.size())) return 1;
  c.names[static_cast<std::size_t>(c.fields++)] = View{at, len};
  return 0;
}

int on_value(http_parser* p, const char* at, std::size_t len) {
  Capture& c = capture(p);
  c.values[static_cast<std::size_t>(c.fields - 1)] = View{at, len};
  return 0;
}

int on_body(http_parser* p, const char*, std::size_t len) {
  capture(p).body += static_cast<long long>(len);
  return 0;
}

int on_complete(http_parser* p) {
  capture(p).complete = true;
  return 0;
}

const http_parser_settings kSettings = [] {
  http_parser_settings s{};
  s.on_header_field = on_field;
  s.on_header_value = on_value;
  s.on_body = on_body;
  s.on_message_complete = on_complete;
  return s;
}();

bool run(std::string_view bytes, http_parser_type type, Capture& c) {
  http_parser p;
  http_parser_init(&p, type);
  p.data = &c;
  const std::size_t n = http_parser_execute(&p, &kSettings, bytes.data(), bytes.size());
  return n == bytes.size() && HTTP_PARSER_ERRNO(&p) == HPE_OK && c.complete;
}

}  // namespace

bool http_parser_available() {
  return true;
}
const char* http_parser_unavailable_reason() {
  return "";
}

int http_parser_request_fields(std::string_view head) {
  Capture c;
  return run(head, HTTP_REQUEST, c) ? c.fields : -1;
}

long long http_parser_response_body(std::string_view message) {
  Capture c;
  return run(message, HTTP_RESPONSE, c) ? c.body : -1;
}

#else

bool http_parser_available() {
  return false;
}
const char* http_parser_unavailable_reason() {
  return "http_parser not installed (apt-get install libhttp-parser-dev)";
}
int http_parser_request_fields(std::string_view) {
  return -1;
}
long long http_parser_response_body(std::string_view) {
  return -1;
}

#endif

}  // namespace gatebench::peers
