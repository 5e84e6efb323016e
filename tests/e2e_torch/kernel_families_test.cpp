// PyTorch's own elementwise, cast, layer-norm, reduction, softmax, embedding, cat, SDPA and
// fused-AdamW kernels, timed by the program with CUDA events, take the kernel-family models' times
// (simcore/src/ATEN_KERNELS.md), computed here from first principles: the bytes each kernel must
// move at the family's share of H100 HBM bandwidth, or for attention its FLOPs at the published
// FlashAttention-2 rate, plus the fixed 2 us.

#include <cmath>

#include "seer/simcore/cost_models.h"
#include "seer/simcore/gpu_spec.h"
#include "torch_util.h"

namespace seer::e2e::torch {
namespace {

using KernelFamilies = TorchTest;

int64_t expected_ns(double bytes, double efficiency) {
  const double bw = sim::find_gpu("H100-SXM-80GB")->hbm_bytes_per_s * efficiency;
  return 2000 + static_cast<int64_t>(std::ceil(bytes / bw * 1e9));
}

// Attention: FLOPs at upstream FlashAttention-2's H100 rate (arXiv 2407.08608) for this sequence
// length, linear in log2(s) between the published 512 and 1k points, x 0.81 for PyTorch's in-tree
// port, scaled from the H100 SXM's 989.4 dense bf16 TFLOP/s to the catalog's peak.
int64_t attention_ns(double flops, double tflops_512, double tflops_1k, double s, double factor) {
  const double x = std::log2(s) - 9;
  const double tflops = tflops_512 + (tflops_1k - tflops_512) * x;
  const double peak = sim::find_gpu("H100-SXM-80GB")->bf16_dense_flops;
  const double rate = tflops * 1e12 * 0.81 * factor * peak / 989.4e12;
  return 2000 + static_cast<int64_t>(std::ceil(flops / rate * 1e9));
}

TEST_F(KernelFamilies, EventTimesAreTheFamilyModels) {
  const Outcome o =
      seer_torch("dgx-h100", "", python_command(program("kernel_families.py"), {}), "modeled");
  ASSERT_EQ(o.exit_code, 0) << o.describe();
  const double rows = 8192, cols = 4096, n = rows * cols;
  ASSERT_EQ(o.integer("elements"), static_cast<long long>(n));
  // (The events' ms are floats: a few ns of rounding over 10 kernels.)
  constexpr double kTolNs = 20;
  // x + y, bf16: read two, write one.
  EXPECT_NEAR(o.integer("add_bf16_ns"), expected_ns(n * 3 * 2, 0.9), kTolNs) << o.describe();
  // x * 2.0, bf16: read one, write one.
  EXPECT_NEAR(o.integer("mul_scalar_bf16_ns"), expected_ns(n * 2 * 2, 0.9), kTolNs);
  // bf16 -> fp32: read 2 bytes, write 4 per element.
  EXPECT_NEAR(o.integer("cast_bf16_to_fp32_ns"), expected_ns(n * (2 + 4), 0.9), kTolNs);
  // LayerNorm over 4096 bf16 columns, 8192 rows: read X, write Y, gamma and beta once, mean and
  // rstd (fp32) per row, at the norms' 0.8 of peak.
  EXPECT_NEAR(o.integer("layer_norm_bf16_ns"),
              expected_ns(n * 2 * 2 + 2 * cols * 2 + 2 * rows * 4, 0.8), kTolNs);
  // Fused AdamW over one 4096 x 4096 fp32 parameter: the step counter's +1 (one 65,536-element
  // chunk of one fp32 list) and the fused update, 256 chunks of 65,536 elements reading p, g, m, v
  // and writing p, m, v (28 bytes per element).
  const double chunk = 65536;
  EXPECT_NEAR(o.integer("fused_adamw_fp32_ns"),
              expected_ns(chunk * 4, 0.9) + expected_ns(256 * chunk * 7 * 4, 0.9), kTolNs);
  // Sum over the rows of an fp32 matrix: read every element, write one fp32 per row, at the
  // reductions' 0.8.
  EXPECT_NEAR(o.integer("sum_rows_fp32_ns"), expected_ns(n * 4 + rows * 4, 0.8), kTolNs);
  // Softmax over 512-element bf16 rows (the warp-per-row kernel): read and write once, at 0.6.
  EXPECT_NEAR(o.integer("softmax_512_bf16_ns"), expected_ns(8 * rows * 512 * (2 + 2), 0.6), kTolNs);
  // Embedding of 8192 tokens into 4096 bf16 columns: each row read and written, one int64 index.
  EXPECT_NEAR(o.integer("embedding_bf16_ns"), expected_ns(2 * rows * cols * 2 + rows * 8, 0.9),
              kTolNs);
  // torch.cat of two 8192 x 4096 bf16 matrices along the columns: the 8192 x 8192 output read
  // from the inputs and written once, contiguous.
  EXPECT_NEAR(o.integer("cat_columns_bf16_ns"), expected_ns(2 * rows * (2 * cols) * 2, 0.9),
              kTolNs);
  // SDPA, batch 2, 16 heads, 1,000 positions, head dim 128. Flash, non-causal: 4·b·h·s²·d FLOPs
  // at FA2's 309 (s = 512) to 350 (1k) TFLOP/s. The grid alone would say 1,024 positions.
  const double s = 1000, attn = 4 * 2 * 16 * s * s * 128;
  EXPECT_NEAR(o.integer("sdpa_flash_bf16_ns"), attention_ns(attn, 309, 350, s, 1.0), kTolNs);
  // Memory-efficient, causal: half the FLOPs at the causal row (191 to 260) x 0.65, after the two
  // 8-byte memsets of its RNG seed and offset.
  sim::OpDesc memset;
  memset.kind = sim::OpKind::kMemset;
  memset.bytes = 8;
  const int64_t memsets =
      2 * sim::copy_ns(*sim::find_gpu("H100-SXM-80GB"), sim::NodeLinks{}, memset, true);
  EXPECT_NEAR(o.integer("sdpa_mem_efficient_causal_bf16_ns"),
              memsets + attention_ns(attn / 2, 191, 260, s, 0.65), kTolNs);
}

}  // namespace
}  // namespace seer::e2e::torch
