// Normalisation, body decoding and header scanning allocate nothing per call once the caller's
// scratch buffers (and RE2's lazily built DFA states) are warm: the gateway runs them per request.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "fixtures/traffic.hpp"
#include "micro/core/rules/body_fields.hpp"
#include "micro/core/rules/exploit_scanner.hpp"
#include "micro/core/rules/normalize.hpp"
#include "tests/micro/allocation_counter.hpp"

namespace gatebench::rules {
namespace {

using gatebench::testing::g_allocations;

TEST(InspectionAllocation, NormaliseDecodeAndScanHeaders) {
  const fixtures::Traffic traffic = fixtures::generate_traffic("mix", 2000);
  const ExploitMatcher matcher;
  ExploitScanner scanner(matcher);
  std::vector<char> target(1 << 16);
  std::vector<char> body(1 << 16);
  std::size_t findings = 0;
  auto pass = [&] {
    for (std::size_t i = 0; i < traffic.size(); ++i) {
      const RequestView r = traffic.view(i);
      std::string_view out;
      normalize_path(r.path, target.data(), out);
      normalize_query(r.query, target.data(), out);
      std::string_view content_type;
      find_header(r, "content-type", content_type);
      std::string_view boundary;
      decode_body_fields(body_format(content_type, boundary), boundary, r.body, true, body.data(),
                         out);
      findings += scanner.scan_headers(r) != ExploitCategory::kNone;
    }
  };
  pass();
  const std::size_t before = g_allocations.load();
  pass();
  EXPECT_EQ(g_allocations.load(), before);
  EXPECT_EQ(findings, 0u);  // the generated traffic carries its attacks outside the headers
}

}  // namespace
}  // namespace gatebench::rules
