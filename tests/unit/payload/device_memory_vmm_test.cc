// DeviceMemory's virtual-memory API: reservations hold no capacity, physical allocations count
// like cudaMalloc, mappings are live device memory, and releases follow CUDA's deferral rule.

#include <gtest/gtest.h>

#include "device_memory.h"

namespace seer::client {
namespace {

constexpr uint64_t kGiB = uint64_t{1} << 30;
constexpr uint64_t kChunk = DeviceMemory::kVmmGranularity;

wire::Welcome two_gpus(uint64_t total, uint64_t reserve) {
  wire::Welcome w;
  for (int i = 0; i < 2; ++i) {
    auto* g = w.add_gpus();
    g->set_memory_bytes(static_cast<int64_t>(total));
    g->set_context_reserve_bytes(static_cast<int64_t>(reserve));
  }
  return w;
}

class VmmTest : public ::testing::Test {
 protected:
  void SetUp() override { dm.configure(two_gpus(4 * kGiB, 512ull << 20)); }
  DeviceMemory dm;
};

TEST_F(VmmTest, ReservationIsAlignedAndHoldsNoCapacity) {
  uint64_t va = 0;
  // Larger than the GPU's memory, as PyTorch's expandable segments reserve.
  ASSERT_EQ(dm.reserve_address(0, 5 * kGiB, 0, va), DeviceMemory::AllocResult::kOk);
  EXPECT_EQ(va % kChunk, 0u);
  EXPECT_EQ(dm.used(0), 0u);
  EXPECT_EQ(dm.gpu_of(va), 0);
  EXPECT_FALSE(dm.find(va));  // reserved, not live
  uint64_t aligned = 0;
  ASSERT_EQ(dm.reserve_address(0, 3 * kChunk, 64 * kChunk, aligned),
            DeviceMemory::AllocResult::kOk);
  EXPECT_EQ(aligned % (64 * kChunk), 0u);
  EXPECT_TRUE(dm.free_address(aligned, 3 * kChunk));
  EXPECT_FALSE(dm.free_address(aligned, 3 * kChunk));
  EXPECT_TRUE(dm.free_address(va, 5 * kGiB));
}

TEST_F(VmmTest, PhysicalCountsAgainstCapacityLikeAllocate) {
  const uint64_t capacity = dm.capacity(1);
  uint64_t h = 0;
  ASSERT_EQ(dm.create_physical(1, capacity - kChunk, h), DeviceMemory::AllocResult::kOk);
  EXPECT_NE(h, 0u);
  EXPECT_EQ(dm.used(1), capacity - kChunk);
  uint64_t h2 = 0;
  EXPECT_EQ(dm.create_physical(1, 2 * kChunk, h2), DeviceMemory::AllocResult::kOutOfMemory);
  uint64_t p = 0;
  EXPECT_EQ(dm.allocate(1, kChunk + 1, p), DeviceMemory::AllocResult::kOutOfMemory);
  EXPECT_EQ(dm.allocate(1, kChunk, p), DeviceMemory::AllocResult::kOk);
  EXPECT_EQ(dm.used(1), capacity);
  ASSERT_TRUE(dm.physical(h));
  EXPECT_EQ(dm.physical(h)->gpu, 1);
  EXPECT_EQ(dm.physical(h)->size, capacity - kChunk);
  EXPECT_TRUE(dm.release_physical(h));
  EXPECT_FALSE(dm.physical(h));
  EXPECT_FALSE(dm.release_physical(h));
  EXPECT_EQ(dm.used(1), kChunk);
  EXPECT_TRUE(dm.release(p));
  EXPECT_EQ(dm.used(1), 0u);
  EXPECT_EQ(dm.create_physical(1, kChunk + 1, h2), DeviceMemory::AllocResult::kInvalid);
  EXPECT_EQ(dm.create_physical(7, kChunk, h2), DeviceMemory::AllocResult::kInvalid);
}

TEST_F(VmmTest, MappingIsLiveDeviceMemoryAndAdjacentMappingsJoin) {
  uint64_t va = 0, a = 0, b = 0;
  ASSERT_EQ(dm.reserve_address(0, 8 * kChunk, 0, va), DeviceMemory::AllocResult::kOk);
  ASSERT_EQ(dm.create_physical(0, 2 * kChunk, a), DeviceMemory::AllocResult::kOk);
  ASSERT_EQ(dm.create_physical(0, 2 * kChunk, b), DeviceMemory::AllocResult::kOk);
  ASSERT_TRUE(dm.map(va, 2 * kChunk, 0, a));
  auto found = dm.find(va + 100);
  ASSERT_TRUE(found);
  EXPECT_EQ(found->gpu, 0);
  EXPECT_EQ(found->base, va);
  EXPECT_EQ(found->size, 2 * kChunk);
  EXPECT_FALSE(dm.find(va + 2 * kChunk));
  ASSERT_TRUE(dm.map(va + 2 * kChunk, 2 * kChunk, 0, b));
  found = dm.find(va + 3 * kChunk);
  ASSERT_TRUE(found);
  EXPECT_EQ(found->base, va);
  EXPECT_EQ(found->size, 4 * kChunk);
  // Overlaps, ranges outside the reservation, offsets past the handle.
  EXPECT_FALSE(dm.map(va + kChunk, 2 * kChunk, 0, b));
  EXPECT_FALSE(dm.map(va + 6 * kChunk, 4 * kChunk, 0, b));
  EXPECT_FALSE(dm.map(va + 4 * kChunk, 2 * kChunk, 2 * kChunk, b));
  EXPECT_FALSE(dm.map(va + 4 * kChunk, 2 * kChunk, 0, 12345));
  // cudaFree does not free mappings; free_address refuses while mapped.
  EXPECT_FALSE(dm.release(va));
  EXPECT_FALSE(dm.free_address(va, 8 * kChunk));
  // Unmap must cover whole mappings.
  EXPECT_FALSE(dm.unmap(va, kChunk));
  EXPECT_TRUE(dm.unmap(va, 4 * kChunk));
  EXPECT_FALSE(dm.find(va));
  EXPECT_TRUE(dm.release_physical(a));
  EXPECT_TRUE(dm.release_physical(b));
  EXPECT_EQ(dm.used(0), 0u);
  EXPECT_TRUE(dm.free_address(va, 8 * kChunk));
}

TEST_F(VmmTest, ReleaseOfMappedHandleWaitsForUnmap) {
  uint64_t va = 0, h = 0;
  ASSERT_EQ(dm.reserve_address(0, 4 * kChunk, 0, va), DeviceMemory::AllocResult::kOk);
  ASSERT_EQ(dm.create_physical(0, 4 * kChunk, h), DeviceMemory::AllocResult::kOk);
  ASSERT_TRUE(dm.map(va, 2 * kChunk, 0, h));
  ASSERT_TRUE(dm.map(va + 2 * kChunk, 2 * kChunk, 2 * kChunk, h));
  EXPECT_TRUE(dm.release_physical(h));
  EXPECT_EQ(dm.used(0), 4 * kChunk);  // still mapped
  EXPECT_TRUE(dm.find(va));
  EXPECT_TRUE(dm.unmap(va, 2 * kChunk));
  EXPECT_EQ(dm.used(0), 4 * kChunk);
  EXPECT_TRUE(dm.unmap(va + 2 * kChunk, 2 * kChunk));
  EXPECT_EQ(dm.used(0), 0u);
  EXPECT_TRUE(dm.free_address(va, 4 * kChunk));
}

TEST_F(VmmTest, ShadowHoldsBytesAndUnmapZeroesThem) {
  uint64_t va = 0, h = 0;
  ASSERT_EQ(dm.reserve_address(0, 2 * kChunk, 0, va), DeviceMemory::AllocResult::kOk);
  ASSERT_EQ(dm.create_physical(0, 2 * kChunk, h), DeviceMemory::AllocResult::kOk);
  ASSERT_TRUE(dm.map(va, 2 * kChunk, 0, h));
  auto* bytes = static_cast<unsigned char*>(dm.shadow(va, 2 * kChunk));
  ASSERT_NE(bytes, nullptr);
  EXPECT_NE(reinterpret_cast<uint64_t>(bytes), va);
  bytes[0] = 7;
  bytes[2 * kChunk - 1] = 9;
  EXPECT_TRUE(dm.unmap(va, 2 * kChunk));
  EXPECT_EQ(bytes[0], 0);
  EXPECT_EQ(bytes[2 * kChunk - 1], 0);
  EXPECT_EQ(dm.shadow(0x1000, 8), nullptr);  // not device memory
}

}  // namespace
}  // namespace seer::client
