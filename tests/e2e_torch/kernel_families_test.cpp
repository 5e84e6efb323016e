// PyTorch's own elementwise, cast, layer-norm and fused-AdamW kernels, timed by the program with
// CUDA events, take the kernel-family models' times (simcore/src/ATEN_KERNELS.md), computed here
// from first principles: the bytes each kernel must move at the family's share of H100 HBM
// bandwidth, plus the fixed 2 us.

#include <cmath>

#include "seer/simcore/gpu_spec.h"
#include "torch_util.h"

namespace seer::e2e::torch {
namespace {

using KernelFamilies = TorchTest;

int64_t expected_ns(double bytes, double efficiency) {
  const double bw = sim::find_gpu("H100-SXM-80GB")->hbm_bytes_per_s * efficiency;
  return 2000 + static_cast<int64_t>(std::ceil(bytes / bw * 1e9));
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
}

}  // namespace
}  // namespace seer::e2e::torch
