#pragma once
// The order of the scenarios in each round: a different permutation per round, reproducible from
// the seed, so slow spells of a shared machine fall on every scenario alike instead of on the ones
// that happen to run late.
#include <cstdint>
#include <vector>

namespace gatebench::macro {

// A permutation of 0..n-1 for round `round` (1-based), the same for the same (n, seed, round) on
// every machine and standard library (its own generator and shuffle, not std::shuffle's).
std::vector<int> round_order(int n, uint64_t seed, int round);

}  // namespace gatebench::macro
