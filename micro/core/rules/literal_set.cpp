#include "micro/core/rules/literal_set.hpp"

#include <algorithm>
#include <cstring>
#include <stdexcept>

#include "micro/core/rules/request_ascii.hpp"

#if defined(__SSSE3__)
#include <tmmintrin.h>
#endif

namespace gatebench::rules {
namespace {

bool is_lower_letter(unsigned char c) {
  return c >= 'a' && c <= 'z';
}

std::string lowered(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = lower_ascii(c);
  return out;
}

}  // namespace

LiteralSet::LiteralSet(const std::vector<Literal>& literals) {
  if (literals.size() > kMaxLiterals) {
    throw std::invalid_argument("literal set: " + std::to_string(literals.size()) +
                                " literals, at most " + std::to_string(kMaxLiterals));
  }
  std::vector<std::uint8_t> searched;
  for (std::size_t i = 0; i < literals.size(); ++i) {
    const Literal& l = literals[i];
    literals_.push_back(Stored{l.case_insensitive ? lowered(l.text) : l.text, l.case_insensitive});
    if (l.text.empty()) {
      always_ |= std::uint64_t{1} << i;
    } else {
      has_short_ = has_short_ || l.text.size() < kFingerprint;
      searched.push_back(static_cast<std::uint8_t>(i));
      searchable_ |= std::uint64_t{1} << i;
    }
  }
  // Literals with similar leading bytes share a bucket, so a bucket's tables admit few byte
  // combinations its literals do not have.
  auto key = [&](std::uint8_t i) {
    return std::string_view(literals_[i].text).substr(0, kFingerprint);
  };
  std::stable_sort(searched.begin(), searched.end(),
                   [&](std::uint8_t a, std::uint8_t b) { return key(a) < key(b); });
  const std::size_t per_bucket = (searched.size() + kBuckets - 1) / kBuckets;
  bucket_order_ = searched;
  for (std::size_t b = 0; b <= kBuckets; ++b) {
    bucket_begin_[b] = static_cast<std::uint8_t>(std::min(searched.size(), b * per_bucket));
  }
  for (std::size_t b = 0; b < kBuckets; ++b) {
    const auto bit = static_cast<std::uint8_t>(1u << b);
    for (std::size_t k = bucket_begin_[b]; k < bucket_begin_[b + 1]; ++k) {
      const Stored& s = literals_[bucket_order_[k]];
      for (std::size_t j = 0; j < kFingerprint; ++j) {
        if (j >= s.text.size()) {  // a shorter literal accepts any byte here
          for (std::size_t n = 0; n < 16; ++n) {
            low_[j][n] |= bit;
            high_[j][n] |= bit;
          }
          continue;
        }
        const auto c = static_cast<unsigned char>(s.text[j]);
        low_[j][c & 15] |= bit;
        high_[j][c >> 4] |= bit;
        if (s.case_insensitive && is_lower_letter(c)) {
          const auto upper = static_cast<unsigned char>(c - ('a' - 'A'));
          high_[j][upper >> 4] |= bit;  // same low nibble
        }
      }
    }
  }
}

void LiteralSet::verify(std::string_view text, std::size_t at, unsigned buckets,
                        std::uint64_t& found) const {
  const std::size_t room = text.size() - at;
  while (buckets != 0) {
    const unsigned b = static_cast<unsigned>(__builtin_ctz(buckets));
    buckets &= buckets - 1;
    for (std::size_t k = bucket_begin_[b]; k < bucket_begin_[b + 1]; ++k) {
      const std::uint8_t i = bucket_order_[k];
      const std::uint64_t bit = std::uint64_t{1} << i;
      const Stored& s = literals_[i];
      if ((found & bit) || s.text.size() > room) continue;
      const std::string_view here = text.substr(at, s.text.size());
      const bool equal = s.case_insensitive
                             ? equals_lower(here, s.text)
                             : std::memcmp(here.data(), s.text.data(), s.text.size()) == 0;
      if (equal) found |= bit;
    }
  }
}

unsigned LiteralSet::buckets_at(std::string_view text, std::size_t at) const {
  unsigned buckets = 0xFF;
  for (std::size_t j = 0; j < kFingerprint && at + j < text.size(); ++j) {
    // Past the end every bucket stays possible; verification checks the length.
    const auto c = static_cast<unsigned char>(text[at + j]);
    buckets &= low_[j][c & 15] & high_[j][c >> 4];
  }
  return buckets;
}

std::uint64_t LiteralSet::find_all_portable(std::string_view text) const {
  std::uint64_t found = always_;
  if (searchable_ == 0) return found;
  for (std::size_t at = 0; at < text.size(); ++at) {
    const unsigned buckets = buckets_at(text, at);
    if (buckets != 0) {
      verify(text, at, buckets, found);
      if ((found & searchable_) == searchable_) return found;
    }
  }
  return found;
}

#if defined(__SSSE3__)
namespace {

struct Tables {
  __m128i low[3];
  __m128i high[3];
};

// Bucket bits of the 16 positions starting at p; reads p[0] .. p[17].
inline __m128i bucket_hits(const char* p, const Tables& t) {
  const __m128i nibble = _mm_set1_epi8(0x0F);
  __m128i acc = _mm_set1_epi8(-1);
  for (int j = 0; j < 3; ++j) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + j));
    const __m128i lo = _mm_and_si128(v, nibble);
    const __m128i hi = _mm_and_si128(_mm_srli_epi16(v, 4), nibble);
    acc = _mm_and_si128(
        acc, _mm_and_si128(_mm_shuffle_epi8(t.low[j], lo), _mm_shuffle_epi8(t.high[j], hi)));
  }
  return acc;
}

