#include "macro/gateway/h2_block_pool.hpp"

#include <sanitizer/asan_interface.h>

#include <array>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace gatebench::gateway {
namespace {

// What a block carries in front of the memory it hands out; 16 bytes keep that memory aligned
// as malloc's is.
struct alignas(16) BlockHeader {
  std::size_t capacity;  // bytes usable after the header
  std::uint32_t size_class;
};
static_assert(sizeof(BlockHeader) == 16);

constexpr std::array<std::size_t, 7> kSizes = {64, 128, 256, 512, 1024, 2048, 4096};
constexpr std::uint32_t kUnpooled = kSizes.size();
// Per size: enough for the streams of a few busy connections; beyond it blocks go back to
// malloc, so a burst does not pin its peak for the thread's life.
constexpr std::size_t kKeepPerSize = 256;

std::uint32_t size_class(std::size_t n) {
  for (std::uint32_t i = 0; i < kSizes.size(); ++i) {
    if (n <= kSizes[i]) return i;
  }
  return kUnpooled;
}

class BlockPool {
 public:
  BlockPool() {
    for (auto& list : free_) list.reserve(kKeepPerSize);  // push_back never allocates
  }
  ~BlockPool() {
    for (auto& list : free_) {
      for (BlockHeader* b : list) {
        ASAN_UNPOISON_MEMORY_REGION(b + 1, b->capacity);
        std::free(b);
      }
    }
  }
  BlockPool(const BlockPool&) = delete;
  BlockPool& operator=(const BlockPool&) = delete;

  void* take(std::size_t n) {
    const std::uint32_t c = size_class(n);
    BlockHeader* b = nullptr;
    if (c != kUnpooled && !free_[c].empty()) {
      b = free_[c].back();
      free_[c].pop_back();
      ASAN_UNPOISON_MEMORY_REGION(b + 1, b->capacity);
    } else {
      const std::size_t capacity = c == kUnpooled ? n : kSizes[c];
      b = static_cast<BlockHeader*>(std::malloc(sizeof(BlockHeader) + capacity));
      if (b == nullptr) return nullptr;
      b->capacity = capacity;
      b->size_class = c;
    }
    return b + 1;
  }

  void give(void* p) {
    if (p == nullptr) return;
    BlockHeader* b = static_cast<BlockHeader*>(p) - 1;
    const std::uint32_t c = b->size_class;
    if (c != kUnpooled && free_[c].size() < kKeepPerSize) {
      // Under AddressSanitizer a kept block stays a use-after-free error until handed out again.
      ASAN_POISON_MEMORY_REGION(b + 1, b->capacity);
      free_[c].push_back(b);
      return;
    }
    std::free(b);
  }

  static std::size_t capacity(void* p) { return (static_cast<BlockHeader*>(p) - 1)->capacity; }

  std::size_t free_blocks() const {
    std::size_t n = 0;
    for (const auto& list : free_) n += list.size();
    return n;
  }

 private:
  std::array<std::vector<BlockHeader*>, kSizes.size()> free_;
};

BlockPool& pool() {
  thread_local BlockPool p;
  return p;
}

void* pool_malloc(std::size_t size, void*) {
  return pool().take(size);
}

void pool_free(void* ptr, void*) {
  pool().give(ptr);
}

void* pool_calloc(std::size_t nmemb, std::size_t size, void*) {
  if (size != 0 && nmemb > SIZE_MAX / size) return nullptr;
  void* p = pool().take(nmemb * size);
  if (p != nullptr) std::memset(p, 0, nmemb * size);
  return p;
}

void* pool_realloc(void* ptr, std::size_t size, void*) {
  if (ptr == nullptr) return pool().take(size);
  const std::size_t have = BlockPool::capacity(ptr);
  if (size <= have && size_class(size) == size_class(have)) return ptr;
  void* moved = pool().take(size);
  if (moved == nullptr) return nullptr;  // realloc's contract: the old block stays valid
  std::memcpy(moved, ptr, size < have ? size : have);
  pool().give(ptr);
  return moved;
}

}  // namespace

nghttp2_mem* h2_block_pool() {
  static nghttp2_mem mem{nullptr, &pool_malloc, &pool_free, &pool_calloc, &pool_realloc};
  return &mem;
}

std::size_t h2_block_pool_free_blocks() {
  return pool().free_blocks();
}

}  // namespace gatebench::gateway
