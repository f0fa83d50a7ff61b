// Internal to the access-log parsers: a structural index of a whole buffer, the positions (and
// bytes) of one delimiter set in order, built a window of blocks at a time (simdjson's stage 1).
// Not part of the public contract.
//
// Why a buffer-wide index rather than a search per line: a line of ~240 bytes spans 4 or 5
// 64-byte blocks, so a per-line block loop mispredicts its exit once per line, and reading back
// the positions a line has just stored stalls on store forwarding. Filling the index for a few
// dozen lines at a time makes the fill loop's exit rare, and a line then only reads the next
// entries: its delimiters' positions and, to check that they are the expected ones, their bytes.
//
// With DashFlags, each entry's byte also carries kDashBefore when the byte just before the
// delimiter is '-': with the field lengths from the positions, a parser then knows which fields
// are exactly "-" (empty) without loading each field's first byte (the tsv parser's vector
// kernel; the flag costs the index about 0.5 ns per block, which combined has no use for).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "micro/core/access_log/scan.hpp"

#if defined(__AVX512VBMI2__) || defined(__SSE2__)
#include <immintrin.h>
#endif
#if defined(__AVX512VBMI2__) && defined(__GNUC__) && !defined(__clang__)
// GCC 12's AVX-512 headers pass _mm512_undefined_*() as the merge source of unmasked
// conversions, which -W(maybe-)uninitialized reports at every caller (GCC bug 105593). The
// callers are the parsers that include this header, so the pragmas stay in force for the rest of
// their translation unit on purpose (no push/pop).
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#endif

namespace gatebench::access_log::detail {

// How a block's mask becomes positions: `compress` (AVX-512 VBMI2: one vpcompressb for the
// offsets, one for the bytes) or `portable` (tzcnt, eight positions per step without branches).
enum class IndexKernel { compress, portable };

#if defined(__AVX512VBMI2__)
inline constexpr IndexKernel kBestIndexKernel = IndexKernel::compress;
#else
inline constexpr IndexKernel kBestIndexKernel = IndexKernel::portable;
#endif

// Positions of the bytes of S in [data, data + size), as 32-bit offsets from data, with the byte
// found at each. Covers buffers below 4 GiB; for larger ones it stays empty, and callers fall
// back to their careful path (a datagram is a few kilobytes).
template <ByteSet S, bool DashFlags = false, IndexKernel K = kBestIndexKernel>
class DelimiterIndex {
 public:
  static constexpr std::size_t kWant = 16;            // the most entries a caller asks for at once
  static constexpr unsigned char kDashBefore = 0x80;  // no delimiter byte has the high bit
  static_assert(static_cast<unsigned char>(S.a) < 0x80 && static_cast<unsigned char>(S.b) < 0x80 &&
                static_cast<unsigned char>(S.c) < 0x80);

  DelimiterIndex(const char* data, std::size_t size) : d_(data), n_(size < kMaxSize ? size : 0) {}

  // Makes at least `need` (<= kWant) entries available from the first delimiter at or after
  // `s`; false when the buffer holds fewer. Then pos()[i] is the i-th delimiter from s and
  // kind()[i] its byte (with DashFlags, or'ed with kDashBefore when the byte before it is '-');
  // pos() has kWant
  // readable entries and kind() kWant readable bytes (those past `need` hold no meaning).
  [[gnu::always_inline]] bool find(std::size_t s, std::size_t need) {
    if (s != expect_) [[unlikely]] {
      resync(s);
    }
    if (count_ - head_ < need) [[unlikely]] {
      refill();
      if (count_ - head_ < need) return false;
    }
    return true;
  }

  // After find: makes entry i (counted from the first unread one) available, for a caller that
  // walks past kWant entries (a line with escapes); false when the buffer has no more, or when
  // the unread entries fill the index. A refill moves the entries: take pos() and kind() again.
  bool reach(std::size_t i) {
    if (count_ - head_ > i) [[likely]] {
      return true;
    }
    refill();
    return count_ - head_ > i;
  }

  const std::uint32_t* pos() const { return pos_ + head_; }
  const char* kind() const { return kind_ + head_; }

  // The caller parsed a line ending at the `used`-th entry (its newline); the next line starts
  // one byte after it.
  [[gnu::always_inline]] void consume(std::size_t used) {
    expect_ = std::size_t{pos_[head_ + used - 1]} + 1;
    head_ += used;
  }

 private:
  static constexpr std::size_t kMaxSize = std::size_t{1} << 31;
  static constexpr std::size_t kCap = 512;         // entries kept at once
  static constexpr std::size_t kFill = kCap - 64;  // below this, one more block always fits
  static constexpr std::size_t kSlack = 64;        // a block writes up to 64 entries past count_
  static constexpr ByteSet kDash{'-', '-', '-'};
  // 0..63: the byte offsets of a block (compressed into positions; minus one, the byte before).
  alignas(64) static constexpr std::uint8_t kIota[64] = {
      0,  1,  2,  3,  4,  5,  6,  7,  8,  9,  10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21,
      22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43,
      44, 45, 46, 47, 48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59, 60, 61, 62, 63};

