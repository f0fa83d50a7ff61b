#include "micro/core/tokens/binding.hpp"

#include <cstring>

namespace gatebench::tokens {
namespace {

constexpr std::uint64_t rotl(std::uint64_t x, int n) {
  return (x << n) | (x >> (64 - n));
}

std::uint64_t load_le64(const std::uint8_t* p) {
  std::uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

class SipState {
 public:
  explicit SipState(const SipKey& key)
      : v0_(key.k0 ^ 0x736f6d6570736575ULL),
        v1_(key.k1 ^ 0x646f72616e646f6dULL),
        v2_(key.k0 ^ 0x6c7967656e657261ULL),
        v3_(key.k1 ^ 0x7465646279746573ULL) {}

  void absorb(std::uint64_t m) {
    v3_ ^= m;
    round();
    round();
    v0_ ^= m;
  }

  // `tail` holds the last total_size % 8 bytes, little-endian, below the length byte.
  std::uint64_t finish(std::uint64_t tail, std::uint64_t total_size) {
    absorb(tail | (total_size << 56));
    v2_ ^= 0xff;
    round();
    round();
    round();
    round();
    return v0_ ^ v1_ ^ v2_ ^ v3_;
  }

 private:
  void round() {
    v0_ += v1_;
    v1_ = rotl(v1_, 13);
    v1_ ^= v0_;
    v0_ = rotl(v0_, 32);
    v2_ += v3_;
    v3_ = rotl(v3_, 16);
    v3_ ^= v2_;
    v0_ += v3_;
    v3_ = rotl(v3_, 21);
    v3_ ^= v0_;
    v2_ += v1_;
    v1_ = rotl(v1_, 17);
    v1_ ^= v2_;
    v2_ = rotl(v2_, 32);
  }

  std::uint64_t v0_, v1_, v2_, v3_;
};

// Absorbs the whole 8-byte words of `data` and returns the leftover bytes as a partial word.
std::uint64_t absorb_words(SipState& state, const std::uint8_t* data, std::size_t size) {
  std::size_t i = 0;
  for (; i + 8 <= size; i += 8) {
    std::uint64_t m;
    std::memcpy(&m, data + i, 8);  // x86-64 is little-endian, as SipHash words are
    state.absorb(m);
  }
  std::uint64_t tail = 0;
  for (std::size_t j = size; j > i; --j) tail = (tail << 8) | data[j - 1];
  return tail;
}

}  // namespace

std::uint64_t siphash24(const SipKey& key, std::span<const std::uint8_t> message) {
  SipState state(key);
  const std::uint64_t tail = absorb_words(state, message.data(), message.size());
  return state.finish(tail, message.size());
}

std::uint64_t client_binding(const SipKey& key, std::uint32_t ipv4, std::string_view user_agent) {
  SipState state(key);
  const auto* ua = reinterpret_cast<const std::uint8_t*>(user_agent.data());
  const std::size_t total = 4 + user_agent.size();
  // The first word is the address (network order) and the first four User-Agent bytes.
  std::uint8_t first[8] = {static_cast<std::uint8_t>(ipv4 >> 24),
                           static_cast<std::uint8_t>(ipv4 >> 16),
                           static_cast<std::uint8_t>(ipv4 >> 8), static_cast<std::uint8_t>(ipv4)};
  const std::size_t head = user_agent.size() < 4 ? user_agent.size() : 4;
  if (head != 0) std::memcpy(first + 4, ua, head);
  if (total < 8) {
    std::uint64_t tail = 0;
    for (std::size_t j = total; j > 0; --j) tail = (tail << 8) | first[j - 1];
    return state.finish(tail, total);
  }
  state.absorb(load_le64(first));
  const std::uint64_t tail = absorb_words(state, ua + 4, user_agent.size() - 4);
  return state.finish(tail, total);
}

}  // namespace gatebench::tokens
