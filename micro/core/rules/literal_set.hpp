// Which of up to 64 literals occur in one request field, found in one pass over the field.
// Searching each rule's literal separately re-reads the field once per literal (the protected
// rule set searches User-Agent for seven); this reads it once, 16 positions per step.
//
// Method (the "Teddy" idea): literals are spread over 8 buckets. For each of the first three
// bytes of a literal, two 16-entry tables (low nibble, high nibble) give the buckets whose
// literals can have that byte there; a position is a candidate for a bucket when all six lookups
// agree (two PSHUFB per byte). Candidates are verified against the bucket's literals. A
// case-insensitive literal enters its letters in both cases, so the field needs no lower-cased
// copy.
//
//   LiteralSet set({{"sqlmap", true}, {"/.git/", false}});  // build time
//   std::uint64_t found = set.find_all(user_agent);          // bit i: literal i occurs
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace gatebench::rules {

class LiteralSet {
 public:
  static constexpr std::size_t kMaxLiterals = 64;

  struct Literal {
    std::string text;
    bool case_insensitive = false;  // ASCII letters match either case
  };

  LiteralSet() = default;
  // Throws std::invalid_argument for more than kMaxLiterals literals.
  explicit LiteralSet(const std::vector<Literal>& literals);

  // Bit i is set when literals[i] occurs in `text` (an empty literal always occurs).
  std::uint64_t find_all(std::string_view text) const;

  // The same answer one position at a time, without SIMD: the path of builds without SSSE3,
  // and the reference the tests hold the SIMD path to.
  std::uint64_t find_all_portable(std::string_view text) const;

  std::size_t size() const { return literals_.size(); }

 private:
  static constexpr std::size_t kFingerprint = 3;  // leading literal bytes the tables encode
  static constexpr std::size_t kBuckets = 8;

  struct Stored {
    std::string text;  // lower case when case-insensitive
    bool case_insensitive = false;
  };

  // Verifies the literals of the buckets in `buckets` at text position `at`.
  void verify(std::string_view text, std::size_t at, unsigned buckets, std::uint64_t& found) const;
  // The buckets whose fingerprint admits the bytes at `at` (those that exist).
  unsigned buckets_at(std::string_view text, std::size_t at) const;

  // [byte j][nibble] -> bucket bits; alignas for the 16-byte table loads.
  alignas(16) std::array<std::array<std::uint8_t, 16>, kFingerprint> low_{};
  alignas(16) std::array<std::array<std::uint8_t, 16>, kFingerprint> high_{};
  std::vector<Stored> literals_;
  // Literal indexes of bucket b: bucket_order_[bucket_begin_[b] .. bucket_begin_[b + 1]).
  std::array<std::uint8_t, kBuckets + 1> bucket_begin_{};
  std::vector<std::uint8_t> bucket_order_;
  std::uint64_t always_ = 0;      // empty literals
  std::uint64_t searchable_ = 0;  // the others: a scan can stop once all are found
  bool has_short_ = false;        // a literal shorter than the fingerprint
};

}  // namespace gatebench::rules
