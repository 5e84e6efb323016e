// The Triton model's inputs read from real TTIR (written by Triton 3.9 for Inductor and a user
// @triton.jit kernel; tests/unit/triton/ttir), and the bytes and times the model gives. The
// expected bytes come from each kernel's Python source (its tl.load/tl.store index expressions
// and sizes), not from the parser.

#include "triton_ir.h"

#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <sstream>
#include <string>

#include "seer/simcore/gpu_spec.h"
#include "seer/simcore/triton_model.h"
#include "triton_kernels.h"

namespace {

using seer::client::parse_triton_ir;
using seer::client::read_size_args;
using seer::client::TritonIr;

std::string fixture(const std::string& kernel) {
  std::ifstream in(std::string(TTIR_DIR) + "/" + kernel + ".ttir");
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

TritonIr parsed(const std::string& kernel) {
  TritonIr ir;
  EXPECT_TRUE(parse_triton_ir(fixture(kernel), kernel, ir)) << kernel;
  return ir;
}

double bytes_of(const TritonIr& ir, std::initializer_list<uint64_t> sizes, uint64_t programs) {
  const seer::sim::TritonKernel k = seer::rt::triton_kernel_of(ir.model);
  std::vector<uint64_t> v(sizes);
  return seer::sim::triton_bytes(k, v.data(), static_cast<int>(v.size()), programs);
}

constexpr double kX = 4096, kR = 1024;

TEST(TritonIr, PersistentLayerNormForward) {
  // in_ptr0[r + 1024x] (f32, full), in_ptr1[r], in_ptr2[r] (weights, evict_last), stores
  // in_out_ptr0[x] and out_ptr0[x] (f32 statistics), out_ptr1[r + 1024x] (bf16).
  const TritonIr ir = parsed("triton_per_fused__to_copy_native_layer_norm_0");
  ASSERT_EQ(ir.model.size_names_size(), 2);
  EXPECT_EQ(ir.model.size_names(0), "xnumel");
  EXPECT_EQ(ir.model.size_names(1), "r0_numel");
  EXPECT_EQ(ir.size_params[0].index, 6);
  EXPECT_EQ(ir.size_params[1].index, 7);
  EXPECT_TRUE(ir.model.reduction());
  EXPECT_EQ(ir.model.accesses_size(), 6);
  const double expected = kX * kR * 4 + kX * kR * 2 + 2 * kX * 4;
  EXPECT_DOUBLE_EQ(bytes_of(ir, {4096, 1024}, 4096 / 8), expected);
}

TEST(TritonIr, LoopedReductionCountsBroadcastLoadsAsReused) {
  // xnumel 32768, r0_numel 128. Full-size loads: in_ptr0, in_ptr2, in_ptr5 (bf16), in_ptr1
  // (f32), index x0 + 1024 r + 131072 x1. in_ptr3/4/6/7[r + 128 x1] are per-row statistics
  // re-read by 1024 programs (evict_last). Stores: four f32 [x].
  const TritonIr ir = parsed(
      "triton_red_fused__to_copy__unsafe_view_add_native_layer_norm_native_layer_norm_backward_"
      "view_8");
  EXPECT_EQ(ir.model.accesses_size(), 12);
  int reused = 0;
  for (const auto& a : ir.model.accesses()) reused += a.reused();
  EXPECT_EQ(reused, 4);
  const double x = 32768, r = 128;
  EXPECT_DOUBLE_EQ(bytes_of(ir, {32768, 128}, 32768 / 16), x * r * (2 + 4 + 2 + 2) + 4 * x * 4);
}

TEST(TritonIr, PointwiseMovesEachElementOnce) {
  const TritonIr ir = parsed("triton_poi_fused__unsafe_view_gelu_3");
  ASSERT_EQ(ir.model.size_names_size(), 1);
  EXPECT_FALSE(ir.model.reduction());
  const double n = 8 * 512 * 4096;
  EXPECT_DOUBLE_EQ(bytes_of(ir, {8 * 512 * 4096}, 1), n * 2 + n * 2);
}

TEST(TritonIr, TiledTransposeUsesBothSizes) {
  // ynumel 2048, xnumel 1024: in_ptr0[x + 1024y], in_ptr1[y + 2048x], out_ptr0[x + 1024y].
  const TritonIr ir = parsed("triton_poi_fused_add_mul_t_0");
  ASSERT_EQ(ir.model.size_names_size(), 2);
  EXPECT_EQ(ir.model.size_names(0), "xnumel");
  EXPECT_EQ(ir.model.size_names(1), "ynumel");
  EXPECT_EQ(ir.size_params[0].index, 4);
  EXPECT_EQ(ir.size_params[1].index, 3);
  EXPECT_DOUBLE_EQ(bytes_of(ir, {1024, 2048}, 1), 3.0 * 2048 * 1024 * 2);
}

TEST(TritonIr, OneProgramPerRowReduction) {
  // XBLOCK = 1: the row is the program id. in_out_ptr0[r + 1024x] loaded and stored (f32).
  const TritonIr ir = parsed("triton_per_fused__softmax_add_gelu_mul_prepare_softmax_online_0");
  EXPECT_DOUBLE_EQ(bytes_of(ir, {1024, 1024}, 1024), 2.0 * 1024 * 1024 * 4);
}

TEST(TritonIr, UserKernelIsSizedByItsGrid) {
  // No named sizes: three f32 tiles of BLOCK = 1024 per program.
  const TritonIr ir = parsed("add_kernel");
  EXPECT_EQ(ir.model.size_names_size(), 0);
  EXPECT_EQ(ir.model.accesses_size(), 3);
  for (const auto& a : ir.model.accesses()) {
    EXPECT_EQ(a.tile_elems(), 1024u);
    EXPECT_TRUE(a.per_program());
  }
  EXPECT_DOUBLE_EQ(bytes_of(ir, {}, 1024), 3.0 * 1024 * 1024 * 4);
}

TEST(TritonIr, MatmulTemplateCountsItsDotsAndLoopTrips) {
  // Inductor's max-autotune mm template, fp16 4096 x 4096 x 16384: 64 x 32 output tiles,
  // K loop of 128 trips over 128-wide slices (A 64x128, B 128x32 per trip), a bias load and the
  // output store per tile.
  const TritonIr ir = parsed("triton_mm");
  EXPECT_EQ(ir.model.size_names_size(), 0);
  EXPECT_DOUBLE_EQ(ir.model.dot_flops_per_program(), 2.0 * 64 * 32 * 128 * 128);
  EXPECT_EQ(ir.model.dot_dtype(), static_cast<int>(seer::sim::DType::kF16));
  // Operand tiles loaded in the dot's loop come from L2 (every program of a row or column block
  // re-reads them) and the bias load is evict_last: HBM bytes are the output tiles.
  const double programs = (4096 / 64) * (4096 / 32);
  EXPECT_DOUBLE_EQ(bytes_of(ir, {}, static_cast<uint64_t>(programs)), programs * 64 * 32 * 2);
  const seer::sim::GpuSpec h100 = *seer::sim::find_gpu("H100-SXM-80GB");
  const double flops = 2.0 * 4096 * 4096 * 16384;
  const auto k = seer::rt::triton_kernel_of(ir.model);
  EXPECT_EQ(seer::sim::triton_kernel_ns(h100, k.kind, bytes_of(ir, {}, 8192),
                                        k.dot_flops_per_program * programs, k.dot_type),
            2000 + static_cast<int64_t>(
                       std::ceil(flops /
                                 (seer::sim::gemm_peak_flops(h100, seer::sim::DType::kF16) *
                                  seer::sim::kGemmMainloopEfficiency) *
                                 1e9)));
}

TEST(TritonIr, MissingKernelOrGarbageIsRejected) {
  TritonIr ir;
  EXPECT_FALSE(parse_triton_ir(fixture("add_kernel"), "other_kernel", ir));
  EXPECT_FALSE(parse_triton_ir("tt.func public @k(%a: i32", "k", ir));
  EXPECT_FALSE(parse_triton_ir("", "k", ir));
  EXPECT_TRUE(parse_triton_ir("tt.func public @k() {\n}\n", "k", ir));
  EXPECT_EQ(ir.model.accesses_size(), 0);
}

TEST(TritonIr, LoopBoundsNearTheInt64LimitsCountTripsWithoutOverflow) {
  // fuzz_triton_ir found ub - lb + step - 1 overflowing int64 (undefined behaviour); a loop from 0
  // to INT64_MAX in steps of 2^62 runs twice.
  const std::string ttir =
      "tt.func public @k() {\n"
      "    %lb = arith.constant 0 : i64\n"
      "    %ub = arith.constant 9223372036854775807 : i64\n"
      "    %st = arith.constant 4611686018427387904 : i64\n"
      "    %cst = arith.constant dense<0.0> : tensor<16x16xf32>\n"
      "    %acc = scf.for %i = %lb to %ub step %st iter_args(%a = %cst) -> (tensor<16x16xf32>)  : "
      "i64 {\n"
      "      %d = tt.dot %x, %y, %a : tensor<16x16xf16> * tensor<16x16xf16> -> tensor<16x16xf32>\n"
      "      scf.yield %d : tensor<16x16xf32>\n"
      "    }\n"
      "}\n";
  TritonIr ir;
  ASSERT_TRUE(parse_triton_ir(ttir, "k", ir));
  EXPECT_DOUBLE_EQ(ir.model.dot_flops_per_program(), 2.0 * 16 * 16 * 16 * 2);
}

TEST(TritonIr, SizeArgumentsAreReadFromTheLaunchParameters) {
  const TritonIr ir = parsed("triton_poi_fused_add_mul_t_0");
  uint64_t p0 = 1, p1 = 2, p2 = 3;
  int32_t ynumel = 2048, xnumel = 1024;
  uint64_t scratch = 0;
  void* params[] = {&p0, &p1, &p2, &ynumel, &xnumel, &scratch, &scratch};
  uint64_t sizes[4] = {};
  ASSERT_EQ(read_size_args(ir, params, sizes, 4), 2);
  EXPECT_EQ(sizes[0], 1024u);
  EXPECT_EQ(sizes[1], 2048u);
  EXPECT_EQ(read_size_args(ir, nullptr, sizes, 4), 0);
}

TEST(TritonModel, TimeIsOverheadPlusStreamingAtTheKindsEfficiency) {
  const seer::sim::GpuSpec h100 = *seer::sim::find_gpu("H100-SXM-80GB");
  const double bytes = 100e6;
  EXPECT_EQ(seer::sim::triton_kernel_ns(h100, seer::sim::TritonKind::kPointwise, bytes),
            2000 + static_cast<int64_t>(std::ceil(bytes / (0.9 * h100.hbm_bytes_per_s) * 1e9)));
  EXPECT_EQ(seer::sim::triton_kernel_ns(h100, seer::sim::TritonKind::kReduction, bytes),
            2000 + static_cast<int64_t>(std::ceil(bytes / (0.8 * h100.hbm_bytes_per_s) * 1e9)));
  EXPECT_EQ(seer::sim::triton_kernel_ns(h100, seer::sim::TritonKind::kPointwise, 0), 2000);
}

}  // namespace
