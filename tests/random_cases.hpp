#pragma once
// How many cases a randomized differential test runs. Under AddressSanitizer and UBSan (ci/test's
// debug stage) a case costs 5 to 20 times its CPU time without them, and four of these tests took
// 127 s of that stage; they run the first 1/kSanitizedCaseDivisor of their cases there (same
// generators, same seeds) and every case in the release stage (label *_release), where the same
// sources are built without sanitizers (docs/testing.md).
namespace gatebench::testing {

#if defined(__SANITIZE_ADDRESS__)
inline constexpr int kSanitizedCaseDivisor = 8;
#else
inline constexpr int kSanitizedCaseDivisor = 1;
#endif

// The number of cases to run of a test whose full count is `full`.
constexpr int random_cases(int full) {
  return full / kSanitizedCaseDivisor;
}

}  // namespace gatebench::testing
