#include "pkg/scheduler/queue/array_allocator.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <numeric>
#include <vector>

namespace ksched::scheduler::queue {
namespace {

bool AlignedTo(const void* p, size_t align) { return reinterpret_cast<uintptr_t>(p) % align == 0; }

TEST(ArrayAllocatorTest, SmallBlocksAreLineAligned) {
  for (size_t n : {1, 3, 100, 1000}) {
    std::vector<uint32_t, ArrayAllocator<uint32_t>> v(n, 7);
    EXPECT_TRUE(AlignedTo(v.data(), 64)) << n;
    EXPECT_EQ(std::accumulate(v.begin(), v.end(), size_t{0}), 7 * n);
  }
}

TEST(ArrayAllocatorTest, LargeBlocksAreHugePageAlignedAndUsable) {
  // 3 MiB (not a multiple of 2 MiB): rounded up, aligned to 2 MiB.
  const size_t n = (size_t{3} << 20) / sizeof(uint64_t);
  std::vector<uint64_t, ArrayAllocator<uint64_t>> v(n);
  EXPECT_TRUE(AlignedTo(v.data(), size_t{2} << 20));
  for (size_t i = 0; i < n; ++i) v[i] = i;
  uint64_t sum = 0;
  for (uint64_t x : v) sum += x;
  EXPECT_EQ(sum, uint64_t{n} * (n - 1) / 2);
}

TEST(ArrayAllocatorTest, GrowingAcrossTheThresholdKeepsContents) {
  // push_back reallocates from line-aligned blocks into huge-page mappings
  // and frees each old block with the kind it came from.
  std::vector<uint32_t, ArrayAllocator<uint32_t>> v;
  const uint32_t n = (uint32_t{5} << 20) / sizeof(uint32_t);
  for (uint32_t i = 0; i < n; ++i) v.push_back(i);
  for (uint32_t i = 0; i < n; i += 4097) ASSERT_EQ(v[i], i);
  EXPECT_EQ(v.back(), n - 1);
  v.clear();
  v.shrink_to_fit();
  EXPECT_EQ(v.capacity(), 0u);
}

struct alignas(128) Wide {
  char bytes[128];
};

TEST(ArrayAllocatorTest, HonoursAlignmentAboveALine) {
  std::vector<Wide, ArrayAllocator<Wide>> v(5);
  EXPECT_TRUE(AlignedTo(v.data(), 128));
}

}  // namespace
}  // namespace ksched::scheduler::queue
