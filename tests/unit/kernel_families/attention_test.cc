// In-tree FlashAttention-2 and memory-efficient attention: shapes from the by-value params the
// client copies (checked against the grid), FLOPs by FlashAttention's convention, and rates from
// the published FA2 table (simcore/src/ATEN_KERNELS.md, "Attention").

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "kernel_args.h"
#include "seer/simcore/aten_kernels.h"

namespace seer::sim {
namespace {

constexpr const char* kFlashFwdCausal =
    "void pytorch_flash::flash_fwd_kernel<Flash_fwd_kernel_traits<128, 128, 64, 4, false, false, "
    "cutlass::bfloat16_t, Flash_kernel_traits<128, 128, 64, 4, cutlass::bfloat16_t> >, false, "
    "true, false, false, true, true, false, false>(pytorch_flash::Flash_fwd_params)";
constexpr const char* kFlashBwd =
    "void pytorch_flash::flash_bwd_dq_dk_dv_loop_seqk_parallel_kernel<Flash_bwd_kernel_traits<128, "
    "64, 128, 8, 2, 4, 2, false, false, cutlass::bfloat16_t, Flash_kernel_traits<128, 64, 128, 8, "
    "cutlass::bfloat16_t> >, false, false, false, false, true, true, false>("
    "pytorch_flash::Flash_bwd_params)";
constexpr const char* kMemEffFwd =
    "fmha_cutlassF_bf16_aligned_64x128_rf_sm80(PyTorchMemEffAttention::AttentionKernel<"
    "cutlass::bfloat16_t, cutlass::arch::Sm80, true, 64, 128, 128, true, true>::Params)";
constexpr const char* kMemEffBwd =
    "fmha_cutlassB_bf16_aligned_64x64_k128_sm80(PyTorchMemEffAttention::AttentionBackwardKernel<"
    "cutlass::arch::Sm80, cutlass::bfloat16_t, true, false, false, 64, 64, 128, false>::Params)";

LaunchGeometry grid(uint32_t gx, uint32_t gy, uint32_t gz) {
  LaunchGeometry g;
  g.gx = gx;
  g.gy = gy;
  g.gz = gz;
  g.bx = 128;
  return g;
}

TEST(FlashAttention, ClassifiedFromTheTraits) {
  const AtenKernel fwd = classify_aten_kernel(kFlashFwdCausal);
  ASSERT_EQ(fwd.family, AtenFamily::kFlashForward);
  EXPECT_EQ(fwd.head_dim, 128);
  EXPECT_EQ(fwd.tile, 128);  // kBlockM: queries per block
  EXPECT_TRUE(fwd.causal);
  EXPECT_FALSE(fwd.needs_sizes);
  const AtenKernel bwd = classify_aten_kernel(kFlashBwd);
  ASSERT_EQ(bwd.family, AtenFamily::kFlashBackward);
  EXPECT_EQ(bwd.tile, 128);  // kBlockN: keys per block
  EXPECT_FALSE(bwd.causal);
  EXPECT_EQ(classify_aten_kernel("void pytorch_flash::flash_bwd_convert_dq_kernel<Flash_bwd_kernel_"
                                 "traits<128, 64, 128, 8, 2, 4, 2, false, false, "
                                 "cutlass::bfloat16_t, Flash_kernel_traits<128, 64, 128, 8, "
                                 "cutlass::bfloat16_t> > >(pytorch_flash::Flash_bwd_params, int)")
                .family,
            AtenFamily::kFlashBackwardConvert);
}

TEST(FlashAttention, ShapeFromParamsWhenTheyAgreeWithTheGridElseFromTheGrid) {
  const AtenKernel fwd = classify_aten_kernel(kFlashFwdCausal);
  // b = 2, h = 16, s_q = 1000 (8 blocks of 128 queries), s_k = 3000.
  const uint64_t s[4] = {16, 2, 1000, 3000};
  const auto shape = attention_shape(fwd, grid(8, 2, 16), s, 4);
  ASSERT_TRUE(shape.has_value());
  EXPECT_EQ(shape->seqlen_q, 1000);
  EXPECT_EQ(shape->seqlen_k, 3000);
  EXPECT_EQ(shape->batch, 2);
  EXPECT_EQ(shape->heads, 16);
  // Params that disagree with the grid (another layout): the grid's self-attention shape.
  const uint64_t wrong[4] = {7, 2, 1000, 3000};
  const auto fallback = attention_shape(fwd, grid(8, 2, 16), wrong, 4);
  EXPECT_EQ(fallback->seqlen_q, 1024);
  EXPECT_EQ(fallback->seqlen_k, 1024);
  EXPECT_TRUE(attention_shape(fwd, grid(8, 2, 16), nullptr, 0).has_value());
}

TEST(FlashAttention, TimeIsFlopsAtThePublishedRate) {
  const GpuSpec h100 = *find_gpu("H100-SXM-80GB");
  // Non-causal forward, hd 128, s = 2048: upstream FA2 362 TFLOP/s x 0.81 for the in-tree port
  // (PyTorch SDPA measured 293 at this shape).
  AttentionShape s;
  s.batch = 4;
  s.heads = 16;
  s.seqlen_q = s.seqlen_k = 2048;
  s.head_dim = 128;
  const double scale = h100.bf16_dense_flops / 989.4e12;
  EXPECT_NEAR(flash_flops_per_s(h100, s, false), 362e12 * 0.81 * scale, 1e9);
  // Between table points: linear in log2(s). 3k lies 0.585 of the way from 2k to 4k.
  s.seqlen_k = 3072;
  const double x = std::log2(1.5);
  EXPECT_NEAR(flash_flops_per_s(h100, s, false), (362 + 6 * x) * 1e12 * 0.81 * scale, 1e9);
  // Causal: half the FLOPs, at the causal row's rate; backward 2.5x the FLOPs at its own row.
  s.seqlen_k = 1024;
  s.seqlen_q = 1024;
  s.causal = true;
  EXPECT_DOUBLE_EQ(attention_flops(s, false), 4.0 * 4 * 16 * 1024 * 1024 * 128 / 2);
  EXPECT_DOUBLE_EQ(attention_flops(s, true), 2.5 * attention_flops(s, false));
  EXPECT_NEAR(flash_flops_per_s(h100, s, true), 260e12 * (260.0 / 350) * 0.81 * scale, 1e9);

  const AtenKernel fwd = classify_aten_kernel(kFlashFwdCausal);
  const uint64_t params[4] = {16, 4, 1024, 1024};
  const Time t = *aten_kernel_time(h100, fwd, grid(8, 4, 16), params, 4);
  EXPECT_EQ(t, 2000 + static_cast<Time>(
                          std::ceil(attention_flops(s, false) / (260e12 * 0.81 * scale) * 1e9)));
  // A100: FA2's 60 % of peak at long sequences (forward).
  const GpuSpec a100 = *find_gpu("A100-SXM-80GB");
  s.causal = false;
  s.seqlen_q = s.seqlen_k = 16384;
  EXPECT_NEAR(flash_flops_per_s(a100, s, false), 0.6 * a100.bf16_dense_flops, 1e9);
}

TEST(MemoryEfficientAttention, ParamsGiveCausalityAndTheBackwardNeedsThem) {
  const GpuSpec h100 = *find_gpu("H100-SXM-80GB");
  const AtenKernel fwd = classify_aten_kernel(kMemEffFwd);
  ASSERT_EQ(fwd.family, AtenFamily::kMemEffForward);
  EXPECT_EQ(fwd.tile, 64);
  EXPECT_EQ(fwd.head_dim, 128);
  // head_dim, num_queries, num_keys, custom_mask_type (1: causal from the top left).
  const uint64_t causal[4] = {128, 1024, 1024, 1};
  const auto shape = attention_shape(fwd, grid(16, 16, 2), causal, 4);
  ASSERT_TRUE(shape.has_value());
  EXPECT_TRUE(shape->causal);
  EXPECT_EQ(shape->heads, 16);
  EXPECT_EQ(shape->batch, 2);
  const Time t = *aten_kernel_time(h100, fwd, grid(16, 16, 2), causal, 4);
  EXPECT_EQ(t, 2000 + static_cast<Time>(std::ceil(attention_flops(*shape, false) /
                                                  (flash_flops_per_s(h100, *shape, false) * 0.65) *
                                                  1e9)));
  const AtenKernel bwd = classify_aten_kernel(kMemEffBwd);
  ASSERT_EQ(bwd.family, AtenFamily::kMemEffBackward);
  EXPECT_TRUE(bwd.needs_sizes);
  // The backward's grid.x is a split count: without its params it keeps the generic model.
  EXPECT_FALSE(aten_kernel_time(h100, bwd, grid(1, 16, 2), nullptr, 0).has_value());
  EXPECT_TRUE(aten_kernel_time(h100, bwd, grid(1, 16, 2), causal, 4).has_value());
}

TEST(AttentionArgs, TheClientReadsTheParamsFields) {
  const client::ArgSpec* flash = client::arg_spec_for_name(
      "_ZN13pytorch_flash16flash_fwd_kernelI23Flash_fwd_kernel_traitsILi128ELi128ELi64ELi4ELb0ELb0"
      "EN7cutlass10bfloat16_tE19Flash_kernel_traitsILi128ELi128ELi64ELi4ES3_EELb0ELb1ELb0ELb0ELb1E"
      "Lb1ELb0ELb0EEEvNS_16Flash_fwd_paramsE");
  ASSERT_NE(flash, nullptr);
  unsigned char params[472] = {};
  const int32_t h = 16, b = 2, sq = 1000, sk = 3000;
  std::memcpy(params + 96, &h, 4);
  std::memcpy(params + 176, &b, 4);
  std::memcpy(params + 180, &sq, 4);
  std::memcpy(params + 184, &sk, 4);
  void* args[] = {params};
  uint64_t out[4] = {};
  ASSERT_EQ(client::read_launch_args(*flash, args, out), 4);
  EXPECT_EQ(out[0], 16u);
  EXPECT_EQ(out[1], 2u);
  EXPECT_EQ(out[2], 1000u);
  EXPECT_EQ(out[3], 3000u);

  const client::ArgSpec* mem_eff = client::arg_spec_for_name(
      "_Z42fmha_cutlassB_bf16_aligned_64x64_k128_sm80N22PyTorchMemEffAttention23AttentionBackward"
      "KernelIN7cutlass4arch4Sm80ENS1_10bfloat16_tELb1ELb0ELb0ELi64ELi64ELi128ELb0EE6ParamsE");
  ASSERT_NE(mem_eff, nullptr);
  std::memset(params, 0xff, sizeof params);
  params[168] = 2;  // custom_mask_type, a byte followed by other fields
  ASSERT_EQ(client::read_launch_args(*mem_eff, args, out), 4);
  EXPECT_EQ(out[3], 2u);
}

}  // namespace
}  // namespace seer::sim
