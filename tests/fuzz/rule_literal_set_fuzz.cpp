// LiteralSet fuzz target: the input is cut into literals and a text; find_all (SIMD where the
// build has SSSE3) and find_all_portable must both equal one std::string_view::find per literal.
// Input: byte 0 = literal count (mod 65); per literal one byte (bits 0-3 length mod 9, bit 7
// case-insensitive) then its bytes; the rest is the text.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "micro/core/rules/literal_set.hpp"
#include "micro/core/rules/request_ascii.hpp"

namespace {

void check(bool ok) {
  if (!ok) __builtin_trap();
}

std::string folded(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = gatebench::rules::lower_ascii(c);
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using gatebench::rules::LiteralSet;
  std::string_view in(reinterpret_cast<const char*>(data), size);
  if (in.empty()) return 0;
  const std::size_t count = static_cast<unsigned char>(in[0]) % (LiteralSet::kMaxLiterals + 1);
  in.remove_prefix(1);
  std::vector<LiteralSet::Literal> literals;
  for (std::size_t i = 0; i < count && !in.empty(); ++i) {
    const auto spec = static_cast<unsigned char>(in[0]);
    in.remove_prefix(1);
    const std::size_t length = std::min<std::size_t>((spec & 15) % 9, in.size());
    literals.push_back({std::string(in.substr(0, length)), (spec & 0x80) != 0});
    in.remove_prefix(length);
  }
  const LiteralSet set(literals);
  const std::string_view text = in;
  const std::string text_folded = folded(text);
  std::uint64_t want = 0;
  for (std::size_t i = 0; i < literals.size(); ++i) {
    const bool hit =
        literals[i].case_insensitive
            ? std::string_view(text_folded).find(folded(literals[i].text)) != std::string_view::npos
            : text.find(literals[i].text) != std::string_view::npos;
    want |= std::uint64_t{hit} << i;
  }
  check(set.find_all(text) == want);
  check(set.find_all_portable(text) == want);
  return 0;
}
