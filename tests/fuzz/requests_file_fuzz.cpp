// gatebench-load's request template reader (load::RequestSet::parse, --requests FILE, schema
// gatebench.requests/1, docs/load.md) on arbitrary text. Promised: the templates or a
// common::UsageError whose message starts with the file's name (then the JSON pointer); every
// template's bytes on the wire are its request line, one line per header field it states (no
// value, name, method or target can add a line: the file cannot smuggle in a request of its
// own), the empty line, then exactly its body, whose length a Content-Length states; and the
// weighted choice always picks a template.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "macro/common/usage_error.hpp"
#include "macro/load/request_set.hpp"
#include "macro/load/url.hpp"
#include "tests/fuzz/input_file_fuzz.hpp"

namespace {

using namespace gatebench;

void check_wire(const load::RequestTemplate& t, const load::Target& target) {
  const std::string_view wire = t.wire;
  const std::size_t end = wire.find("\r\n\r\n");
  fuzz::check(end != std::string_view::npos);
  const std::string_view head = wire.substr(0, end + 2);  // each line with its CRLF
  fuzz::check(wire.substr(end + 4) == t.body);
  const auto headers = load::request_headers(t, target, {}, false);
  std::size_t lines = 0;
  for (std::size_t at = 0; (at = head.find("\r\n", at)) != std::string_view::npos; at += 2) ++lines;
  fuzz::check(lines == 1 + headers.size());
  std::size_t crs = 0, lfs = 0;
  for (char c : head) {
    crs += c == '\r';
    lfs += c == '\n';
  }
  fuzz::check(crs == lines && lfs == lines);  // no bare CR or LF
  fuzz::check(head.substr(0, head.find("\r\n")) == t.method + " " + t.target + " HTTP/1.1");
  for (const auto& [name, value] : headers) {
    if (name == "Content-Length") fuzz::check(value == std::to_string(t.body.size()));
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const load::Target target = load::parse_url("http://127.0.0.1:8080/");
  const std::string text = fuzz::text_of(data, size);
  fuzz::reads_or_names_file<common::UsageError>("requests.json", [&] {
    const load::RequestSet set = load::RequestSet::parse(text, "requests.json", target, {}, false);
    fuzz::check(set.size() > 0);
    for (const load::RequestTemplate& t : set.templates()) check_wire(t, target);
    for (double u : {0.0, 0.25, 0.5, 0.999999}) fuzz::check(set.pick(u) < set.size());
  });
  return 0;
}
