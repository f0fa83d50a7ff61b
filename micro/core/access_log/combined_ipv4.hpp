// Internal to the combined parser: a dotted quad by one hashed table lookup. Not part of the
// public contract.
//
// Why: parse_ipv4_compress (scan.hpp) derives each octet's digit shuffle in registers
// from a vpcompressb of the octet ends, about 30 instructions on the line's critical path. Here
// the 16-bit mask of the octet ends (three dots and the field's end) is hashed (one multiply) to
// the slot of one of the 81 valid shapes (octet lengths 1..3 each), which holds the shape's
// shuffle and mask: a line spends about half the instructions. A mask that is not one of
// the 81 shapes (a fourth dot, an empty or a 4-digit octet) does not match its slot's mask.
#pragma once

#include <cstddef>
#include <cstdint>

#include "micro/core/access_log/scan.hpp"

#if defined(__SSSE3__)
#include <immintrin.h>

namespace gatebench::access_log::detail {

struct Ipv4HashTables {
  static constexpr int kBits = 9;  // 512 slots for 81 shapes
  // A slot holds its shape's shuffle and octet ends itself (0 ends: no shape), so both loads
  // depend on the hash alone; an index to a shape table put a second load on the line's
  // critical path. 16 KB in all, but a parser only touches the 81 slots in use.
  struct Slot {
    std::uint8_t shuffle[16];
    std::uint16_t ends;
    std::uint8_t pad[14];
  };
  std::uint32_t multiplier = 0;
  alignas(32) Slot slot[1u << kBits] = {};
};

constexpr std::uint32_t ipv4_hash(std::uint32_t ends, std::uint32_t multiplier) {
  return (ends * multiplier) >> (32 - Ipv4HashTables::kBits);
}

constexpr Ipv4HashTables make_ipv4_hash_tables() {
  Ipv4HashTables t{};
  std::uint16_t masks[81] = {};
  std::uint8_t shuffles[81][16] = {};
  for (int id = 0; id < 81; ++id) {
    const int len[4] = {id / 27 + 1, id / 9 % 3 + 1, id / 3 % 3 + 1, id % 3 + 1};
    int start = 0;
    std::uint16_t mask = 0;
    for (int o = 0; o < 4; ++o) {
      // Byte j of lane o takes the octet's digit 3 - j places before its end; 0x80 zeroes it.
      for (int j = 0; j < 4; ++j) {
        const int from_end = 3 - j;
        shuffles[id][4 * o + j] =
            static_cast<std::uint8_t>(from_end < len[o] ? start + len[o] - 1 - from_end : 0x80);
      }
      start += len[o];
      mask = static_cast<std::uint16_t>(mask | (1u << start));  // a dot, or the end
      start += 1;
    }
    masks[id] = mask;
  }
  for (auto& s : t.slot) {
    for (auto& b : s.shuffle) b = 0x80;
  }
  // The first odd multiplier (from a fixed sequence) under which the 81 masks share no slot.
  std::uint32_t m = 0x9e37'79b1u;
  for (;;) {
    bool used[1u << Ipv4HashTables::kBits] = {};
    bool clash = false;
    for (int id = 0; id < 81 && !clash; ++id) {
      const std::uint32_t h = ipv4_hash(masks[id], m);
      clash = used[h];
      used[h] = true;
    }
    if (!clash) break;
    m = m * 0x0019'660du + 0x3c6e'f35fu;
    m |= 1;
  }
  t.multiplier = m;
  for (int id = 0; id < 81; ++id) {
    Ipv4HashTables::Slot& s = t.slot[ipv4_hash(masks[id], m)];
    s.ends = masks[id];
    for (int j = 0; j < 16; ++j) s.shuffle[j] = shuffles[id][j];
  }
  return t;
}

inline constexpr Ipv4HashTables kIpv4Hash = make_ipv4_hash_tables();

// Dotted quad, 1..3 digits per octet, each <= 255, in the 16 bytes `v`, ending at the lowest set
// bit of `end_bits` (the caller's mask of spaces, or 1 << length). Why a mask and not an end
// pointer: the octet ends then come from it in two bit operations, with no count of trailing
// zeros and shift on the way to the hash, which is on the line's critical path.
inline bool parse_ipv4_hashed(__m128i v, unsigned end_bits, std::uint32_t& out) {
  const unsigned end = end_bits & (0u - end_bits);
  const unsigned in_field = end - 1;
  const auto dots =
      static_cast<unsigned>(_mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8('.')))) & in_field;
  const __m128i t = _mm_sub_epi8(v, _mm_set1_epi8('0'));
  const auto digits = static_cast<unsigned>(
      _mm_movemask_epi8(_mm_cmpeq_epi8(_mm_min_epu8(t, _mm_set1_epi8(9)), t)));
  const unsigned ends = dots | end;
  const Ipv4HashTables::Slot& slot = kIpv4Hash.slot[ipv4_hash(ends, kIpv4Hash.multiplier)];
  bool ok = (end >= 1u << 7) & (end <= 1u << 15) & (((digits | dots) & in_field) == in_field) &
            (slot.ends == ends);
  ok &= ipv4_from_lanes(
      _mm_shuffle_epi8(t, _mm_load_si128(reinterpret_cast<const __m128i*>(slot.shuffle))), out);
  return ok;
}

// The same for a field spanning exactly [b, e); reads [b, b + 16).
inline bool parse_ipv4_hashed(const char* b, const char* e, std::uint32_t& out) {
  const auto len = static_cast<unsigned>(e - b);
  return len <= 15 &&
         parse_ipv4_hashed(_mm_loadu_si128(reinterpret_cast<const __m128i*>(b)), 1u << len, out);
}

}  // namespace gatebench::access_log::detail

#endif
