// Node's http_parser (Debian libhttp-parser-dev) over one message in one buffer, recording each
// field's name and value as views: the http1 benchmarks' C peer. Without the library it compiles
// to a stub whose benchmarks report skipped.
#pragma once

#include <string_view>

namespace gatebench::peers {

bool http_parser_available();
const char* http_parser_unavailable_reason();

// The number of fields of the request head, or -1 when http_parser rejects it.
int http_parser_request_fields(std::string_view head);

// One response with its chunked body, counted and not stored: the body's data bytes, or -1.
long long http_parser_response_body(std::string_view message);

}  // namespace gatebench::peers