  // The next line does not start where the last one parsed here ended (the careful path took a
  // line, or the batch loop skipped one): drop the entries before s.
  [[gnu::noinline]] void resync(std::size_t s) {
    expect_ = s;
    while (head_ < count_ && pos_[head_] < s) ++head_;
    if (head_ == count_ && scanned_ <= s) {
      head_ = count_ = 0;
      scanned_ = s & ~std::size_t{63};
      if (scanned_ < n_) scan(scanned_, s - scanned_);
    }
  }

  // Moves the unread entries to the front and scans blocks until the index is nearly full or
  // the buffer ends.
  [[gnu::noinline]] void refill() {
    const std::size_t left = count_ - head_;
    std::memmove(pos_, pos_ + head_, left * sizeof pos_[0]);
    std::memmove(kind_, kind_ + head_, left);
    head_ = 0;
    // Locals: the kind stores are char stores, which may alias the members, so working on the
    // members would reload and store them for every block.
    std::size_t count = left;
    std::size_t blk = scanned_;
    const char* const d = d_;
    const std::size_t full_end = n_ & ~std::size_t{63};
    // Whether the byte before the block is '-', carried from block to block (an unaligned load
    // one byte before each block would split cache lines).
    std::uint64_t carry = DashFlags && blk > 0 && blk < n_ && d[blk - 1] == '-';
#if defined(__AVX512VBMI__)
    if constexpr (K == IndexKernel::compress) {
      // The byte before each byte of the block by one permute of this block and the previous
      // one, kept in a register: cheaper than carrying the '-' mask from block to block in
      // general registers (tsv 1 ns per line less). Only tsv has the flags; combined takes
      // this loop for the delimiter mask alone (1 ns per line less than the loop below).
      // Index i - 1 for byte i; byte 0 takes index 127 (0xff's low seven bits), the last byte of
      // the previous block.
      const __m512i before = _mm512_sub_epi8(_mm512_load_si512(kIota), _mm512_set1_epi8(1));
      // The delimiters by one permute and one compare instead of three compares and two mask
      // ors: the table holds each delimiter at the slot of its low six bits, and at every other
      // slot a byte whose low six bits are not the slot's.
      static_assert((S.a & 63) != (S.b & 63) && (S.a & 63) != (S.c & 63) &&
                    (S.b & 63) != (S.c & 63) && !S.control);
      alignas(64) static constexpr auto kOwn = [] {
        struct Table {
          std::uint8_t at[64];
        } t{};
        for (int i = 0; i < 64; ++i) t.at[i] = static_cast<std::uint8_t>(i ^ 1);
        for (char c : {S.a, S.b, S.c}) t.at[c & 63] = static_cast<std::uint8_t>(c);
        return t;
      }();
      const __m512i own = _mm512_load_si512(kOwn.at);
      __m512i last = _mm512_set1_epi8(carry ? '-' : '\0');  // byte 63: the one before blk
      for (; count < kFill && blk < full_end; blk += 64) {
        const __m512i v = _mm512_loadu_si512(d + blk);
        std::uint64_t dash = 0;
        if constexpr (DashFlags)
          dash = _mm512_cmpeq_epi8_mask(_mm512_permutex2var_epi8(v, before, last),
                                        _mm512_set1_epi8('-'));
        const std::uint64_t m = _mm512_cmpeq_epi8_mask(_mm512_permutexvar_epi8(v, own), v);
        count += append(pos_ + count, kind_ + count, blk, m, dash, d + blk);
        last = v;
      }
    }
#endif
    for (; count < kFill && blk < full_end; blk += 64) {
      std::uint64_t dashes = 0;
      if constexpr (DashFlags) dashes = block_mask<kDash>(d + blk);
      count += append(pos_ + count, kind_ + count, blk, block_mask<S>(d + blk),
                      (dashes << 1) | carry, d + blk);
      carry = dashes >> 63;
    }
    if (count < kFill && blk < n_) {
      count += scan_tail(pos_ + count, kind_ + count, blk, 0);
      blk += 64;
    }
    count_ = count;
    scanned_ = blk;
  }

  // Appends the delimiters of the block at `blk` from its byte `from` on.
  void scan(std::size_t blk, std::size_t from) {
    const std::uint64_t keep = ~std::uint64_t{0} << from;
    if (n_ - blk >= 64) {
      count_ += append(pos_ + count_, kind_ + count_, blk, block_mask<S>(d_ + blk) & keep,
                       dash_before(blk), d_ + blk);
    } else {
      count_ += scan_tail(pos_ + count_, kind_ + count_, blk, from);
    }
    scanned_ = blk + 64;
  }

  // Bit i set when the byte before d_[blk + i] is '-', for a full block at blk. The buffer's
  // first byte has none before it.
  [[gnu::always_inline]] std::uint64_t dash_before(std::size_t blk) const {
    if constexpr (!DashFlags) return 0;
    if (blk == 0) [[unlikely]] {
      return block_mask<kDash>(d_) << 1;
    }
    return block_mask<kDash>(d_ + blk - 1);
  }

