// libFuzzer target for the CIDR list parser and the dotted-quad parser: any bytes must give
// normalised entries and diagnostics with valid line numbers, never a crash; a list that parses
// must build a table that agrees with a linear scan at every prefix boundary.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>
#include <vector>

#include "micro/core/cidr/cidr.hpp"

namespace {

using namespace gatebench::cidr;

CidrValue linear_lookup(const std::vector<CidrEntry>& entries, std::uint32_t a) {
  CidrValue best = kNoMatch;
  int best_length = -1;
  for (const CidrEntry& e : entries) {
    if (e.prefix.contains(a) && e.prefix.length >= best_length) {
      best = e.value;
      best_length = e.prefix.length;
    }
  }
  return best;
}

void check(bool ok) {
  if (!ok) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);

  const Ipv4ParseResult address = parse_ipv4(text);
  if (address) {
    check(parse_ipv4(format_ipv4(address.address)).address == address.address);
  } else {
    check(address.error_offset <= text.size());
  }

  std::size_t lines = 0;
  for (std::size_t i = 0; i < text.size(); ++i) lines += text[i] == '\n';
  if (!text.empty() && text.back() != '\n') ++lines;

  const CidrListParse parsed = parse_cidr_list(text, 1);
  for (const CidrEntry& e : parsed.entries) {
    check(e.prefix.length <= 32);
    check((e.prefix.address & ~prefix_mask(e.prefix.length)) == 0);
    check(e.value != kNoMatch);
  }
  for (const auto* list : {&parsed.errors, &parsed.warnings}) {
    for (const CidrDiagnostic& d : *list)
      check(d.line >= 1 && d.line <= lines && !d.message.empty());
  }
  if (!parsed.ok() || parsed.entries.size() > 2000) return 0;

  const Ipv4Table table = Ipv4Table::build(parsed.entries);
  std::vector<std::uint32_t> probes;
  for (const CidrEntry& e : parsed.entries) {
    for (const std::uint32_t a :
         {e.prefix.first(), e.prefix.last(), e.prefix.first() - 1, e.prefix.last() + 1}) {
      probes.push_back(a);
    }
  }
  std::vector<CidrValue> batch(probes.size());
  table.lookup_batch(probes, batch);
  for (std::size_t i = 0; i < probes.size(); ++i) {
    const CidrValue expected = linear_lookup(parsed.entries, probes[i]);
    check(table.lookup(probes[i]) == expected);
    check(batch[i] == expected);
  }
  return 0;
}
