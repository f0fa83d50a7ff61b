// The access-log parsers' internal kernels against straightforward versions: the buffer-wide
// delimiter index (both of its kernels where the build has both: the debug preset compiles the
// portable one only, the release preset with -march=native also the AVX-512 VBMI2 one) and the
// shuffle-based IPv4 parser.
#include <gtest/gtest.h>

#if defined(__AVX512VBMI2__) && defined(__GNUC__) && !defined(__clang__)
// GCC 12's AVX-512 headers pass _mm512_undefined_*() as the merge source of unmasked
// conversions, which -W(maybe-)uninitialized reports at every caller (GCC bug 105593).
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#endif

#include <cstdint>
#include <string>
#include <vector>

#include "fixtures/rng.hpp"
#include "micro/core/access_log/index.hpp"
#include "micro/core/access_log/scan.hpp"

namespace gatebench::access_log::detail {
namespace {

constexpr ByteSet kTsv{'\t', '\n', '\\'};

// Buffers dense in delimiters (so blocks with more than 16 occur), with zero bytes (which the
// zero-filled tail copy must not turn into delimiters), of every length around block edges.
std::string random_buffer(fixtures::Rng& rng, std::size_t size) {
  static constexpr char kBytes[] = {'\t', '\n', '\\', 'a', '-', '\0', '9', '\xff'};
  const std::uint64_t density = rng.between(1, 8);
  std::string buf(size, 'x');
  for (char& c : buf) {
    if (rng.chance(density, 16)) c = kBytes[rng.below(sizeof kBytes)];
  }
  return buf;
}

// Drives the index as the parsers do: ask for `need` entries at a line start, then either
// consume them (a parsed line) or move to some later offset (the careful path took the line,
// or the batch loop skipped it); every window must match the naive list of delimiters.
template <IndexKernel K, bool DashFlags>
void walk(const std::string& buf, fixtures::Rng& rng) {
  std::vector<std::uint32_t> all;
  for (std::size_t i = 0; i < buf.size(); ++i) {
    if (in_set(static_cast<unsigned char>(buf[i]), kTsv))
      all.push_back(static_cast<std::uint32_t>(i));
  }
  DelimiterIndex<kTsv, DashFlags, K> ix(buf.data(), buf.size());
  std::size_t s = 0;
  while (s < buf.size()) {
    const std::size_t need = rng.between(1, DelimiterIndex<kTsv, DashFlags, K>::kWant);
    std::size_t first = 0;
    while (first < all.size() && all[first] < s) ++first;
    const bool enough = all.size() - first >= need;
    ASSERT_EQ(ix.find(s, need), enough) << "at " << s << " need " << need;
    if (!enough) {
      s += rng.between(1, 64);
      continue;
    }
    for (std::size_t i = 0; i < need; ++i) {
      ASSERT_EQ(ix.pos()[i], all[first + i]) << "entry " << i << " from " << s;
      const std::size_t at = all[first + i];
      const bool dash_before = DashFlags && at > 0 && buf[at - 1] == '-';
      ASSERT_EQ(static_cast<unsigned char>(ix.kind()[i]),
                static_cast<unsigned char>(buf[at]) | (dash_before ? 0x80 : 0))
          << "entry " << i << " from " << s;
    }
    if (rng.chance(3, 4)) {
      ix.consume(need);
      s = all[first + need - 1] + 1;
    } else {
      s += rng.between(1, rng.chance(1, 8) ? 3000 : 40);
    }
  }
}

TEST(AccessLogIndex, PortableKernelMatchesNaiveScan) {
  fixtures::Rng rng = fixtures::Rng(fixtures::kDefaultSeed).fork("access_log_index");
  for (int round = 0; round < 400; ++round) {
    const std::string buf = random_buffer(rng, rng.below(round < 200 ? 300 : 9000));
    walk<IndexKernel::portable, false>(buf, rng);
    walk<IndexKernel::portable, true>(buf, rng);
  }
}

TEST(AccessLogIndex, BestKernelMatchesNaiveScan) {
  if constexpr (kBestIndexKernel == IndexKernel::portable) {
    GTEST_SKIP() << "this build has only the portable kernel (no -march with AVX-512 VBMI2)";
  }
  fixtures::Rng rng = fixtures::Rng(fixtures::kDefaultSeed).fork("access_log_index");
  for (int round = 0; round < 400; ++round) {
    const std::string buf = random_buffer(rng, rng.below(round < 200 ? 300 : 9000));
    walk<kBestIndexKernel, false>(buf, rng);
    walk<kBestIndexKernel, true>(buf, rng);
  }
}

// Every dotted shape of up to 15 bytes from digits and dots (and now and then another byte),
// through the plain IPv4 parser and `fast`, which may read 3 bytes before and 16 from the start.
template <typename Fast>
void expect_ipv4_like_plain(Fast fast) {
  fixtures::Rng rng = fixtures::Rng(fixtures::kDefaultSeed).fork("access_log_ipv4");
  static constexpr char kBytes[] = "0123456789012345678925.....x";
  int accepted = 0;
  for (int i = 0; i < 300'000; ++i) {
    std::string field;
    if (rng.chance(1, 2)) {  // a valid-looking address with octets of 1..3 digits
      for (int o = 0; o < 4; ++o) {
        if (o) field += '.';
        field += std::to_string(rng.below(rng.chance(1, 4) ? 1000 : 256));
        if (rng.chance(1, 20)) field.insert(field.size() - 1, "0");
      }
      if (field.size() > 15) field.resize(rng.below(16));
    } else {
      const std::size_t len = rng.below(16);
      for (std::size_t k = 0; k < len; ++k) field += kBytes[rng.below(sizeof kBytes - 1)];
    }
    const std::string buf = "\t\t\t" + field + "\t" + std::string(16, '\t');
    const char* b = buf.data() + 3;
    const char* e = b + field.size();
    std::uint32_t plain = 0, near = 0;
    const bool want = parse_ipv4(b, e, plain);
    ASSERT_EQ(fast(b, e, near), want) << "'" << field << "'";
    if (want) {
      ASSERT_EQ(near, plain) << "'" << field << "'";
      ++accepted;
    }
  }
  EXPECT_GT(accepted, 50'000);  // the valid side is exercised, not only rejections
}

TEST(AccessLogIpv4, ShuffleParserMatchesPlainParser) {
  expect_ipv4_like_plain(parse_ipv4_near);
}

TEST(AccessLogIpv4, CompressParserMatchesPlainParser) {
#if defined(GATEBENCH_HAVE_IPV4_COMPRESS)
  expect_ipv4_like_plain(parse_ipv4_compress);
#else
  GTEST_SKIP() << "this build has no AVX-512 VBMI2 (the tsv parser's vector kernel is off)";
#endif
}

}  // namespace
}  // namespace gatebench::access_log::detail
