// Fuzz target for verify_admission / verify_pass: never crash, and never accept a token this
// target did not mint.
//
// Random text alone would almost never reach the tag check, so inputs come in two forms:
//   0x00 <base> (<position> <byte>)*   a token minted at startup, chosen by <base>, with the
//                                      listed single-byte edits: the fuzzer explores tokens one
//                                      edit away from valid ones, where a forgery would hide;
//   anything else                      the raw bytes are the token text.
// Acceptance of any text that is not byte-identical to the minted token it claims to be (and
// presented by the client it was minted for) aborts: that is a forgery.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "fixtures/token_fixtures.hpp"
#include "micro/core/tokens/token.hpp"

namespace {

namespace tokens = gatebench::tokens;
namespace fx = gatebench::fixtures;

constexpr std::uint64_t kNow = fx::kTokenNow;

struct Minted {
  tokens::TokenKeyRing ring;
  std::vector<std::string> admission;
  std::vector<std::string> pass;
  std::vector<fx::TokenClient> clients;

  Minted() {
    clients = fx::token_clients(4);
    ring.rotate(1, fx::token_secret(1));
    for (int i = 0; i < 4; ++i) {
      if (i == 2) ring.rotate(2, fx::token_secret(2));  // tokens under both keys of the ring
      admission.emplace_back(tokens::mint_admission(ring, kNow + 3600, i, 1000 + i).view());
      pass.emplace_back(
          tokens::mint_pass(ring, kNow + 3600, clients[i].ipv4, clients[i].user_agent).view());
    }
  }
};

const Minted& minted() {
  static const Minted m;
  return m;
}

void check(const std::string& text) {
  const Minted& m = minted();
  // Admission: accepted only if it is one of the minted admission tokens.
  if (tokens::verify_admission(m.ring, text, kNow) == tokens::VerifyStatus::ok) {
    bool known = false;
    for (const auto& t : m.admission) known |= t == text;
    if (!known) std::abort();
  }
  // Pass: presented by each minted client, accepted only as that client's own token.
  for (std::size_t c = 0; c < m.clients.size(); ++c) {
    const auto status =
        tokens::verify_pass(m.ring, text, kNow, m.clients[c].ipv4, m.clients[c].user_agent);
    if (status == tokens::VerifyStatus::ok && text != m.pass[c]) std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const Minted& m = minted();
  if (size >= 2 && data[0] == 0) {
    const std::size_t base = data[1] % (m.admission.size() + m.pass.size());
    std::string text =
        base < m.admission.size() ? m.admission[base] : m.pass[base - m.admission.size()];
    for (std::size_t i = 2; i + 1 < size; i += 2)
      text[data[i] % text.size()] = static_cast<char>(data[i + 1]);
    check(text);
  } else {
    check(std::string(reinterpret_cast<const char*>(data), size));
  }
  return 0;
}