  // The last, partial block, from a zero-filled copy (no byte of S is zero) that starts with the
  // byte before the block, so nothing past the buffer is read.
  [[gnu::noinline, gnu::cold]] std::size_t scan_tail(std::uint32_t* out, char* kinds,
                                                     std::size_t blk, std::size_t from) {
    static_assert(S.a != 0 && S.b != 0 && S.c != 0 && !S.control);
    alignas(64) char tail[65] = {};
    tail[0] = blk == 0 ? '\0' : d_[blk - 1];
    std::memcpy(tail + 1, d_ + blk, n_ - blk);
    return append(out, kinds, blk, block_mask<S>(tail + 1) & (~std::uint64_t{0} << from),
                  DashFlags ? block_mask<kDash>(tail) : 0, tail + 1);
  }

  // Writes the positions and bytes of the set bits of `m` (block at `blk`, its bytes at
  // `bytes`, `dash` its dash_before mask) to out and kinds; returns how many.
  [[gnu::always_inline]] static std::size_t append(std::uint32_t* out, char* kinds, std::size_t blk,
                                                   std::uint64_t m, std::uint64_t dash,
                                                   const char* bytes) {
    const int count = __builtin_popcountll(m);
    const auto base = static_cast<std::uint32_t>(blk);
#if defined(__AVX512VBMI2__)
    if constexpr (K == IndexKernel::compress) {
      const __m512i offsets = _mm512_maskz_compress_epi8(m, _mm512_load_si512(kIota));
      // Setting the high bit by subtracting 0x80 leaves the low seven bits alone.
      const __m512i raw = _mm512_loadu_si512(bytes);
      const __m512i flagged =
          DashFlags
              ? _mm512_mask_sub_epi8(raw, dash, raw, _mm512_set1_epi8(static_cast<char>(0x80)))
              : raw;
      const __m512i found = _mm512_maskz_compress_epi8(m, flagged);
      const __m512i vbase = _mm512_set1_epi32(static_cast<int>(base));
      // Eight entries, and eight more only when the block has them: stores are what the fill
      // loop waits on (a 64-byte store at a 4-byte aligned address always splits a cache line),
      // and a block holds 8 or fewer delimiters most of the time.
      const __m128i first = _mm512_castsi512_si128(offsets);
      _mm256_storeu_si256(
          reinterpret_cast<__m256i*>(out),
          _mm256_add_epi32(_mm256_cvtepu8_epi32(first), _mm512_castsi512_si256(vbase)));
      _mm_storel_epi64(reinterpret_cast<__m128i*>(kinds), _mm512_castsi512_si128(found));
      if (count > 8) {
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + 8),
                            _mm256_add_epi32(_mm256_cvtepu8_epi32(_mm_srli_si128(first, 8)),
                                             _mm512_castsi512_si256(vbase)));
        _mm_storeu_si128(reinterpret_cast<__m128i*>(kinds), _mm512_castsi512_si128(found));
      }
      if (count > 16) [[unlikely]] {  // a block dense with delimiters (short or escaped fields)
        store_quarter<1>(out, kinds, offsets, found, vbase);
        if (count > 32) {
          store_quarter<2>(out, kinds, offsets, found, vbase);
          if (count > 48) store_quarter<3>(out, kinds, offsets, found, vbase);
        }
      }
      return static_cast<std::size_t>(count);
    }
#endif
    std::uint64_t rest = m;
#pragma GCC unroll 8
    for (int i = 0; i < 8; ++i) {
      const int at = __builtin_ctzll(rest | (std::uint64_t{1} << 63));
      out[i] = base + static_cast<std::uint32_t>(at);
      kinds[i] = static_cast<char>(bytes[at] | flag(dash, at));
      rest &= rest - 1;
    }
    for (int i = 8; i < count; ++i) {
      const int at = __builtin_ctzll(rest);
      out[i] = base + static_cast<std::uint32_t>(at);
      kinds[i] = static_cast<char>(bytes[at] | flag(dash, at));
      rest &= rest - 1;
    }
    return static_cast<std::size_t>(count);
  }

  static int flag(std::uint64_t dash, int at) {
    return static_cast<int>((dash >> at) & 1) << 7;
  }

#if defined(__AVX512VBMI2__)
  template <int Q>
  static void store_quarter(std::uint32_t* out, char* kinds, __m512i offsets, __m512i found,
                            __m512i vbase) {
    _mm512_storeu_si512(
        out + 16 * Q,
        _mm512_add_epi32(_mm512_cvtepu8_epi32(_mm512_extracti32x4_epi32(offsets, Q)), vbase));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(kinds + 16 * Q),
                     _mm512_extracti32x4_epi32(found, Q));
  }
#endif

  const char* d_;
  std::size_t n_;
  std::size_t expect_ = 0;   // where the next line starts if it follows the last one parsed
  std::size_t scanned_ = 0;  // blocks below this offset are in the index
  std::size_t head_ = 0;     // first unread entry
  std::size_t count_ = 0;    // entries in the index
  alignas(64) std::uint32_t pos_[kCap + kSlack];
  alignas(64) char kind_[kCap + kSlack] = {};  // zeroed: kind() reads kWant bytes
};

}  // namespace gatebench::access_log::detail