inline unsigned candidate_mask(__m128i hits) {
  return ~static_cast<unsigned>(_mm_movemask_epi8(_mm_cmpeq_epi8(hits, _mm_setzero_si128()))) &
         0xFFFFu;
}

}  // namespace
#endif

std::uint64_t LiteralSet::find_all(std::string_view text) const {
  std::uint64_t found = always_;
  if (searchable_ == 0 || text.empty()) return found;
#if defined(__SSSE3__)
  static_assert(kFingerprint == 3);
  Tables t;
  for (std::size_t j = 0; j < kFingerprint; ++j) {
    t.low[j] = _mm_load_si128(reinterpret_cast<const __m128i*>(low_[j].data()));
    t.high[j] = _mm_load_si128(reinterpret_cast<const __m128i*>(high_[j].data()));
  }
  const std::size_t n = text.size();
  alignas(16) std::uint8_t buckets[16];
  auto visit = [&](__m128i hits, std::size_t base, unsigned mask) {
    _mm_store_si128(reinterpret_cast<__m128i*>(buckets), hits);
    while (mask != 0) {
      const unsigned bit = static_cast<unsigned>(__builtin_ctz(mask));
      mask &= mask - 1;
      verify(text, base + bit, buckets[bit], found);
    }
    return (found & searchable_) == searchable_;
  };
  std::size_t i = 0;
  // Whole blocks while the block's last fingerprint byte is inside the text.
  for (; i + 16 + kFingerprint - 1 <= n; i += 16) {
    const __m128i hits = bucket_hits(text.data() + i, t);
    const unsigned mask = candidate_mask(hits);
    if (mask != 0 && visit(hits, i, mask)) return found;
  }
  if (i == n) return found;
  if (n >= 16 + kFingerprint - 1) {
    // One more block ending at the text's end; its positions before i were seen already.
    const std::size_t at = n - (16 + kFingerprint - 1);
    const __m128i hits = bucket_hits(text.data() + at, t);
    const unsigned mask = candidate_mask(hits) & ~((1u << (i - at)) - 1);
    if (mask != 0 && visit(hits, at, mask)) return found;
    // The last kFingerprint - 1 positions hold only literals shorter than the fingerprint.
    if (has_short_) {
      for (std::size_t p = std::max(i, n - (kFingerprint - 1)); p < n; ++p) {
        const unsigned buckets = buckets_at(text, p);
        if (buckets != 0) verify(text, p, buckets, found);
      }
    }
    return found;
  }
  // A text shorter than a block and its fingerprint (<= 17 positions): from a zero-padded copy
  // (verification checks real lengths).
  alignas(16) char padded[48] = {};
  std::memcpy(padded, text.data(), n);
  for (std::size_t k = 0; k < n; k += 16) {
    const __m128i hits = bucket_hits(padded + k, t);
    unsigned mask = candidate_mask(hits);
    if (n - k < 16) mask &= (1u << (n - k)) - 1;
    if (mask != 0 && visit(hits, k, mask)) break;
  }
  return found;
#else
  return find_all_portable(text);
#endif
}

}  // namespace gatebench::rules
