#include "macro/gateway/h2_block_pool.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <thread>
#include <vector>

namespace gatebench::gateway {
namespace {

struct Pool {
  nghttp2_mem* mem = h2_block_pool();
  void* take(std::size_t n) const { return mem->malloc(n, mem->mem_user_data); }
  void give(void* p) const { mem->free(p, mem->mem_user_data); }
  void* zeroed(std::size_t n, std::size_t size) const {
    return mem->calloc(n, size, mem->mem_user_data);
  }
  void* resize(void* p, std::size_t n) const { return mem->realloc(p, n, mem->mem_user_data); }
};

TEST(H2BlockPool, AFreedBlockServesTheNextRequestOfItsSize) {
  const Pool pool;
  void* a = pool.take(100);
  ASSERT_NE(a, nullptr);
  pool.give(a);
  EXPECT_EQ(pool.take(120), a);  // 100 and 120 share the 128-byte size
  void* other = pool.take(100);  // the list is empty again: a new block
  EXPECT_NE(other, a);
  pool.give(other);
  pool.give(a);
}

TEST(H2BlockPool, EverySizeIsUsableAndAlignedAsMallocs) {
  const Pool pool;
  std::vector<void*> blocks;
  for (std::size_t n = 0; n <= 5000; n += 37) {
    void* p = pool.take(n);
    ASSERT_NE(p, nullptr) << n;
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(p) % 16, 0u) << n;
    std::memset(p, 0xab, n);
    blocks.push_back(p);
  }
  for (void* p : blocks) pool.give(p);
}

TEST(H2BlockPool, CallocZeroesARecycledBlock) {
  const Pool pool;
  auto* dirty = static_cast<unsigned char*>(pool.take(200));
  std::memset(dirty, 0xff, 200);
  pool.give(dirty);
  auto* clean = static_cast<unsigned char*>(pool.zeroed(50, 4));
  ASSERT_EQ(static_cast<void*>(clean), static_cast<void*>(dirty));
  for (int i = 0; i < 200; ++i) ASSERT_EQ(clean[i], 0) << i;
  pool.give(clean);
}

TEST(H2BlockPool, CallocRefusesASizeThatOverflows) {
  const Pool pool;
  EXPECT_EQ(pool.zeroed(SIZE_MAX / 2, 4), nullptr);
}

TEST(H2BlockPool, ReallocKeepsTheBytesAcrossSizes) {
  const Pool pool;
  auto* p = static_cast<char*>(pool.resize(nullptr, 10));  // realloc(nullptr) allocates
  ASSERT_NE(p, nullptr);
  std::memcpy(p, "0123456789", 10);
  EXPECT_EQ(pool.resize(p, 60), p);  // still within its 64 bytes
  p = static_cast<char*>(pool.resize(p, 3000));
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(std::memcmp(p, "0123456789", 10), 0);
  p = static_cast<char*>(pool.resize(p, 9000));  // above the largest size: malloc's
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(std::memcmp(p, "0123456789", 10), 0);
  p = static_cast<char*>(pool.resize(p, 4));  // back into a pooled size
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(std::memcmp(p, "0123", 4), 0);
  pool.give(p);
}

TEST(H2BlockPool, FreeOfNullDoesNothing) {
  const Pool pool;
  const std::size_t before = h2_block_pool_free_blocks();
  pool.give(nullptr);
  EXPECT_EQ(h2_block_pool_free_blocks(), before);
}

TEST(H2BlockPool, LargeBlocksAreNotKept) {
  const Pool pool;
  const std::size_t before = h2_block_pool_free_blocks();
  pool.give(pool.take(64 * 1024));
  EXPECT_EQ(h2_block_pool_free_blocks(), before);
}

TEST(H2BlockPool, ABurstIsNotKeptWhole) {
  const Pool pool;
  std::vector<void*> burst;
  for (int i = 0; i < 2000; ++i) burst.push_back(pool.take(32));
  for (void* p : burst) pool.give(p);
  // One size keeps at most 256 blocks; the other sizes hold what earlier tests left.
  EXPECT_LE(h2_block_pool_free_blocks(), 7u * 256u);
  EXPECT_GE(h2_block_pool_free_blocks(), 256u);
}

TEST(H2BlockPool, ABlockMayBeFreedOnAnotherThread) {
  const Pool pool;
  void* p = pool.take(300);
  std::memset(p, 1, 300);
  std::size_t kept_there = 0;
  std::thread([&] {
    pool.give(p);
    kept_there = h2_block_pool_free_blocks();
  }).join();
  EXPECT_EQ(kept_there, 1u);  // that thread's pool took it
}

}  // namespace
}  // namespace gatebench::gateway
