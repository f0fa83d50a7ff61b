// Replaces the global operator new/delete of the one test executable that includes this header,
// counting every allocation, so a test can prove that a hot-path call allocates nothing.
// Include it from exactly one translation unit per executable.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdlib>
#include <new>

namespace gatebench::testing {
inline std::atomic<std::size_t> g_allocations{0};
}  // namespace gatebench::testing

// GCC 12 pairs the inlined malloc below with std::allocator's sized delete and warns
// (-Wmismatched-new-delete), although both sides of the pair are the replacements here.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
void* operator new(std::size_t size) {
  ++gatebench::testing::g_allocations;
  if (void* p = std::malloc(size == 0 ? 1 : size)) return p;
  throw std::bad_alloc();
}
// The nothrow form too (std::stable_sort's temporary buffer uses it): left to the runtime, its
// memory would reach the free() below from another allocator (ASan: alloc-dealloc-mismatch).
void* operator new(std::size_t size, const std::nothrow_t&) noexcept {
  ++gatebench::testing::g_allocations;
  return std::malloc(size == 0 ? 1 : size);
}
void operator delete(void* p) noexcept {
  std::free(p);
}
void operator delete(void* p, std::size_t) noexcept {
  std::free(p);
}
#pragma GCC diagnostic pop
