#include "macro/driver/measure/round_order.hpp"

#include <numeric>
#include <utility>

namespace gatebench::macro {

namespace {

// splitmix64: small, fast, and fully specified, so the orders never change with the toolchain.
uint64_t next(uint64_t& state) {
  uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

}  // namespace

std::vector<int> round_order(int n, uint64_t seed, int round) {
  std::vector<int> order(static_cast<std::size_t>(n > 0 ? n : 0));
  std::iota(order.begin(), order.end(), 0);
  uint64_t state = seed * 0x100000001b3ULL + static_cast<uint64_t>(round);
  for (int i = n - 1; i > 0; --i) {
    // The modulo's bias is below 1e-16 for any n a scenario list can have.
    const auto j = static_cast<int>(next(state) % static_cast<uint64_t>(i + 1));
    std::swap(order[static_cast<std::size_t>(i)], order[static_cast<std::size_t>(j)]);
  }
  return order;
}

}  // namespace gatebench::macro
