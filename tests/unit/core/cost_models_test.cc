// Generic kernel model and copy model (simcore/README.md, "Generic kernel model" and "Copy model").
// Every expected number is worked out by hand in the comment next to it.

#include "seer/simcore/cost_models.h"

#include <gtest/gtest.h>

#include <cstdint>

#include "seer/simcore/gpu_spec.h"
#include "seer/simcore/host_costs.h"

namespace seer::sim {
namespace {

GpuSpec H100() { return *find_gpu("H100-SXM-80GB"); }
GpuSpec A100() { return *find_gpu("A100-SXM-80GB"); }
GpuSpec H200() { return *find_gpu("H200-SXM-141GB"); }

LaunchGeometry Geo(uint32_t gx, uint32_t bx, uint32_t gy = 1, uint32_t gz = 1, uint32_t by = 1,
                   uint32_t bz = 1) {
  LaunchGeometry g;
  g.gx = gx;
  g.gy = gy;
  g.gz = gz;
  g.bx = bx;
  g.by = by;
  g.bz = bz;
  return g;
}

// Round numbers (the test-fabric preset): PCIe 50 GB/s + 2 us, NVLink 400 GB/s + 1 us.
NodeLinks TestLinks() {
  NodeLinks l;
  l.pcie_bytes_per_s = 50e9;
  l.pcie_latency = 2000;
  l.pageable_factor = 0.5;
  l.nvlink_bytes_per_s = 400e9;
  l.nvlink_latency = 1000;
  l.host_memcpy_bytes_per_s = 10e9;
  return l;
}

OpDesc Copy(OpKind kind, uint64_t bytes, bool pinned = true) {
  OpDesc op;
  op.kind = kind;
  op.bytes = bytes;
  op.pinned = pinned;
  return op;
}

constexpr uint64_t kMiB = 1 << 20;

TEST(GpuCatalog, KnownModelsAndLimits) {
  const std::vector<std::string> names = gpu_catalog_names();
  ASSERT_GE(names.size(), 3u);
  EXPECT_EQ(std::vector<std::string>(names.begin(), names.begin() + 3),
            (std::vector<std::string>{"H100-SXM-80GB", "A100-SXM-80GB", "H200-SXM-141GB"}));
  const GpuSpec h = H100();
  EXPECT_EQ(h.sm_count, 132);
  EXPECT_EQ(h.max_threads_per_sm, 2048);
  EXPECT_EQ(h.max_blocks_per_sm, 32);
  EXPECT_DOUBLE_EQ(h.hbm_bytes_per_s, 3.35e12);
  EXPECT_EQ(h.memory_bytes, int64_t{80} << 30);
  const GpuSpec a = A100();
  EXPECT_EQ(a.sm_count, 108);
  EXPECT_EQ(a.max_threads_per_sm, 2048);
  EXPECT_EQ(a.max_blocks_per_sm, 32);
  EXPECT_DOUBLE_EQ(a.hbm_bytes_per_s, 2.039e12);
  EXPECT_DOUBLE_EQ(H200().hbm_bytes_per_s, 4.8e12);
  EXPECT_EQ(H200().memory_bytes, int64_t{141} * 1000 * 1000 * 1000);
}

TEST(GpuCatalog, LookupIsCaseInsensitiveAndUnknownIsNullopt) {
  ASSERT_TRUE(find_gpu("h100-sxm-80gb").has_value());
  EXPECT_EQ(find_gpu("h100-sxm-80gb")->name, "H100-SXM-80GB");
  EXPECT_FALSE(find_gpu("V100-SXM2-32GB").has_value());
  EXPECT_FALSE(find_gpu("").has_value());
}

TEST(GenericKernel, ReadmeExample) {
  // 65,536 blocks of 256 threads on an H100: 2048/256 = 8 blocks/SM, 132*8 = 1056 per wave,
  // ceil(65536/1056) = 63 waves, 2000 + 63*1500 = 96,500 ns.
  EXPECT_EQ(generic_kernel_ns(H100(), Geo(65536, 256)), 96500);
}

TEST(GenericKernel, OneBlock) {
  // 1 thread: floor(2048/1) = 2048 clamped to 32 blocks/SM; 1 block -> 1 wave -> 3500.
  EXPECT_EQ(generic_kernel_ns(H100(), Geo(1, 1)), 3500);
  EXPECT_EQ(generic_kernel_ns(H100(), Geo(1, 256)), 3500);
  EXPECT_EQ(generic_kernel_ns(A100(), Geo(1, 1024)), 3500);
}

TEST(GenericKernel, ExactlyOneWaveAndOneBlockMore) {
  // H100, 256 threads: 1056 blocks per wave.
  EXPECT_EQ(generic_kernel_ns(H100(), Geo(1056, 256)), 3500);  // 1 wave
  EXPECT_EQ(generic_kernel_ns(H100(), Geo(1057, 256)), 5000);  // 2 waves
  EXPECT_EQ(generic_kernel_ns(H100(), Geo(2112, 256)), 5000);  // 2 waves exactly
  EXPECT_EQ(generic_kernel_ns(H100(), Geo(2113, 256)), 6500);  // 3 waves
  // A100, 256 threads: 108*8 = 864 blocks per wave.
  EXPECT_EQ(generic_kernel_ns(A100(), Geo(864, 256)), 3500);
  EXPECT_EQ(generic_kernel_ns(A100(), Geo(865, 256)), 5000);
  // A100 65,536 x 256: ceil(65536/864) = 76 waves -> 2000 + 114,000 = 116,000.
  EXPECT_EQ(generic_kernel_ns(A100(), Geo(65536, 256)), 116000);
  // 1-thread blocks: 32 blocks/SM (the block limit binds): H100 4224 per wave, A100 3456.
  EXPECT_EQ(generic_kernel_ns(H100(), Geo(4224, 1)), 3500);
  EXPECT_EQ(generic_kernel_ns(H100(), Geo(4225, 1)), 5000);
  EXPECT_EQ(generic_kernel_ns(A100(), Geo(3456, 1)), 3500);
  EXPECT_EQ(generic_kernel_ns(A100(), Geo(3457, 1)), 5000);
  // 64 threads: 2048/64 = 32 blocks/SM, both limits bind at once: 4224 per wave on H100.
  EXPECT_EQ(generic_kernel_ns(H100(), Geo(4224, 64)), 3500);
  EXPECT_EQ(generic_kernel_ns(H100(), Geo(4225, 64)), 5000);
  // 32 threads: floor(2048/32) = 64 clamped to 32: still 4224 per wave.
  EXPECT_EQ(generic_kernel_ns(H100(), Geo(4225, 32)), 5000);
}

TEST(GenericKernel, ThousandTwentyFourThreadBlocks) {
  // 2048/1024 = 2 blocks/SM: H100 264 per wave, A100 216 per wave.
  EXPECT_EQ(generic_kernel_ns(H100(), Geo(264, 1024)), 3500);
  EXPECT_EQ(generic_kernel_ns(H100(), Geo(265, 1024)), 5000);
  EXPECT_EQ(generic_kernel_ns(A100(), Geo(216, 1024)), 3500);
  EXPECT_EQ(generic_kernel_ns(A100(), Geo(217, 1024)), 5000);
  // 1024 threads as a 32x32 block: same.
  EXPECT_EQ(generic_kernel_ns(H100(), Geo(265, 32, 1, 1, 32)), 5000);
  // 1000 threads: floor(2048/1000) = 2 blocks/SM as well.
  EXPECT_EQ(generic_kernel_ns(H100(), Geo(265, 1000)), 5000);
  // 1025 threads (over the per-block limit, still modeled): floor(2048/1025) = 1 -> 132 per wave.
  EXPECT_EQ(generic_kernel_ns(H100(), Geo(132, 1025)), 3500);
  EXPECT_EQ(generic_kernel_ns(H100(), Geo(133, 1025)), 5000);
  // More threads than an SM holds: floor(2048/4096) = 0, clamped to 1.
  EXPECT_EQ(generic_kernel_ns(H100(), Geo(133, 4096)), 5000);
}

TEST(GenericKernel, ThreeDimensionalGeometry) {
  // grid 8x4x4 = 128 blocks of 8x8x4 = 256 threads: 1 wave.
  EXPECT_EQ(generic_kernel_ns(H100(), Geo(8, 8, 4, 4, 8, 4)), 3500);
  // grid 33x32x1 = 1056 blocks of 16x16 threads = 256: exactly 1 wave on H100.
  EXPECT_EQ(generic_kernel_ns(H100(), Geo(33, 16, 32, 1, 16)), 3500);
  // grid 1x1x1057 (blocks along z only): 2 waves.
  EXPECT_EQ(generic_kernel_ns(H100(), Geo(1, 256, 1, 1057)), 5000);
  // Shared memory does not enter the documented formula.
  LaunchGeometry g = Geo(1057, 256);
  g.shmem = 200 * 1024;
  EXPECT_EQ(generic_kernel_ns(H100(), g), 5000);
}

TEST(GenericKernel, HugeGrids) {
  // 2^31-1 blocks of 256 threads on an H100: ceil(2147483647/1056) = 2,033,602 waves
  // -> 2000 + 2,033,602*1500 = 3,050,405,000 ns.
  EXPECT_EQ(generic_kernel_ns(H100(), Geo(2147483647u, 256)), 3050405000);
  // The largest legal grid of 1-thread blocks: (2^31-1)*65535*65535 = 9,223,090,559,730,712,575
  // blocks (no 32-bit overflow in the product), 4224 per wave -> 2,183,496,818,118,067 waves ->
  // 2000 + 2,183,496,818,118,067 * 1500 = 3,275,245,227,177,102,500 ns (fits in int64).
  EXPECT_EQ(generic_kernel_ns(H100(), Geo(2147483647u, 1, 65535, 65535)),
            int64_t{3275245227177102500});
}

// The largest legal grid with 1024-thread blocks needs 3.49e16 waves, i.e. 5.24e19 ns, more than
// int64 holds: the multiplication overflows (undefined behaviour; in practice a negative time).
// Expected: a positive (saturated) duration that is at least that of a smaller grid.
TEST(GenericKernel, HugeGridDoesNotOverflowToNegative) {
  const Time huge = generic_kernel_ns(H100(), Geo(2147483647u, 1024, 65535, 65535));
  EXPECT_GT(huge, 0);
  EXPECT_GE(huge, generic_kernel_ns(H100(), Geo(2147483647u, 1024)));
}

TEST(GenericKernel, ZeroSizedGeometryCountsAsOneBlockOfOneThread) {
  EXPECT_EQ(generic_kernel_ns(H100(), Geo(0, 0)), 3500);
}

TEST(GenericKernel, MonotoneInBlocksWithStepsAtWaveBoundaries) {
  for (const GpuSpec& gpu : {H100(), A100()}) {
    for (uint32_t threads : {1u, 128u, 256u, 384u, 1024u}) {
      const uint64_t per_sm =
          std::min<uint64_t>(std::max<uint64_t>(2048 / threads, 1), 32);  // clamp(floor(...))
      const uint64_t per_wave = per_sm * static_cast<uint64_t>(gpu.sm_count);
      Time prev = 0;
      for (uint32_t blocks = 1; blocks <= 5000; ++blocks) {
        const Time t = generic_kernel_ns(gpu, Geo(blocks, threads));
        ASSERT_GE(t, prev) << gpu.name << " threads " << threads << " blocks " << blocks;
        const int64_t waves = static_cast<int64_t>((blocks + per_wave - 1) / per_wave);
        ASSERT_EQ(t, 2000 + 1500 * waves)
            << gpu.name << " threads " << threads << " blocks " << blocks;
        prev = t;
      }
    }
  }
}

TEST(TransferNs, RoundsUpToWholeNanoseconds) {
  EXPECT_EQ(transfer_ns(0, 1e9), 0);
  EXPECT_EQ(transfer_ns(-5, 1e9), 0);
  EXPECT_EQ(transfer_ns(1, 1e9), 1);          // exactly 1 ns
  EXPECT_EQ(transfer_ns(1, 3e9), 1);          // 0.333 -> 1
  EXPECT_EQ(transfer_ns(3, 3e9), 1);          // exactly 1
  EXPECT_EQ(transfer_ns(4, 3e9), 2);          // 1.333 -> 2
  EXPECT_EQ(transfer_ns(1000, 1e12), 1);      // exactly 1
  EXPECT_EQ(transfer_ns(1001, 1e12), 2);      // 1.001 -> 2
  EXPECT_EQ(transfer_ns(1e6, 1e9), 1000000);  // exact: no spurious rounding up
  EXPECT_EQ(transfer_ns(55e9, 55e9), 1000000000);
  // 1 MiB at 50 GB/s: 1048576e9/50e9 = 20971.52 -> 20972.
  EXPECT_EQ(transfer_ns(1048576, 50e9), 20972);
}

TEST(CopyModel, HostToDeviceAndBack) {
  const NodeLinks l = TestLinks();
  // pinned: 2000 + ceil(1048576e9/50e9 = 20971.52) = 22972
  EXPECT_EQ(copy_ns(H100(), l, Copy(OpKind::kCopyH2D, kMiB, true), false), 22972);
  EXPECT_EQ(copy_ns(H100(), l, Copy(OpKind::kCopyD2H, kMiB, true), false), 22972);
  // pageable: 2000 + ceil(1048576e9/25e9 = 41943.04) = 43944
  EXPECT_EQ(copy_ns(H100(), l, Copy(OpKind::kCopyH2D, kMiB, false), false), 43944);
  EXPECT_EQ(copy_ns(H100(), l, Copy(OpKind::kCopyD2H, kMiB, false), false), 43944);
  // zero bytes: latency only
  EXPECT_EQ(copy_ns(H100(), l, Copy(OpKind::kCopyH2D, 0), false), 2000);
  // The GPU model does not matter for host links.
  EXPECT_EQ(copy_ns(A100(), l, Copy(OpKind::kCopyH2D, kMiB, true), false), 22972);
  // pageable_factor 0.25: 2000 + ceil(1048576e9/12.5e9 = 83886.08) = 85887
  NodeLinks q = l;
  q.pageable_factor = 0.25;
  EXPECT_EQ(copy_ns(H100(), q, Copy(OpKind::kCopyD2H, kMiB, false), false), 85887);
  // DGX H100 links (55 GB/s): 1 GB pinned = 2000 + ceil(18181818.18) = 18,183,819.
  EXPECT_EQ(copy_ns(H100(), NodeLinks{}, Copy(OpKind::kCopyH2D, 1000000000), false), 18183819);
}

TEST(CopyModel, DeviceToDeviceAndMemsetUseHbm) {
  const NodeLinks l = TestLinks();
  // H100: hbm*0.9 = 3.015e12. D2D 1 MiB: 1000 + ceil(2*1048576e9/3.015e12 = 695.57) = 1696.
  EXPECT_EQ(copy_ns(H100(), l, Copy(OpKind::kCopyD2D, kMiB), false), 1696);
  // memset 1 MiB: 1000 + ceil(347.79) = 1348.
  EXPECT_EQ(copy_ns(H100(), l, Copy(OpKind::kMemset, kMiB), false), 1348);
  // A100: 1.8351e12. D2D: 1000 + ceil(1142.80) = 2143; memset: 1000 + ceil(571.40) = 1572.
  EXPECT_EQ(copy_ns(A100(), l, Copy(OpKind::kCopyD2D, kMiB), false), 2143);
  EXPECT_EQ(copy_ns(A100(), l, Copy(OpKind::kMemset, kMiB), false), 1572);
  // H200: 4.32e12. 1 GB D2D: 1000 + ceil(2e18/4.32e12 = 462962.96) = 463963.
  EXPECT_EQ(copy_ns(H200(), l, Copy(OpKind::kCopyD2D, 1000000000), false), 463963);
  // pinned does not matter on the device
  EXPECT_EQ(copy_ns(H100(), l, Copy(OpKind::kCopyD2D, kMiB, false), false), 1696);
  EXPECT_EQ(copy_ns(H100(), l, Copy(OpKind::kMemset, 0), false), 1000);
  // 1 GiB D2D on H100 ~ 3.0 TB/s counting read plus write: 1000 + ceil(2^31 e9/3.015e12).
  // 2147483648e9/3.015e12 = 712266.55 -> 1000 + 712267 = 713267.
  EXPECT_EQ(copy_ns(H100(), l, Copy(OpKind::kCopyD2D, uint64_t{1} << 30), false), 713267);
}

TEST(CopyModel, PeerCopies) {
  const NodeLinks l = TestLinks();
  OpDesc op = Copy(OpKind::kCopyPeer, kMiB);
  op.peer_gpu = 1;
  // same node: 1000 + ceil(1048576e9/400e9 = 2621.44) = 3622
  EXPECT_EQ(copy_ns(H100(), l, op, true), 3622);
  // other node: 2*2000 + ceil(20971.52) = 24972
  EXPECT_EQ(copy_ns(H100(), l, op, false), 24972);
  op.bytes = 0;
  EXPECT_EQ(copy_ns(H100(), l, op, true), 1000);
  EXPECT_EQ(copy_ns(H100(), l, op, false), 4000);
}

TEST(CopyModel, HostToHostAndNonCopies) {
  const NodeLinks l = TestLinks();
  // 1048576e9/10e9 = 104857.6 -> 104858, no latency.
  EXPECT_EQ(copy_ns(H100(), l, Copy(OpKind::kCopyH2H, kMiB), false), 104858);
  EXPECT_EQ(copy_ns(H100(), l, Copy(OpKind::kCopyH2H, 0), false), 0);
  EXPECT_EQ(copy_ns(H100(), l, Copy(OpKind::kCopyH2H, 1), false), 1);  // 0.1 -> 1
  EXPECT_EQ(copy_ns(H100(), l, Copy(OpKind::kKernel, kMiB), false), 0);
  EXPECT_EQ(copy_ns(H100(), l, Copy(OpKind::kEventRecord, kMiB), false), 0);
  EXPECT_EQ(copy_ns(H100(), l, Copy(OpKind::kStreamWait, kMiB), false), 0);
}

TEST(CopyModel, MonotoneInBytes) {
  const NodeLinks l = TestLinks();
  for (OpKind k : {OpKind::kCopyH2D, OpKind::kCopyD2H, OpKind::kCopyD2D, OpKind::kMemset,
                   OpKind::kCopyPeer, OpKind::kCopyH2H}) {
    Time prev = -1;
    for (uint64_t b = 0; b <= (uint64_t{1} << 36); b = b * 3 + 1) {
      const Time t = copy_ns(H100(), l, Copy(k, b), true);
      EXPECT_GE(t, prev) << op_kind_name(k) << " bytes " << b;
      prev = t;
    }
  }
}

TEST(OpKindName, Names) {
  EXPECT_STREQ(op_kind_name(OpKind::kKernel), "kernel");
  EXPECT_STREQ(op_kind_name(OpKind::kCopyH2D), "memcpy HtoD");
  EXPECT_STREQ(op_kind_name(OpKind::kCopyD2H), "memcpy DtoH");
  EXPECT_STREQ(op_kind_name(OpKind::kCopyD2D), "memcpy DtoD");
  EXPECT_STREQ(op_kind_name(OpKind::kCopyH2H), "memcpy HtoH");
  EXPECT_STREQ(op_kind_name(OpKind::kCopyPeer), "memcpy PtoP");
  EXPECT_STREQ(op_kind_name(OpKind::kMemset), "memset");
}

TEST(HostCosts, ReadmeDefaults) {
  // simcore/README.md "Host time".
  const HostCosts c;
  EXPECT_EQ(c.launch, 2000);
  EXPECT_EQ(c.memcpy_async, 2000);
  EXPECT_EQ(c.memcpy_sync, 3000);
  EXPECT_EQ(c.event_record, 500);
  EXPECT_EQ(c.stream_wait, 500);
  EXPECT_EQ(c.query, 300);
  EXPECT_EQ(c.malloc, 10000);
  EXPECT_EQ(c.free, 10000);
  EXPECT_EQ(c.other_call, 200);
  EXPECT_EQ(c.clock_read, 20);
  EXPECT_EQ(c.sync_return, 1000);
  EXPECT_DOUBLE_EQ(c.cpu_scale, 1.0);
}

}  // namespace
}  // namespace seer::sim
