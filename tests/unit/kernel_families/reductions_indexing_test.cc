// Reductions, warp softmax, norm backward, gather/embedding, indexing, random numbers and NLL
// loss: PyTorch 2.15's names (libtorch_cuda.so), the bytes their models charge, and the
// arguments the client copies for them (simcore/src/ATEN_KERNELS.md).

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "kernel_args.h"
#include "seer/simcore/aten_kernels.h"

namespace seer::sim {
namespace {

Time at_efficiency(double bytes, double efficiency) {
  return 2000 + static_cast<Time>(std::ceil(bytes / (efficiency * 3.35e12) * 1e9));
}

const GpuSpec& h100() {
  static const GpuSpec spec = *find_gpu("H100-SXM-80GB");
  return spec;
}

LaunchGeometry grid(uint32_t gx, uint32_t gy = 1, uint32_t bx = 128, uint32_t by = 1) {
  LaunchGeometry g;
  g.gx = gx;
  g.gy = gy;
  g.bx = bx;
  g.by = by;
  return g;
}

TEST(ReduceKernel, BytesFromTheConfigTheClientFindsInReduceOp) {
  const AtenKernel sum = classify_aten_kernel(
      "void at::native::reduce_kernel<512, 1, at::native::ReduceOp<c10::BFloat16, "
      "at::native::func_wrapper_t<float, at::native::sum_functor<c10::BFloat16, float, "
      "float>::operator()(at::TensorIterator&)::{lambda(float, float)#1}>, unsigned int, float, "
      "4, 4> >(at::native::ReduceOp<c10::BFloat16, ...>)");
  ASSERT_EQ(sum.family, AtenFamily::kReduce);
  EXPECT_EQ(sum.element_bytes, 2);
  EXPECT_EQ(sum.out_element_bytes, 4);

  // A ReduceOp as the kernel gets it: ops (a 4-byte functor here) and ident before the config.
  int32_t op[48] = {};
  int32_t* config = op + 2;
  config[0] = 4;         // element_size_bytes (the accumulator's)
  config[1] = 1 << 20;   // num_inputs per output
  config[2] = 64;        // num_outputs
  config[5] = 16;        // ctas_per_output
  config[11] = 32;       // block_width
  config[12] = 16;       // block_height
  config[13] = 32 * 16;  // num_threads
  void* args[] = {op};
  const client::ArgSpec* spec = client::arg_spec_for_name(
      "_ZN2at6native13reduce_kernelILi512ELi1ENS0_8ReduceOpIbNS0_14func_wrapper_tImZNS0_15xor_sum_"
      "functorIbvEclERNS_14TensorIteratorEEUlbbE_EEjmLi4ELi4EEEEEvT1_");
  ASSERT_NE(spec, nullptr);
  uint64_t s[4] = {};
  ASSERT_EQ(client::read_launch_args(*spec, args, s), 4);
  EXPECT_EQ(s[0], 1u << 20);
  EXPECT_EQ(s[1], 64u);
  EXPECT_EQ(s[2], 16u);

  const LaunchGeometry g = grid(64, 16, 32, 16);
  const double bytes = 64.0 * (1 << 20) * 2 + 64 * 4;
  EXPECT_DOUBLE_EQ(*aten_kernel_bytes(sum, g, s, 4), bytes);
  // Several blocks per output: a second pass.
  EXPECT_EQ(*aten_kernel_time(h100(), sum, g, s, 4), at_efficiency(bytes, 0.8) + 2000);
  // A config that disagrees with the launch is not this launch's.
  EXPECT_FALSE(aten_kernel_bytes(sum, grid(64, 8, 32, 16), s, 4).has_value());
  EXPECT_FALSE(aten_kernel_bytes(sum, grid(64, 16, 512, 1), s, 4).has_value());
  // No config in the first bytes: nothing read.
  std::memset(op, 0, sizeof op);
  EXPECT_EQ(client::read_launch_args(*spec, args, s), 0);
}

TEST(SoftmaxWarp, RowsAndElementsFromItsArguments) {
  const AtenKernel fwd = classify_aten_kernel(
      "void (anonymous namespace)::softmax_warp_forward<c10::BFloat16, c10::BFloat16, float, 9, "
      "false, false, 32>(c10::BFloat16*, c10::BFloat16 const*, int, int, int, bool const*, int, "
      "bool)");
  ASSERT_EQ(fwd.family, AtenFamily::kSoftmaxWarp);
  const uint64_t s[3] = {2048, 512, 512};  // batch, stride, element_count
  const LaunchGeometry g = grid(512, 1, 32, 4);
  EXPECT_DOUBLE_EQ(*aten_kernel_bytes(fwd, g, s, 3), 2048.0 * 512 * (2 + 2));
  EXPECT_EQ(*aten_kernel_time(h100(), fwd, g, s, 3), at_efficiency(2048.0 * 512 * 4, 0.6));
  const uint64_t too_long[3] = {2048, 1024, 1024};  // 2^9 elements at most
  EXPECT_FALSE(aten_kernel_bytes(fwd, g, too_long, 3).has_value());
  const AtenKernel bwd = classify_aten_kernel(
      "void (anonymous namespace)::softmax_warp_backward<float, c10::BFloat16, float, 10, false, "
      "false, 32>(c10::BFloat16*, float const*, float const*, int, int, int, bool const*)");
  EXPECT_DOUBLE_EQ(*aten_kernel_bytes(bwd, g, s, 3), 2048.0 * 512 * (4 + 4 + 2));

  const client::ArgSpec* f = client::arg_spec_for_name(
      "_ZN43_GLOBAL__N__f71e7945_10_SoftMax_cu_9f978f6320softmax_warp_forwardIN3c108BFloat16ES2_"
      "fLi11ELb0ELb1ELi32EEEvPT0_PKT_iiiPKbib");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->fields[0].param, 2);
  EXPECT_EQ(f->fields[2].param, 4);
  const client::ArgSpec* b = client::arg_spec_for_name(
      "_ZN43_GLOBAL__N__f71e7945_10_SoftMax_cu_9f978f6321softmax_warp_backwardIN3c108BFloat16ES2_"
      "fLi10ELb0ELb1ELi32EEEvPT0_PKT_S7_iiiPKb");
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(b->fields[0].param, 3);
}

TEST(LayerNormBackward, InputAndWeightGradients) {
  const AtenKernel dx = classify_aten_kernel(
      "void at::native::(anonymous namespace)::layer_norm_grad_input_kernel_vectorized<"
      "c10::BFloat16, float, false>(c10::BFloat16 const*, c10::BFloat16 const*, float const*, "
      "float const*, c10::BFloat16 const*, c10::BFloat16*, int)");
  ASSERT_EQ(dx.family, AtenFamily::kLayerNormBackwardInput);
  const uint64_t n = 4096;
  // Read dY and X, write dX (M x N), gamma once, mean and rstd per row.
  EXPECT_DOUBLE_EQ(*aten_kernel_bytes(dx, grid(8192), &n, 1),
                   3.0 * 8192 * 4096 * 2 + 4096 * 2 + 2 * 8192 * 4);
  const AtenKernel dgamma = classify_aten_kernel(
      "void at::native::(anonymous namespace)::GammaBetaBackwardCUDAKernelTemplate<c10::BFloat16, "
      "float, 32u, 32u, 256u, false, true, false>(long, long, c10::BFloat16 const*, c10::BFloat16 "
      "const*, float const*, float const*, c10::BFloat16*, c10::BFloat16*)");
  ASSERT_EQ(dgamma.family, AtenFamily::kLayerNormBackwardGamma);
  const uint64_t mn[2] = {8192, 4096};
  const double bytes = 2.0 * 8192 * 4096 * 2 + 2 * 8192 * 4 + 2 * 4096 * 2;
  EXPECT_DOUBLE_EQ(*aten_kernel_bytes(dgamma, grid(128), mn, 2), bytes);
  EXPECT_EQ(*aten_kernel_time(h100(), dgamma, grid(128), mn, 2), at_efficiency(bytes, 0.8));
  EXPECT_EQ(client::arg_spec_for_name(
                "_ZN2at6native53_GLOBAL__N__4da244e1_20_layer_norm_kernel_cu_9c5ada8a35GammaBeta"
                "BackwardCUDAKernelTemplateIN3c104HalfEfLj32ELj16ELj128ELb0ELb0ELb0EEEvllPKT_S7_"
                "PKT0_SA_PS5_SB_")
                ->fields[1]
                .param,
            1);
}

TEST(Embedding, GatherForwardAndFeatureBackward) {
  const AtenKernel gather = classify_aten_kernel(
      "void at::native::vectorized_gather_kernel<16, long>(char*, char*, long*, int, long, long, "
      "long, long, bool)");
  ASSERT_EQ(gather.family, AtenFamily::kGather);
  const uint64_t rows[2] = {8192, 4096 * 2};  // indices, bytes per row
  EXPECT_DOUBLE_EQ(*aten_kernel_bytes(gather, grid(8192), rows, 2), 2.0 * 8192 * 8192 + 8 * 8192);
  EXPECT_FALSE(aten_kernel_bytes(gather, grid(9000), rows, 2).has_value());
  EXPECT_NE(
      client::arg_spec_for_name("_ZN2at6native24vectorized_gather_kernelILi16EiEEvPcS2_PT0_illllb"),
      nullptr);

  const AtenKernel bwd = classify_aten_kernel(
      "void at::native::(anonymous namespace)::embedding_backward_feature_kernel<c10::BFloat16, "
      "float, long>(long const*, c10::BFloat16 const*, c10::BFloat16*, int, long, int)");
  ASSERT_EQ(bwd.family, AtenFamily::kEmbeddingBackward);
  const uint64_t s[2] = {2048, 1024};  // indices, features
  const double bytes = 3.0 * 2048 * 1024 * 2 + 8 * 2048;
  EXPECT_DOUBLE_EQ(*aten_kernel_bytes(bwd, grid(32), s, 2), bytes);
  // 32 blocks on 132 SMs: the streaming part takes 132/32 as long.
  const double stream_ns = std::ceil(bytes / (0.9 * 3.35e12) * 1e9);
  EXPECT_EQ(*aten_kernel_time(h100(), bwd, grid(32), s, 2),
            2000 + static_cast<Time>(std::ceil(stream_ns * 132 / 32)));
}

TEST(Indexing, IndexElementwiseAndRandomNumbers) {
  const AtenKernel flip = classify_aten_kernel(
      "void at::native::index_elementwise_kernel<128, 4, "
      "at::native::flip_kernel_impl<at::native::OpaqueType<2> >(at::TensorIterator&)::"
      "{lambda(int)#1}>(long, at::native::flip_kernel_impl<at::native::OpaqueType<2> "
      ">(at::TensorIterator&)::{lambda(int)#1})");
  ASSERT_EQ(flip.family, AtenFamily::kIndexElementwise);
  const uint64_t n = 1 << 20;
  EXPECT_DOUBLE_EQ(*aten_kernel_bytes(flip, grid(2048), &n, 1), 2.0 * 2 * (1 << 20));
  EXPECT_FALSE(aten_kernel_bytes(flip, grid(4096), &n, 1).has_value());

  const AtenKernel randn = classify_aten_kernel(
      "void at::native::(anonymous namespace)::distribution_elementwise_grid_stride_kernel<float, "
      "4, at::native::templates::cuda::normal_and_transform<c10::BFloat16, float, "
      "at::CUDAGeneratorImpl*, ...>(...)::{lambda(curandStatePhilox4_32_10*)#1}, ...>(long, "
      "at::PhiloxCudaState, ...)");
  ASSERT_EQ(randn.family, AtenFamily::kRandom);
  // Grid-stride: any grid; writes one bf16 per element.
  EXPECT_DOUBLE_EQ(*aten_kernel_bytes(randn, grid(1056), &n, 1), 2.0 * (1 << 20));
}

TEST(Cat, OutputSizesFromTheTensorSizeStrideArgument) {
  const AtenKernel contig = classify_aten_kernel(
      "void at::native::(anonymous namespace)::CatArrayBatchedCopy_contig<at::native::(anonymous "
      "namespace)::OpaqueType<2u>, unsigned int, 2, 128, 1>(at::native::(anonymous "
      "namespace)::OpaqueType<2u>*, at::native::(anonymous namespace)::CatArrInputTensorMetadata<"
      "at::native::(anonymous namespace)::OpaqueType<2u>, unsigned int, 128, 1>, "
      "at::native::(anonymous namespace)::TensorSizeStride<unsigned int, 4u>, int, unsigned int)");
  ASSERT_EQ(contig.family, AtenFamily::kCat);
  EXPECT_EQ(contig.element_bytes, 2);
  EXPECT_EQ(contig.dims, 2);
  EXPECT_TRUE(contig.contiguous);
  // A 4096 x 1536 bf16 output (two 4096 x 768 inputs): read once and written once; the sizes
  // past the output's two dimensions are not the kernel's.
  const uint64_t sizes[4] = {4096, 1536, 7, 7};
  EXPECT_DOUBLE_EQ(*aten_kernel_bytes(contig, grid(132, 2), sizes, 4), 2.0 * 2 * 4096 * 1536);
  EXPECT_EQ(*aten_kernel_time(h100(), contig, grid(132, 2), sizes, 4),
            at_efficiency(2.0 * 2 * 4096 * 1536, 0.90));
  const uint64_t empty[4] = {4096, 0, 1, 1};
  EXPECT_FALSE(aten_kernel_bytes(contig, grid(132, 2), empty, 4).has_value());
  EXPECT_FALSE(aten_kernel_bytes(contig, grid(132, 2), sizes, 1).has_value());

  // The general variant reads strided inputs.
  const AtenKernel strided = classify_aten_kernel(
      "void at::native::(anonymous namespace)::CatArrayBatchedCopy<at::native::(anonymous "
      "namespace)::OpaqueType<4u>, unsigned int, 3, 64, 64>(at::native::(anonymous "
      "namespace)::OpaqueType<4u>*, ...)");
  ASSERT_EQ(strided.family, AtenFamily::kCat);
  EXPECT_FALSE(strided.contiguous);
  const uint64_t three[4] = {8, 512, 64, 0};
  EXPECT_EQ(*aten_kernel_time(h100(), strided, grid(132, 3), three, 4),
            at_efficiency(2.0 * 4 * 8 * 512 * 64, 0.60));

  // The vectorized variant (PyTorch 2.15's choice for aligned contiguous inputs) counts the
  // innermost size in vectors of 8 bf16.
  const AtenKernel vectorized = classify_aten_kernel(
      "void at::native::(anonymous namespace)::CatArrayBatchedCopy_vectorized<at::native::("
      "anonymous namespace)::OpaqueType<2u>, unsigned int, 2, 128, 1, 16, 8>(char*, "
      "at::native::(anonymous namespace)::CatArrInputTensorMetadata<at::native::(anonymous "
      "namespace)::OpaqueType<2u>, unsigned int, 128, 1>, at::native::(anonymous "
      "namespace)::TensorSizeStride<unsigned int, 4u>, int, unsigned int)");
  ASSERT_EQ(vectorized.family, AtenFamily::kCat);
  EXPECT_TRUE(vectorized.contiguous);
  const uint64_t in_vectors[4] = {8192, 1024, 0, 0};
  EXPECT_DOUBLE_EQ(*aten_kernel_bytes(vectorized, grid(132, 2), in_vectors, 4),
                   2.0 * 2 * 8192 * 8192);

  // The client copies os.tensorSize[0..4) (param 2) for every variant.
  for (const char* mangled :
       {"_ZN2at6native40_GLOBAL__N__f1f992fe_8_Shape_cu_49f7391c26CatArrayBatchedCopy_contigINS1_"
        "10OpaqueTypeILj2EEEjLi2ELi128ELi1EEEvPT_NS1_25CatArrInputTensorMetadataIS5_T0_XT2_EXT3_"
        "EEENS1_16TensorSizeStrideIS8_Lj4EEEiS8_",
        "_ZN2at6native40_GLOBAL__N__f1f992fe_8_Shape_cu_49f7391c19CatArrayBatchedCopyINS1_10Opaque"
        "TypeILj16EEEjLi4ELi64ELi64EEEvPT_NS1_25CatArrInputTensorMetadataIS5_T0_XT2_EXT3_EEENS1_"
        "16TensorSizeStrideIS8_Lj4EEEiS8_"}) {
    const client::ArgSpec* spec = client::arg_spec_for_name(mangled);
    ASSERT_NE(spec, nullptr) << mangled;
    ASSERT_EQ(spec->n, 4);
    for (int i = 0; i < 4; ++i) {
      EXPECT_EQ(spec->fields[i].param, 2);
      EXPECT_EQ(spec->fields[i].offset, 4 * i);
      EXPECT_EQ(spec->fields[i].bytes, 4);
    }
    uint32_t os[8] = {4096, 1536, 1, 1, 1536, 1, 0, 0};
    void* args[3] = {nullptr, nullptr, os};
    uint64_t out[4];
    ASSERT_EQ(client::read_launch_args(*spec, args, out), 4);
    EXPECT_EQ(out[0], 4096u);
    EXPECT_EQ(out[1], 1536u);
  }
}

TEST(NllLoss, OneBlockWalksTheRows) {
  const AtenKernel fwd = classify_aten_kernel(
      "void at::native::(anonymous namespace)::nll_loss_forward_reduce_cuda_kernel_2d<"
      "c10::BFloat16, float, long>(c10::BFloat16*, c10::BFloat16*, c10::BFloat16 const*, long "
      "const*, c10::BFloat16 const*, bool, long, long, long, long)");
  ASSERT_EQ(fwd.family, AtenFamily::kNllLoss);
  const uint64_t rows = 8192;
  // 128 threads: 64 rows each, two dependent 0.5 us loads per row.
  EXPECT_EQ(*aten_kernel_time(h100(), fwd, grid(1, 1, 128), &rows, 1), 2000 + 64 * 1000);
  EXPECT_FALSE(aten_kernel_time(h100(), fwd, grid(2, 1, 128), &rows, 1).has_value());
  const client::ArgSpec* f = client::arg_spec_for_name(
      "_ZN2at6native39_GLOBAL__N__6bd09d29_7_Loss_cu_5b0651e138nll_loss_forward_reduce_cuda_"
      "kernel_2dIN3c108BFloat16EflEEvPT_S6_PKS5_PKT1_S8_bllll");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->fields[0].param, 6);
  EXPECT_EQ(f->fields[0].bytes, 8);
}

