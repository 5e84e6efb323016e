// GPU catalog: the original entries keep their values, the new ones carry their datasheet
// numbers, and every entry's peaks are consistent with its SM count, clock and memory bus.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "seer/simcore/gpu_spec.h"

namespace seer::sim {
namespace {

GpuSpec Gpu(const std::string& name) {
  auto g = find_gpu(name);
  EXPECT_TRUE(g.has_value()) << name;
  return g.value_or(GpuSpec{});
}

TEST(GpuCatalog, OriginalEntriesFirstAndNewOnesPresent) {
  const std::vector<std::string> names = gpu_catalog_names();
  ASSERT_GE(names.size(), 7u);
  EXPECT_EQ(names[0], "H100-SXM-80GB");
  EXPECT_EQ(names[1], "A100-SXM-80GB");
  EXPECT_EQ(names[2], "H200-SXM-141GB");
  for (const char* n : {"A100-SXM-40GB", "H100-PCIe-80GB", "B200-SXM-180GB", "L40S-PCIe-48GB"}) {
    EXPECT_TRUE(find_gpu(n).has_value()) << n;
  }
  EXPECT_EQ(find_gpu("b200-sxm-180gb")->name, "B200-SXM-180GB");
  EXPECT_EQ(find_gpu("L40S-PCIE-48GB")->name, "L40S-PCIe-48GB");
  EXPECT_FALSE(find_gpu("V100-SXM2-32GB").has_value());
}

TEST(GpuCatalog, OriginalEntriesKeepTheirValues) {
  const GpuSpec h = Gpu("H100-SXM-80GB");
  EXPECT_EQ(h.sm_count, 132);
  EXPECT_EQ(h.clock_khz, 1980000);
  EXPECT_EQ(h.memory_bytes, int64_t{80} << 30);
  EXPECT_EQ(h.context_reserve_bytes, int64_t{512} << 20);
  EXPECT_EQ(h.l2_bytes, 50 << 20);
  EXPECT_EQ(h.max_threads_per_sm, 2048);
  EXPECT_EQ(h.max_blocks_per_sm, 32);
  EXPECT_EQ(h.shared_mem_per_sm, 228 * 1024);
  EXPECT_EQ(h.shared_mem_per_block_optin, 227 * 1024);
  EXPECT_DOUBLE_EQ(h.hbm_bytes_per_s, 3.35e12);
  EXPECT_DOUBLE_EQ(h.copy_efficiency, 0.9);
  EXPECT_DOUBLE_EQ(h.bf16_dense_flops, 989.4e12);

  const GpuSpec a = Gpu("A100-SXM-80GB");
  EXPECT_EQ(a.sm_count, 108);
  EXPECT_EQ(a.memory_bytes, int64_t{80} << 30);
  EXPECT_EQ(a.shared_mem_per_sm, 164 * 1024);
  EXPECT_DOUBLE_EQ(a.hbm_bytes_per_s, 2.039e12);
  EXPECT_DOUBLE_EQ(a.bf16_dense_flops, 312e12);

  const GpuSpec h2 = Gpu("H200-SXM-141GB");
  EXPECT_EQ(h2.sm_count, 132);
  EXPECT_EQ(h2.memory_bytes, int64_t{141} * 1000 * 1000 * 1000);
  EXPECT_DOUBLE_EQ(h2.hbm_bytes_per_s, 4.8e12);
  EXPECT_DOUBLE_EQ(h2.bf16_dense_flops, 989.4e12);
}

TEST(GpuCatalog, NewEntriesCarryDatasheetNumbers) {
  // NVIDIA A100 datasheet: the 40 GB SXM4 part has 1,555 GB/s HBM2 and the same compute.
  const GpuSpec a40 = Gpu("A100-SXM-40GB");
  EXPECT_EQ(a40.sm_count, 108);
  EXPECT_EQ(a40.memory_bytes, int64_t{40} << 30);
  EXPECT_DOUBLE_EQ(a40.hbm_bytes_per_s, 1.555e12);
  EXPECT_DOUBLE_EQ(a40.bf16_dense_flops, Gpu("A100-SXM-80GB").bf16_dense_flops);

  // NVIDIA H100 datasheet, PCIe column (dense).
  const GpuSpec hp = Gpu("H100-PCIe-80GB");
  EXPECT_EQ(hp.sm_count, 114);
  EXPECT_EQ(hp.cc_major, 9);
  EXPECT_DOUBLE_EQ(hp.hbm_bytes_per_s, 2.0e12);
  EXPECT_DOUBLE_EQ(hp.bf16_dense_flops, 756e12);
  EXPECT_DOUBLE_EQ(hp.fp8_dense_flops, 1513e12);
  EXPECT_DOUBLE_EQ(hp.tf32_dense_flops, 378e12);
  EXPECT_DOUBLE_EQ(hp.fp64_tensor_flops, 51e12);

  // NVIDIA HGX B200 datasheet, per GPU (dense).
  const GpuSpec b = Gpu("B200-SXM-180GB");
  EXPECT_EQ(b.sm_count, 148);
  EXPECT_EQ(b.cc_major, 10);
  EXPECT_EQ(b.cc_minor, 0);
  EXPECT_DOUBLE_EQ(b.hbm_bytes_per_s, 8.0e12);
  EXPECT_DOUBLE_EQ(b.bf16_dense_flops, 2.25e15);
  EXPECT_DOUBLE_EQ(b.fp8_dense_flops, 4.5e15);
  EXPECT_EQ(b.nvlink_generation, 5);
  EXPECT_DOUBLE_EQ(b.nvlink_bytes_per_s, 900e9);
  EXPECT_GT(b.memory_bytes, int64_t{179} << 30);

  // NVIDIA L40S datasheet (dense); CUDA programming guide limits for cc 8.9.
  const GpuSpec l = Gpu("L40S-PCIe-48GB");
  EXPECT_EQ(l.sm_count, 142);
  EXPECT_EQ(l.cc_major, 8);
  EXPECT_EQ(l.cc_minor, 9);
  EXPECT_DOUBLE_EQ(l.hbm_bytes_per_s, 864e9);
  EXPECT_DOUBLE_EQ(l.bf16_dense_flops, 362.05e12);
  EXPECT_DOUBLE_EQ(l.fp8_dense_flops, 733e12);
  EXPECT_DOUBLE_EQ(l.fp32_flops, 91.6e12);
  EXPECT_EQ(l.max_threads_per_sm, 1536);
  EXPECT_EQ(l.max_blocks_per_sm, 24);
  EXPECT_EQ(l.nvlink_generation, 0);
  EXPECT_DOUBLE_EQ(l.nvlink_bytes_per_s, 0);
  EXPECT_DOUBLE_EQ(l.fp64_tensor_flops, 0);
}

// Cross-checks that catch a mistyped number: datasheet peaks follow fixed ratios, tensor and
// CUDA-core peaks equal SMs x per-SM rate x a clock at or a little below the maximum clock, and
// the bandwidth equals 2 x memory clock x bus width.
// Grand Teton's H100 (shared/reference/ground-truth.md): the 80 GB H100 SXM with 96 GB of HBM2e at
// 2.4 TB/s, power-limited to 500 W of its 700 W TDP: compute peaks x (500/700)^(1/3) = 0.8939.
TEST(GpuCatalog, PowerLimitedHbm2eH100Variant) {
  const GpuSpec base = Gpu("H100-SXM-80GB");
  const GpuSpec g = Gpu("H100-SXM-96GB-500W");
  EXPECT_EQ(g.memory_bytes, int64_t{96} << 30);
  EXPECT_DOUBLE_EQ(g.hbm_bytes_per_s, 2.4e12);
  EXPECT_DOUBLE_EQ(g.power_limit_watts, 500);
  EXPECT_DOUBLE_EQ(g.tdp_watts, 700);
  EXPECT_NEAR(g.bf16_dense_flops / base.bf16_dense_flops, 0.8939, 0.0001);
  EXPECT_NEAR(g.fp32_flops / base.fp32_flops, 0.8939, 0.0001);
  EXPECT_EQ(g.sm_count, base.sm_count);
  EXPECT_EQ(g.memory_clock_khz, 1875000);  // 2.4 TB/s over the 5120-bit bus
}

TEST(GpuVariant, ClockAndPowerScaleComputeAndBadValuesAreRefused) {
  const GpuSpec base = Gpu("A100-SXM-80GB");
  GpuVariant v;
  v.clock_khz = base.clock_khz / 2;
  const GpuSpec half = apply_variant(base, v);
  EXPECT_EQ(half.name, "A100-SXM-80GB-variant");
  EXPECT_DOUBLE_EQ(half.bf16_dense_flops, base.bf16_dense_flops / 2);
  EXPECT_DOUBLE_EQ(half.hbm_bytes_per_s, base.hbm_bytes_per_s);
  v = GpuVariant{};
  v.power_limit_watts = 800;  // above the TDP: no change
  EXPECT_DOUBLE_EQ(apply_variant(base, v).bf16_dense_flops, base.bf16_dense_flops);
  v.power_limit_watts = 0;
  EXPECT_THROW(apply_variant(base, v), std::invalid_argument);
  v = GpuVariant{};
  v.memory_bytes = 1 << 20;
  EXPECT_THROW(apply_variant(base, v), std::invalid_argument);
  v = GpuVariant{};
  v.hbm_bytes_per_s = -1;
  EXPECT_THROW(apply_variant(base, v), std::invalid_argument);
}

TEST(GpuCatalog, EveryEntryIsInternallyConsistent) {
  for (const std::string& name : gpu_catalog_names()) {
    SCOPED_TRACE(name);
    const GpuSpec g = Gpu(name);
    EXPECT_FALSE(g.marketing_name.empty());
    EXPECT_GT(g.memory_bytes, g.context_reserve_bytes);
    EXPECT_GT(g.l2_bytes, 0);
    EXPECT_GT(g.shared_mem_per_sm, 0);
    EXPECT_LE(g.shared_mem_per_block_optin, g.shared_mem_per_sm);

    EXPECT_DOUBLE_EQ(g.fp16_dense_flops, g.bf16_dense_flops);
    EXPECT_NEAR(g.tf32_dense_flops, g.bf16_dense_flops / 2, 0.02 * g.bf16_dense_flops);
    // (3 %: the L40S datasheet rounds FP8/INT8 to 733 against 2 x 362.05.)
    EXPECT_NEAR(g.int8_dense_ops, 2 * g.bf16_dense_flops, 0.03 * g.bf16_dense_flops);
    if (g.fp8_dense_flops > 0) {
      EXPECT_NEAR(g.fp8_dense_flops, 2 * g.bf16_dense_flops, 0.03 * g.bf16_dense_flops);
    }
    if (g.fp64_tensor_flops > 0) {
      EXPECT_GE(g.fp64_tensor_flops, g.fp64_flops);
    }
    EXPECT_GT(g.fp64_flops, 0);

    // Dense BF16 FLOP per clock per SM: 2048 (Ampere cc 8.0), 1024 (Ada cc 8.9),
    // 4096 (Hopper), 8192 (Blackwell); the peak is quoted at a clock <= the maximum clock.
    const int per_clk = g.cc_major == 10  ? 8192
                        : g.cc_major == 9 ? 4096
                        : g.cc_minor == 9 ? 1024
                                          : 2048;
    // A power-limited variant sustains a lower clock: (limit / TDP)^(1/3) of it.
    const double power = power_limit_factor(g.power_limit_watts, g.tdp_watts);
    const double at_max_clock =
        g.sm_count * static_cast<double>(per_clk) * g.clock_khz * 1e3 * power;
    EXPECT_LE(g.bf16_dense_flops, at_max_clock * 1.001);
    EXPECT_GE(g.bf16_dense_flops, at_max_clock * 0.9);
    // FP32: 64 lanes per SM on cc 8.0, 128 on the others, one FMA (2 FLOP) each.
    const int fp32_per_clk = (g.cc_major == 8 && g.cc_minor == 0) ? 128 : 256;
    EXPECT_NEAR(g.fp32_flops,
                g.sm_count * static_cast<double>(fp32_per_clk) * g.clock_khz * 1e3 * power,
                0.03 * g.fp32_flops);
    EXPECT_GT(g.tdp_watts, 0);
    EXPECT_GT(g.power_limit_watts, 0);
    EXPECT_LE(g.power_limit_watts, g.tdp_watts);

    EXPECT_NEAR(g.hbm_bytes_per_s, 2.0 * g.memory_clock_khz * 1e3 * g.memory_bus_width / 8,
                0.03 * g.hbm_bytes_per_s);
    if (g.nvlink_generation > 0) {
      EXPECT_GT(g.nvlink_links, 0);
      EXPECT_GT(g.nvlink_bytes_per_s, 0);
    }
  }
}

}  // namespace
}  // namespace seer::sim
