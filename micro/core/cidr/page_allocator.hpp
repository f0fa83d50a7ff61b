// The allocator of Ipv4Table's large arrays: blocks of 1 MiB and more are 2 MiB-aligned and
// marked MADV_HUGEPAGE, so a multi-megabyte table costs a handful of TLB entries instead of
// thousands of 4 KiB pages (random lookups over 8 MiB otherwise add a page walk to most cache
// misses). Smaller blocks come from operator new. Configuration-time cost only.
#pragma once

#include <sys/mman.h>

#include <cstddef>
#include <cstdlib>
#include <new>

namespace gatebench::cidr {

template <typename T>
class HugePageAllocator {
 public:
  using value_type = T;

  HugePageAllocator() = default;
  template <typename U>
  explicit HugePageAllocator(const HugePageAllocator<U>&) noexcept {}

  T* allocate(std::size_t n) {
    const std::size_t bytes = n * sizeof(T);
    if (bytes < kThreshold) {
      return static_cast<T*>(::operator new (bytes, std::align_val_t{alignof(T)}));
    }
    const std::size_t rounded = (bytes + kHugePage - 1) / kHugePage * kHugePage;
    void* p = std::aligned_alloc(kHugePage, rounded);
    if (p == nullptr) throw std::bad_alloc();
#ifdef MADV_HUGEPAGE
    ::madvise(p, rounded, MADV_HUGEPAGE);  // advice only: without THP it stays 4 KiB pages
#endif
    return static_cast<T*>(p);
  }

  void deallocate(T* p, std::size_t n) noexcept {
    if (n * sizeof(T) < kThreshold) {
      ::operator delete (p, std::align_val_t{alignof(T)});
    } else {
      std::free(p);
    }
  }

  friend bool operator==(const HugePageAllocator&, const HugePageAllocator&) noexcept {
    return true;
  }

 private:
  static constexpr std::size_t kHugePage = std::size_t{2} << 20;
  static constexpr std::size_t kThreshold = std::size_t{1} << 20;
};

}  // namespace gatebench::cidr
