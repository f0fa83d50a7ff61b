#include "micro/core/cache/key.hpp"

#include <cstring>

namespace gatebench::cache {
namespace {

__extension__ typedef unsigned __int128 U128;

constexpr std::uint64_t kSeed0 = 0xa0761d6478bd642fULL;
constexpr std::uint64_t kSeed1 = 0xe7037ed1a0b428dbULL;
constexpr std::uint64_t kSeed2 = 0x8ebc6af09c88c6e3ULL;

// Folded 128-bit product: every input bit reaches every output bit in one multiplication.
inline std::uint64_t fold_mul(std::uint64_t a, std::uint64_t b) noexcept {
  const U128 r = static_cast<U128>(a) * b;
  return static_cast<std::uint64_t>(r) ^ static_cast<std::uint64_t>(r >> 64);
}

inline std::uint64_t load8(const char* p) noexcept {
  std::uint64_t w;
  std::memcpy(&w, p, sizeof(w));
  return w;
}

// The last 1..7 bytes, zero-extended (reads only inside [p, p + n)).
inline std::uint64_t load_tail(const char* p, std::size_t n) noexcept {
  std::uint64_t w = 0;
  std::memcpy(&w, p, n);
  return w;
}

template <bool kLower>
inline std::uint64_t word(std::uint64_t w) noexcept {
  if constexpr (kLower) {
    return lower_ascii8(w);
  } else {
    return w;
  }
}

// 16 bytes per multiplication; the length closes the piece so field boundaries are hashed.
template <bool kLower>
std::uint64_t mix_piece(std::uint64_t h, std::string_view s) noexcept {
  const char* p = s.data();
  std::size_t n = s.size();
  while (n >= 16) {
    h = fold_mul(word<kLower>(load8(p)) ^ kSeed0 ^ h, word<kLower>(load8(p + 8)) ^ kSeed1);
    p += 16;
    n -= 16;
  }
  std::uint64_t a = 0;
  std::uint64_t b = 0;
  if (n >= 8) {
    a = word<kLower>(load8(p));
    b = n > 8 ? word<kLower>(load_tail(p + 8, n - 8)) : 0;
  } else if (n > 0) {
    a = word<kLower>(load_tail(p, n));
  }
  h = fold_mul(a ^ kSeed0 ^ h, b ^ kSeed1);
  return fold_mul(h ^ s.size(), kSeed2);
}

}  // namespace

Method method_from(std::string_view method) noexcept {
  if (method == "GET") return Method::kGet;
  if (method == "HEAD") return Method::kHead;
  return Method::kOther;
}

std::uint64_t key_hash(const RequestKey& key) noexcept {
  std::uint64_t h = kSeed2 ^ static_cast<std::uint64_t>(key.method);
  h = mix_piece<true>(h, key.host);
  h = mix_piece<false>(h, key.target);
  return h;
}

bool equals_lower(std::string_view s, std::string_view lower) noexcept {
  if (s.size() != lower.size()) return false;
  std::size_t i = 0;
  for (; i + 8 <= s.size(); i += 8) {
    if (lower_ascii8(load8(s.data() + i)) != load8(lower.data() + i)) return false;
  }
  if (i < s.size()) {
    const std::size_t n = s.size() - i;
    return lower_ascii8(load_tail(s.data() + i, n)) == load_tail(lower.data() + i, n);
  }
  return true;
}

void copy_lower(std::string_view s, std::span<char> out) noexcept {
  std::size_t i = 0;
  for (; i + 8 <= s.size(); i += 8) {
    const std::uint64_t w = lower_ascii8(load8(s.data() + i));
    std::memcpy(out.data() + i, &w, sizeof(w));
  }
  if (i < s.size()) {
    const std::size_t n = s.size() - i;
    const std::uint64_t w = lower_ascii8(load_tail(s.data() + i, n));
    std::memcpy(out.data() + i, &w, n);
  }
}

}  // namespace gatebench::cache