// fuzz_aten_kernels: a size argument near 2^64 (grid-stride kernels have no grid check) gave a
// time beyond int64 (undefined behaviour); times saturate at 10^17 ns.
TEST(AtenFamilies, AbsurdSizesSaturate) {
  const AtenKernel randn = classify_aten_kernel(
      "void at::native::(anonymous namespace)::distribution_elementwise_grid_stride_kernel<float, "
      "4, at::native::templates::cuda::normal_and_transform<float, float, ...>, ...>(long, ...)");
  const uint64_t huge = ~uint64_t{0} >> 1;
  EXPECT_EQ(*aten_kernel_time(h100(), randn, grid(1), &huge, 1),
            at_efficiency(static_cast<double>(huge) * 4, 0.9));
  const AtenKernel nll = classify_aten_kernel(
      "void at::native::(anonymous namespace)::nll_loss_forward_reduce_cuda_kernel_2d<float, "
      "float, "
      "long>(float*, float*, float const*, long const*, float const*, bool, long, long, long, "
      "long)");
  EXPECT_EQ(*aten_kernel_time(h100(), nll, grid(1, 1, 1), &huge, 1),
            2000 + Time{100000000000000000});
  EXPECT_EQ(saturated_ns(-5), 0);
  EXPECT_EQ(saturated_ns(1.2), 2);
}

TEST(AtenFamilies, EveryFamilyHasAName) {
  for (int f = 1; f <= static_cast<int>(AtenFamily::kMemEffBackward); ++f) {
    EXPECT_STRNE(aten_family_name(static_cast<AtenFamily>(f)), "other kernels") << f;
  }
  EXPECT_STREQ(aten_family_name(AtenFamily::kNone), "other kernels");
}

}  // namespace
}  // namespace seer::sim
