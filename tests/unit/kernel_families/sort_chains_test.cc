// The sort-based embedding backward, cub's radix sort, scan and unique-by-key, index_put_'s
// indexing_backward_kernel and the two-pass layer norm: PyTorch 2.15's names (libtorch_cuda.so,
// sm_90), the arguments the client copies for them, and the bytes and times their models give
// (simcore/src/ATEN_KERNELS.md, "Sort-based embedding backward, cub, two-pass norms").

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>

#include "kernel_args.h"
#include "seer/simcore/aten_kernels.h"

namespace seer::sim {
namespace {

const GpuSpec& h100() {
  static const GpuSpec spec = *find_gpu("H100-SXM-80GB");
  return spec;
}

// 2 µs + bytes at `efficiency` of the catalog's peak HBM bandwidth.
Time expected(double bytes, double efficiency, double bandwidth = h100().hbm_bytes_per_s) {
  return 2000 + static_cast<Time>(std::ceil(bytes / (efficiency * bandwidth) * 1e9));
}

LaunchGeometry grid(uint32_t gx, uint32_t bx) {
  LaunchGeometry g;
  g.gx = gx;
  g.bx = bx;
  return g;
}

// Reads a spec's fields from an args array whose parameters are 8-byte slots.
int read(const client::ArgSpec& spec, int64_t (&slots)[12], uint64_t (&out)[4]) {
  void* args[12];
  for (int i = 0; i < 12; ++i) args[i] = &slots[i];
  return client::read_launch_args(spec, args, out);
}

constexpr const char* kMoments =
    "void at::native::(anonymous namespace)::RowwiseMomentsCUDAKernel<c10::BFloat16, float, "
    "false>(long, long, float, c10::BFloat16 const*, float*, float*)";
constexpr const char* kMomentsMangled =
    "_ZN2at6native53_GLOBAL__N__4da244e1_20_layer_norm_kernel_cu_9c5ada8a24RowwiseMomentsCUDAKern"
    "elIN3c108BFloat16EfLb0EEEvllT0_PKT_PS5_S9_";
constexpr const char* kApply =
    "void at::native::(anonymous namespace)::LayerNormForwardCUDAKernel<c10::BFloat16, float, "
    "false>(long, long, c10::BFloat16 const*, float const*, float const*, c10::BFloat16 const*, "
    "c10::BFloat16 const*, c10::BFloat16*)";
constexpr const char* kApplyMangled =
    "_ZN2at6native53_GLOBAL__N__4da244e1_20_layer_norm_kernel_cu_9c5ada8a26LayerNormForwardCUDAKe"
    "rnelIN3c108BFloat16EfLb0EEEvllPKT_PKT0_SA_S7_S7_PS5_";

TEST(TwoPassLayerNorm, RowsFromTheGridColumnsFromTheSecondArgument) {
  const AtenKernel moments = classify_aten_kernel(kMoments);
  const AtenKernel apply = classify_aten_kernel(kApply);
  ASSERT_EQ(moments.family, AtenFamily::kLayerNormTwoPass);
  ASSERT_EQ(apply.family, AtenFamily::kLayerNormTwoPass);
  EXPECT_EQ(moments.element_bytes, 2);
  EXPECT_EQ(moments.out_element_bytes, 4);
  // Group norm's moments kernel is another one (its own signature): not this model's.
  EXPECT_NE(classify_aten_kernel("void at::native::(anonymous namespace)::RowwiseMomentsContiguous"
                                 "CUDAKernel<8, c10::BFloat16, float>(long, c10::BFloat16, "
                                 "c10::BFloat16 const*, c10::BFloat16*, c10::BFloat16*, float*, "
                                 "float*)")
                .family,
            AtenFamily::kLayerNormTwoPass);

  // (M, N, ...): the client reads N, parameter 1; M is the grid.
  for (const char* mangled : {kMomentsMangled, kApplyMangled}) {
    const client::ArgSpec* spec = client::arg_spec_for_name(mangled);
    ASSERT_NE(spec, nullptr) << mangled;
    int64_t slots[12] = {8192, 4095};
    uint64_t s[4] = {};
    ASSERT_EQ(read(*spec, slots, s), 1);
    EXPECT_EQ(s[0], 4095u);
  }

  // LayerNorm(4095) over 8,192 bf16 rows: N % 4 != 0, so the two passes.
  const double m = 8192, n = 4095;
  const uint64_t sizes[] = {4095};
  const LaunchGeometry g = grid(8192, 512);
  const double moments_bytes = m * n * 2 + 2 * m * 4;                // X read; mean, rstd written
  const double apply_bytes = 2 * m * n * 2 + 2 * n * 2 + 2 * m * 4;  // X, Y; gamma, beta; stats
  EXPECT_DOUBLE_EQ(*aten_kernel_bytes(moments, g, sizes, 1), moments_bytes);
  EXPECT_DOUBLE_EQ(*aten_kernel_bytes(apply, grid(8192, 256), sizes, 1), apply_bytes);
  EXPECT_EQ(*aten_kernel_time(h100(), moments, g, sizes, 1), expected(moments_bytes, 0.8));
  EXPECT_EQ(*aten_kernel_time(h100(), apply, grid(8192, 256), sizes, 1),
            expected(apply_bytes, 0.8));
  // The two passes together move more than the one-pass vectorized kernel would (which reads X
  // once): the fallback must not come out cheaper.
  const double vectorized = 2 * m * n * 2 + 2 * n * 2 + 2 * m * 4;
  EXPECT_GT(moments_bytes + apply_bytes, vectorized);
  const uint64_t zero[] = {0};
  EXPECT_FALSE(aten_kernel_time(h100(), moments, g, zero, 1).has_value());
  EXPECT_FALSE(aten_kernel_time(h100(), moments, g, sizes, 0).has_value());
}

constexpr const char* kOnesweep =
    "void at_cuda_detail::cub::detail::radix_sort::DeviceRadixSortOnesweepKernel<at_cuda_detail::"
    "cub::detail::radix::policy_hub<long, at::cuda::cub::detail::OpaqueType<8>, unsigned long "
    "long>::Policy1000, (at_cuda_detail::cub::SortOrder)0, long, at::cuda::cub::detail::"
    "OpaqueType<8>, unsigned long long, int, int, at_cuda_detail::cub::detail::identity_"
    "decomposer_t>(int*, int*, unsigned long long*, unsigned long long const*, long*, long "
    "const*, at::cuda::cub::detail::OpaqueType<8>*, at::cuda::cub::detail::OpaqueType<8> const*, "
    "int, int, int, at_cuda_detail::cub::detail::identity_decomposer_t)";
constexpr const char* kOnesweepMangled =
    "_ZN14at_cuda_detail3cub6detail10radix_sort29DeviceRadixSortOnesweepKernelINS1_5radix10policy"
    "_hubIlN2at4cuda3cub6detail10OpaqueTypeILi8EEEyE10Policy1000ELNS0_9SortOrderE0ElSB_yiiNS1_21i"
    "dentity_decomposer_tEEEvPT5_SH_PT3_PKSI_PT1_PKSM_PT2_PKSQ_T4_iiT6_";
constexpr const char* kHistogram =
    "void at_cuda_detail::cub::detail::radix_sort::DeviceRadixSortHistogramKernel<at_cuda_detail::"
    "cub::detail::radix::policy_hub<long, at::cuda::cub::detail::OpaqueType<8>, unsigned long "
    "long>::Policy1000, (at_cuda_detail::cub::SortOrder)0, long, unsigned long long, "
    "at_cuda_detail::cub::detail::identity_decomposer_t>(unsigned long long*, long const*, "
    "unsigned long long, int, int, at_cuda_detail::cub::detail::identity_decomposer_t)";
constexpr const char* kHistogramMangled =
    "_ZN14at_cuda_detail3cub6detail10radix_sort30DeviceRadixSortHistogramKernelINS1_5radix10polic"
    "y_hubIlN2at4cuda3cub6detail10OpaqueTypeILi8EEEyE10Policy1000ELNS0_9SortOrderE0ElyNS1_21identi"
    "ty_decomposer_tEEEvPT2_PKT1_SG_iiT3_";
constexpr const char* kSingleTile =
    "void at_cuda_detail::cub::detail::radix_sort::DeviceRadixSortSingleTileKernel<at_cuda_detail"
    "::cub::detail::radix::policy_hub<long, at::cuda::cub::detail::OpaqueType<8>, unsigned long "
    "long>::Policy1000, (at_cuda_detail::cub::SortOrder)0, long, at::cuda::cub::detail::"
    "OpaqueType<8>, unsigned long long, at_cuda_detail::cub::detail::identity_decomposer_t>(long "
    "const*, long*, at::cuda::cub::detail::OpaqueType<8> const*, at::cuda::cub::detail::"
    "OpaqueType<8>*, unsigned long long, int, int, at_cuda_detail::cub::detail::identity_"
    "decomposer_t)";
constexpr const char* kSingleTileMangled =
    "_ZN14at_cuda_detail3cub6detail10radix_sort31DeviceRadixSortSingleTileKernelINS1_5radix10poli"
    "cy_hubIlN2at4cuda3cub6detail10OpaqueTypeILi8EEEyE10Policy1000ELNS0_9SortOrderE0ElSB_yNS1_21id"
    "entity_decomposer_tEEEvPKT1_PSG_PKT2_PSK_T3_iiT4_";

// The published Onesweep rate, as bytes: 29.4 GKey/s of 32-bit keys, 4 passes of 8 B per key
// plus the histogram's 4 B, on an A100-40GB's 1,555 GB/s (arXiv 2206.01784).
double onesweep_efficiency() { return 29.4e9 * (4 * 8 + 4) / 1555e9; }

TEST(RadixSort, OnesweepPassesAndHistogramFromNumItems) {
  const AtenKernel pass = classify_aten_kernel(kOnesweep);
  ASSERT_EQ(pass.family, AtenFamily::kRadixSort);
  EXPECT_EQ(pass.variant, AtenVariant::kOnesweep);
  EXPECT_EQ(pass.element_bytes, 8);      // long keys
  EXPECT_EQ(pass.out_element_bytes, 8);  // OpaqueType<8> values (the positions)
  const AtenKernel histogram = classify_aten_kernel(kHistogram);
  ASSERT_EQ(histogram.family, AtenFamily::kRadixSort);
  EXPECT_EQ(histogram.variant, AtenVariant::kHistogram);
  EXPECT_NEAR(kRadixSortEfficiency, onesweep_efficiency(), 1e-12);

  // Onesweep: num_items is parameter 8 (an int: one portion); the histogram's parameter 2
  // (unsigned long long).
  int64_t slots[12] = {};
  slots[8] = 16384;
  slots[2] = 16384;
  uint64_t s[4] = {};
  const client::ArgSpec* onesweep_spec = client::arg_spec_for_name(kOnesweepMangled);
  ASSERT_NE(onesweep_spec, nullptr);
  ASSERT_EQ(read(*onesweep_spec, slots, s), 1);
  EXPECT_EQ(s[0], 16384u);
  const client::ArgSpec* histogram_spec = client::arg_spec_for_name(kHistogramMangled);
  ASSERT_NE(histogram_spec, nullptr);
  ASSERT_EQ(read(*histogram_spec, slots, s), 1);
  EXPECT_EQ(s[0], 16384u);

  // Sorting 16,384 int64 indices with their positions: each digit pass reads and writes keys and
  // values; the histogram reads the keys once.
  const uint64_t n[] = {16384};
  const double pass_bytes = 2 * 16384.0 * (8 + 8);
  const double histogram_bytes = 16384.0 * 8;
  EXPECT_DOUBLE_EQ(*aten_kernel_bytes(pass, grid(8, 384), n, 1), pass_bytes);
  EXPECT_EQ(*aten_kernel_time(h100(), pass, grid(8, 384), n, 1),
            expected(pass_bytes, onesweep_efficiency()));
  EXPECT_EQ(*aten_kernel_time(h100(), histogram, grid(264, 128), n, 1),
            expected(histogram_bytes, onesweep_efficiency()));
  // At the published scale (256M 32-bit keys, keys only) the passes and the histogram on an
  // A100-40GB-like GPU take the published 29.4 GKey/s, less the 2 µs per launch.
  GpuSpec a100_40 = h100();
  a100_40.hbm_bytes_per_s = 1555e9;
  const AtenKernel keys_only = classify_aten_kernel(
      "void at_cuda_detail::cub::detail::radix_sort::DeviceRadixSortOnesweepKernel<at_cuda_detail"
      "::cub::detail::radix::policy_hub<int, at_cuda_detail::cub::NullType, unsigned long long>::"
      "Policy1000, (at_cuda_detail::cub::SortOrder)0, int, at_cuda_detail::cub::NullType, "
      "unsigned long long, int, int, at_cuda_detail::cub::detail::identity_decomposer_t>(int*, "
      "int*, unsigned long long*, unsigned long long const*, int*, int const*, at_cuda_detail::"
      "cub::NullType*, at_cuda_detail::cub::NullType const*, int, int, int, at_cuda_detail::cub::"
      "detail::identity_decomposer_t)");
  ASSERT_EQ(keys_only.family, AtenFamily::kRadixSort);
  EXPECT_EQ(keys_only.out_element_bytes, 0);
  const uint64_t big[] = {uint64_t{1} << 28};
  AtenKernel keys_histogram = histogram;
  keys_histogram.element_bytes = 4;
  const Time total = 4 * (*aten_kernel_time(a100_40, keys_only, grid(60000, 384), big, 1) - 2000) +
                     (*aten_kernel_time(a100_40, keys_histogram, grid(216, 128), big, 1) - 2000);
  EXPECT_NEAR(static_cast<double>(big[0]) / (static_cast<double>(total) * 1e-9), 29.4e9, 0.01e9);

  // More blocks than items: not this launch's count.
  EXPECT_FALSE(aten_kernel_bytes(pass, grid(20000, 384), n, 1).has_value());
  const uint64_t zero[] = {0};
  EXPECT_FALSE(aten_kernel_bytes(pass, grid(8, 384), zero, 1).has_value());
}

TEST(RadixSort, SingleTileIsOneBlockAtOneSmsShare) {
  const AtenKernel tile = classify_aten_kernel(kSingleTile);
  ASSERT_EQ(tile.family, AtenFamily::kRadixSort);
  EXPECT_EQ(tile.variant, AtenVariant::kSingleTile);
  const client::ArgSpec* spec = client::arg_spec_for_name(kSingleTileMangled);
  ASSERT_NE(spec, nullptr);
  int64_t slots[12] = {};
  slots[4] = 2000;
  uint64_t s[4] = {};
  ASSERT_EQ(read(*spec, slots, s), 1);
  EXPECT_EQ(s[0], 2000u);
  const double bytes = 2 * 2000.0 * 16;
  EXPECT_EQ(*aten_kernel_time(h100(), tile, grid(1, 256), s, 1),
            expected(bytes, onesweep_efficiency(), h100().hbm_bytes_per_s / h100().sm_count));
  EXPECT_FALSE(aten_kernel_time(h100(), tile, grid(2, 256), s, 1).has_value());
}

TEST(CubScan, NumItemsWidthFollowsTheInstantiation) {
  // exclusive_sum of int64 (embedding backward's partial-segment offsets): unsigned int count.
  const char* scan32 =
      "_ZN14at_cuda_detail3cub6detail4scan16DeviceScanKernelINS2_10policy_hubIllljN4cuda3std3__44"
      "plusIvEEE10Policy1000EPKlPlNS0_13ScanTileStateIlLb1EEES9_NS1_10InputValueIlSE_EEjlLb0ElEEvT"
      "0_T1_T2_iT3_T4_T5_";
  const char* scan64 =
      "_ZN14at_cuda_detail3cub6detail4scan16DeviceScanKernelINS2_10policy_hubIlllmN4cuda3std3__44"
      "plusIvEEE10Policy1000EN6thrust38_V_300200_SM_750_800_860_900_1000_120010device_ptrIlEESF_"
      "NS0_13ScanTileStateIlLb1EEES9_NS1_10InputValueIlPlEEmlLb0ElEEvT0_T1_T2_iT3_T4_T5_";
  const client::ArgSpec* s32 = client::arg_spec_for_name(scan32);
  const client::ArgSpec* s64 = client::arg_spec_for_name(scan64);
  ASSERT_NE(s32, nullptr);
  ASSERT_NE(s64, nullptr);
  ASSERT_EQ(s32->n, 1);
  EXPECT_EQ(s32->fields[0].param, 6);
  EXPECT_EQ(s32->fields[0].bytes, 4);
  EXPECT_EQ(s64->fields[0].param, 6);
  EXPECT_EQ(s64->fields[0].bytes, 8);
  // unique_by_key (the embedding's segments): count is parameter 7.
  const client::ArgSpec* unique = client::arg_spec_for_name(
      "_ZN14at_cuda_detail3cub6detail13unique_by_key28DeviceUniqueByKeySweepKernelINS2_10policy_"
      "hubIllE10Policy1000EPKlN6thrust38_V_300200_SM_750_800_860_900_1000_120017counting_iterator"
      "IlNSA_11use_defaultESC_SC_NSA_18compile_time_valueILi1EEEEEPlSG_SG_NS0_13ScanTileStateIyLb1"
      "EEEN4cuda3std3__48equal_toIvEEyNS2_11VSMemHelperEEEvT0_T1_T2_T3_T4_T5_T6_T7_iNS1_7vsmem_tE");
  ASSERT_NE(unique, nullptr);
  EXPECT_EQ(unique->fields[0].param, 7);
  EXPECT_EQ(unique->fields[0].bytes, 8);

  const AtenKernel scan = classify_aten_kernel(
      "void at_cuda_detail::cub::detail::scan::DeviceScanKernel<at_cuda_detail::cub::detail::scan"
      "::policy_hub<long, long, long, unsigned int, cuda::std::__4::plus<void> >::Policy1000, "
      "long const*, long*, at_cuda_detail::cub::ScanTileState<long, true>, cuda::std::__4::plus<"
      "void>, at_cuda_detail::cub::detail::InputValue<long, long*>, unsigned int, long, false, "
      "long>(long const*, long*, at_cuda_detail::cub::ScanTileState<long, true>, int, cuda::std::"
      "__4::plus<void>, at_cuda_detail::cub::detail::InputValue<long, long*>, unsigned int)");
  ASSERT_EQ(scan.family, AtenFamily::kCubScan);
  EXPECT_EQ(scan.variant, AtenVariant::kScan);
  const uint64_t n[] = {8192};
  // Decoupled look-back: every item read and written once, at the copy rate.
  EXPECT_EQ(*aten_kernel_time(h100(), scan, grid(4, 128), n, 1), expected(8192.0 * 16, 0.9));
  const AtenKernel init = classify_aten_kernel(
      "void at_cuda_detail::cub::detail::scan::DeviceScanInitKernel<at_cuda_detail::cub::"
      "ScanTileState<long, true> >(at_cuda_detail::cub::ScanTileState<long, true>, int)");
  ASSERT_EQ(init.family, AtenFamily::kCubSmall);
  EXPECT_FALSE(init.needs_sizes);
  EXPECT_EQ(*aten_kernel_time(h100(), init, grid(1, 128), nullptr, 0), expected(128.0 * 8, 0.9));
}

// nn.Embedding(32000, 4096) in bf16, backward over 8,192 int64 indices (sort path: > 3,072).
constexpr double kNumel = 8192, kStride = 4096;

TEST(EmbeddingSegments, PartialSumsBoundedByTheGridAndTheIndexCount) {
  const AtenKernel partial = classify_aten_kernel(
      "void at::native::(anonymous namespace)::compute_grad_weight<c10::BFloat16, long>(long "
      "const*, c10::BFloat16 const*, long const*, long, long, long const*, long const*, "
      "at::AccumulateType<c10::BFloat16, true>::type*, long)");
  ASSERT_EQ(partial.family, AtenFamily::kEmbeddingSegments);
  EXPECT_EQ(partial.variant, AtenVariant::kGradWeight);
  EXPECT_EQ(partial.element_bytes, 2);
  EXPECT_EQ(partial.out_element_bytes, 4);  // fp32 partial sums
  EXPECT_EQ(partial.index_bytes, 8);

  const client::ArgSpec* spec = client::arg_spec_for_name(
      "_ZN2at6native59_GLOBAL__N__791b8af4_26_EmbeddingBackwardKernel_cu_5d1cf09b19compute_grad_w"
      "eightIN3c108BFloat16ElEEvPKT0_PKT_S7_llS7_PKlPNS_14AccumulateTypeIS8_Lb1EE4typeEl");
  ASSERT_NE(spec, nullptr);
  int64_t slots[12] = {0, 0, 0, 8192, 4096};
  uint64_t s[4] = {};
  ASSERT_EQ(read(*spec, slots, s), 2);
  EXPECT_EQ(s[0], 8192u);
  EXPECT_EQ(s[1], 4096u);

  // PyTorch's launch: max_segments = min(numel, num_weights) = 8,192, max_partial_segment =
  // numel / 10 + max_segments = 9,011; a 1,024-thread block per quarter row of 4,096 features.
  const double max_partial = std::floor(kNumel / 10) + 8192;
  const uint32_t blocks = static_cast<uint32_t>(std::ceil(max_partial * 4096 / 1024));
  const double partials = std::min(kNumel, max_partial);  // every index distinct: the bound
  const double bytes = kNumel * kStride * 2 + kNumel * 8 + partials * 8 + partials * kStride * 4;
  EXPECT_DOUBLE_EQ(*aten_kernel_bytes(partial, grid(blocks, 1024), s, 2), bytes);
  EXPECT_EQ(*aten_kernel_time(h100(), partial, grid(blocks, 1024), s, 2), expected(bytes, 0.6));
  // A block that is not min(stride_warped, 1024), or a grid too small for numel / 10 partials,
  // is not this kernel's launch.
  EXPECT_FALSE(aten_kernel_bytes(partial, grid(blocks, 512), s, 2).has_value());
  EXPECT_FALSE(aten_kernel_bytes(partial, grid(100, 1024), s, 2).has_value());

  // sum_and_scatter: stride (parameter 2); the grid covers max_segments rows.
  const AtenKernel scatter = classify_aten_kernel(
      "void at::native::(anonymous namespace)::sum_and_scatter<c10::BFloat16, long>(long const*, "
      "c10::BFloat16*, long, long const*, long const*, at::AccumulateType<c10::BFloat16, "
      "true>::type const*, long const*, long const*, long, long)");
  ASSERT_EQ(scatter.family, AtenFamily::kEmbeddingSegments);
  EXPECT_EQ(scatter.variant, AtenVariant::kSumAndScatter);
  const client::ArgSpec* scatter_spec = client::arg_spec_for_name(
      "_ZN2at6native59_GLOBAL__N__791b8af4_26_EmbeddingBackwardKernel_cu_5d1cf09b15sum_and_scatt"
      "erIN3c108BFloat16ElEEvPKT0_PT_lS7_PKlPKNS_14AccumulateTypeIS8_Lb1EE4typeES7_SB_ll");
  ASSERT_NE(scatter_spec, nullptr);
  int64_t scatter_slots[12] = {0, 0, 4096};
  ASSERT_EQ(read(*scatter_spec, scatter_slots, s), 1);
  EXPECT_EQ(s[0], 4096u);
  const uint32_t grid2 = static_cast<uint32_t>(8192.0 * 4096 / 1024);
  const double scatter_bytes = 8192 * kStride * (4 + 2) + 8192 * 3 * 8;
  EXPECT_EQ(*aten_kernel_time(h100(), scatter, grid(grid2, 1024), s, 1),
            expected(scatter_bytes, 0.6));

  // The atomic variant (few segments): partial sums added into fp32 rows (read and written).
  const AtenKernel atomic = classify_aten_kernel(
      "void at::native::(anonymous namespace)::compute_grad_weight_atomic_accumulate<"
      "c10::BFloat16, float, long>(long const*, c10::BFloat16 const*, long const*, long, long, "
      "long const*, long const*, long const*, long const*, long const*, float*, long, long)");
  ASSERT_EQ(atomic.variant, AtenVariant::kGradWeightAtomic);
  const uint64_t small[] = {65536, 64};  // 65,536 indices into a 100-row table of 64 features
  const double small_partials = std::floor(65536.0 / 10) + 100;
  const uint32_t small_grid = static_cast<uint32_t>(std::ceil(small_partials * 64 / 64));
  const double atomic_bytes = 65536.0 * 64 * 2 + 65536.0 * 8 + small_partials * 8 +
                              small_partials * 64 * 2 * 4 + small_partials * 2 * 8;
  EXPECT_DOUBLE_EQ(*aten_kernel_bytes(atomic, grid(small_grid, 64), small, 2), atomic_bytes);
}

TEST(EmbeddingSegments, HelpersFromTheGridAlone) {
  const AtenKernel per_segment = classify_aten_kernel(
      "void at::native::(anonymous namespace)::krn_partials_per_segment<long>(long*, long const*, "
      "long const*, long)");
  ASSERT_EQ(per_segment.family, AtenFamily::kEmbeddingHelper);
  EXPECT_FALSE(per_segment.needs_sizes);
  EXPECT_EQ(client::arg_spec_for_name("_ZN2at6native59_GLOBAL__N__791b8af4_26_EmbeddingBackward"
                                      "Kernel_cu_5d1cf09b24krn_partials_per_segmentIlEEvPT_PKS3_"
                                      "PKll"),
            nullptr);
  // <<<ceil(max_segments / 32), 32>>>: a thread per segment, about four indices each.
  EXPECT_EQ(*aten_kernel_time(h100(), per_segment, grid(256, 32), nullptr, 0),
            expected(256.0 * 32 * 4 * 8, 0.6));
  const AtenKernel count = classify_aten_kernel(
      "void at::native::(anonymous namespace)::compute_num_of_partial_segments<long>(long const*, "
      "long const*, long const*, long*)");
  ASSERT_EQ(count.family, AtenFamily::kEmbeddingHelper);
  // One thread, two dependent loads.
  EXPECT_EQ(*aten_kernel_time(h100(), count, grid(1, 1), nullptr, 0), 2000 + 2 * 500);
  EXPECT_FALSE(aten_kernel_time(h100(), count, grid(2, 1), nullptr, 0).has_value());
}

TEST(IndexingBackward, SliceBytesAndTheAccumulateFlag) {
  const AtenKernel k = classify_aten_kernel(
      "void (anonymous namespace)::indexing_backward_kernel<c10::BFloat16, 4>(long const*, long "
      "const*, c10::BFloat16 const*, c10::BFloat16*, long, long, long, long, bool)");
  ASSERT_EQ(k.family, AtenFamily::kIndexingBackward);
  EXPECT_EQ(k.element_bytes, 2);
  const client::ArgSpec* spec = client::arg_spec_for_name(
      "_ZN44_GLOBAL__N__b23ef953_11_Indexing_cu_89862edb24indexing_backward_kernelIN3c108BFloat16"
      "ELi4EEEvPKlS4_PKT_PS5_llllb");
  ASSERT_NE(spec, nullptr);
  ASSERT_NE(client::arg_spec_for_name("_ZN44_GLOBAL__N__b23ef953_11_Indexing_cu_89862edb33index"
                                      "ing_backward_kernel_stride_1IfEEvPKlS2_PKT_PS3_llllb"),
            nullptr);
  // numel 10,000, stride 4,096, stride_before 1, outer_dim 2, accumulate (one byte).
  alignas(8) unsigned char slots[12][8] = {};
  const int64_t numel = 10000, stride = 4096, before = 1, outer = 2;
  std::memcpy(slots[4], &numel, 8);
  std::memcpy(slots[5], &stride, 8);
  std::memcpy(slots[6], &before, 8);
  std::memcpy(slots[7], &outer, 8);
  slots[8][0] = 1;
  void* args[12];
  for (int i = 0; i < 12; ++i) args[i] = slots[i];
  uint64_t s[4] = {};
  ASSERT_EQ(client::read_launch_args(*spec, args, s), 4);
  EXPECT_EQ(s[0], 10000u);
  EXPECT_EQ(s[1], 4096u);
  EXPECT_EQ(s[2], 2u);
  EXPECT_EQ(s[3], 1u);

  const LaunchGeometry g = grid(2500, 32);  // ceil(numel / 4) blocks of 4 warps' indices
  const double elements = 10000.0 * 4096 * 2;
  EXPECT_EQ(*aten_kernel_time(h100(), k, g, s, 4), expected(elements * 2 * 3 + 16 * 1e4, 0.6));
  s[3] = 0;  // overwrite: the destination is not read
  EXPECT_EQ(*aten_kernel_time(h100(), k, g, s, 4), expected(elements * 2 * 2 + 16 * 1e4, 0.6));
  EXPECT_FALSE(aten_kernel_time(h100(), k, grid(20000, 32), s, 4).has_value());
  EXPECT_FALSE(aten_kernel_time(h100(), k, g, s, 3).has_value());
}

}  // namespace
}  // namespace seer::sim
