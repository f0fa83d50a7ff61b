// The tsv fast path's two field kernels (the AVX-512 one parse_tsv takes where the build has it,
// and the portable one) against each other and against the RE2 peer, on lines whose fields are
// drawn around every shape the kernels tell apart: decimals, digit counts, "-" and one-byte
// fields, method, scheme and action words, escapes (valid, invalid, in typed fields, more than
// the index holds), line and buffer edges.
#include <gtest/gtest.h>

#include <array>
#include <string>
#include <string_view>
#include <vector>

#include "fixtures/rng.hpp"
#include "micro/core/access_log/access_log.hpp"
#include "micro/peers/access_log_re2.hpp"

namespace gatebench::access_log {
namespace {

std::string digits(fixtures::Rng& rng, std::uint64_t n) {
  std::string s;
  for (std::uint64_t i = 0; i < n; ++i) s += static_cast<char>('0' + rng.below(10));
  return s;
}

// Seconds with 0..12 digits and 0..7 decimals, now and then a stray byte.
std::string seconds(fixtures::Rng& rng, bool dash_allowed) {
  if (dash_allowed && rng.chance(1, 6)) return "-";
  std::string s = digits(rng, rng.chance(7, 8) ? rng.between(1, 10) : rng.below(13));
  if (!rng.chance(1, 8)) s += '.' + digits(rng, rng.chance(3, 4) ? 3 : rng.below(8));
  if (rng.chance(1, 40) && !s.empty()) s[rng.below(s.size())] = "x-/:. "[rng.below(6)];
  return s;
}

std::string bytes_field(fixtures::Rng& rng) {
  if (rng.chance(1, 30)) return "-";
  std::string s = digits(rng, rng.chance(7, 8) ? rng.between(1, 6) : rng.below(21));
  if (rng.chance(1, 40) && !s.empty()) s[rng.below(s.size())] = 'a';
  return s;
}

// Escapes, valid and not, for the vector kernel's walk over a line with backslashes among its
// tabs ("\\\\" puts a second backslash inside the escape).
constexpr std::array<std::string_view, 14> kEscaped = {
    "a\\tb", "\\x2d", "\\\\",  "\\\\\\\\-", "-\\n",    "x\\r\\x7f-", "\\",
    "\\q",   "\\x4",  "\\xg1", "b\\\\s",    "\\\\x41", "\\X41",      "-\\"};

// A run of escapes: up to ~1,400 backslashes, more than the index holds at once.
std::string many_escapes(fixtures::Rng& rng) {
  std::string s;
  const std::uint64_t n = rng.chance(1, 2) ? rng.between(10, 200) : rng.between(200, 700);
  for (std::uint64_t i = 0; i < n; ++i) s += rng.chance(1, 2) ? "\\\\" : "x\\t";
  return s;
}

std::string text(fixtures::Rng& rng) {
  static constexpr std::array<std::string_view, 10> kShapes = {
      "-",  "", "x", "--", "-x", "x-", "/v1/items?x=-", "Mozilla/5.0 (X11; Linux x86_64)",
      "a-", "-"};
  if (rng.chance(1, 10)) {
    if (rng.chance(1, 50)) return many_escapes(rng);
    return std::string(kEscaped[rng.below(kEscaped.size())]);
  }
  return std::string(kShapes[rng.below(kShapes.size())]);
}

// A valid word most of the time, now and then one that must be rejected.
std::string pick(fixtures::Rng& rng, std::span<const std::string_view> valid,
                 std::span<const std::string_view> invalid) {
  const auto items = rng.chance(1, 10) ? invalid : valid;
  return std::string(items[rng.below(items.size())]);
}

constexpr std::array<std::string_view, 13> kMethods = {
    "GET",   "HEAD",     "POST", "PUT",    "DELETE",   "PATCH",  "OPTIONS",
    "TRACE", "PROPFIND", "GETS", "TRACES", "CONNECTX", "CONNECT"};
constexpr std::array<std::string_view, 4> kBadMethods = {"get", "", "ABCDEFGHIJKLMNOPQ", "G-T"};
constexpr std::array<std::string_view, 2> kSchemes = {"https", "http"};
constexpr std::array<std::string_view, 5> kBadSchemes = {"httpx", "htt", "", "HTTP", "httpss"};
constexpr std::array<std::string_view, 7> kActions = {"-",     "allow",     "block", "challenge",
                                                      "queue", "ratelimit", "detect"};
constexpr std::array<std::string_view, 7> kBadActions = {"challengf", "ratelimitx", "allo", "",
                                                         "blocks",    "challenges", "--"};

std::string line(fixtures::Rng& rng) {
  std::vector<std::string> f = {
      seconds(rng, false),
      rng.chance(19, 20)
          ? std::to_string(rng.below(256)) + "." + std::to_string(rng.below(256)) + "." +
                std::to_string(rng.below(256)) + "." + std::to_string(rng.below(300))
          : "1.2.3",
      pick(rng, kMethods, kBadMethods),
      pick(rng, kSchemes, kBadSchemes),
      text(rng),
      text(rng),
      text(rng),
      rng.chance(19, 20) ? std::to_string(rng.between(50, 650)) : digits(rng, rng.below(5)),
      bytes_field(rng),
      seconds(rng, true),
      seconds(rng, true),
      text(rng),
      text(rng),
      text(rng),
      pick(rng, kActions, kBadActions)};
  if (rng.chance(1, 40)) {  // an escape where none is valid: a typed field
    constexpr std::array<std::size_t, 9> kTyped = {0, 1, 2, 3, 7, 8, 9, 10, 14};
    f[kTyped[rng.below(kTyped.size())]] += kEscaped[rng.below(2)];
  }
  if (rng.chance(1, 40)) f.erase(f.begin() + static_cast<std::ptrdiff_t>(rng.below(f.size())));
  if (rng.chance(1, 40))
    f.insert(f.begin() + static_cast<std::ptrdiff_t>(rng.below(f.size())), "-");
  std::string out;
  for (std::size_t i = 0; i < f.size(); ++i) {
    if (i) out += '\t';
    out += f[i];
  }
  return out;
}

void expect_same(const BatchResult& a, const BatchResult& b, const std::vector<AccessLogRecord>& ra,
                 const std::vector<AccessLogRecord>& rb, const std::vector<AccessLogError>& ea,
                 const std::vector<AccessLogError>& eb, const std::string& log, const char* who) {
  ASSERT_EQ(a.records, b.records) << who;
  ASSERT_EQ(a.errors, b.errors) << who;
  ASSERT_EQ(a.consumed, b.consumed) << who;
  for (std::size_t i = 0; i < a.errors; ++i) {
    ASSERT_EQ(ea[i].line_offset, eb[i].line_offset)
        << who << ": " << log.substr(ea[i].line_offset, 200);
  }
  for (std::size_t i = 0; i < a.records; ++i) {
    ASSERT_TRUE(ra[i] == rb[i]) << who << ": record " << i;
  }
}

TEST(AccessLogTsvKernels, WideAndPortableAgreeWithRe2) {
  fixtures::Rng rng = fixtures::Rng(fixtures::kDefaultSeed).fork("access_log_tsv_kernels");
  const peers::Re2AccessLogParser re2(Format::tsv);
  std::size_t accepted = 0;
  std::size_t escaped = 0;
  for (int round = 0; round < 40; ++round) {
    // Buffers of a few lines up to a few thousand, so the index's refills, the first line
    // (whose number lanes would start before the buffer) and a last line without '\n' occur.
    std::string log;
    const std::uint64_t lines = round < 20 ? rng.between(1, 8) : rng.between(1000, 5000);
    for (std::uint64_t i = 0; i < lines; ++i) {
      log += line(rng);
      if (i + 1 < lines || rng.chance(1, 2)) log += '\n';
    }
    std::vector<AccessLogRecord> ra(lines + 1), rb(lines + 1), rc(lines + 1);
    std::vector<AccessLogError> ea(lines + 1), eb(lines + 1), ec(lines + 1);
    const BatchResult a = parse_tsv(log, ra, ea);
    const BatchResult b = detail::parse_tsv_portable(log, rb, eb);
    const BatchResult c = re2.parse(log, rc, ec);
    expect_same(a, b, ra, rb, ea, eb, log, "wide vs portable");
    expect_same(a, c, ra, rc, ea, ec, log, "wide vs re2");
    if (::testing::Test::HasFatalFailure()) return;
    accepted += a.records;
    for (std::size_t i = 0; i < a.records; ++i) escaped += ra[i].escaped != 0;
  }
  EXPECT_GT(accepted, 10'000u);  // the shapes are not all rejected
  EXPECT_GT(escaped, 1'000u);    // nor all escaped ones
}

}  // namespace
}  // namespace gatebench::access_log
