// Names are PyTorch 2.15's (libtorch_cuda.so, demangled / mangled as the binary holds them).

#include "seer/simcore/aten_kernels.h"

#include <gtest/gtest.h>

#include <cmath>

#include "kernel_args.h"

namespace seer::sim {
namespace {

constexpr const char* kAddBf16 =
    "void at::native::vectorized_elementwise_kernel<8, at::native::CUDAFunctor_add<c10::BFloat16>, "
    "std::array<char*, 3ul>, false>(int, at::native::CUDAFunctor_add<c10::BFloat16>, "
    "std::array<char*, 3ul>)";
constexpr const char* kCast =
    "void at::native::vectorized_elementwise_kernel<4, "
    "at::native::converting_copy_kernel_cuda<c10::BFloat16, float>(at::TensorIteratorBase&)::"
    "{lambda(c10::BFloat16)#1}, std::array<char*, 2ul>, false>(int, ...)";
constexpr const char* kStridedMul =
    "void at::native::elementwise_kernel<128, 4, at::native::gpu_kernel_impl_nocast<"
    "at::native::BinaryFunctor<float, float, float, at::native::binary_internal::MulFunctor<float> "
    "> >(at::TensorIteratorBase&, at::native::BinaryFunctor<float, float, float, "
    "at::native::binary_internal::MulFunctor<float> > const&)::{lambda(int)#1}>(int, "
    "at::native::gpu_kernel_impl_nocast<...>::{lambda(int)#1})";
constexpr const char* kLayerNorm =
    "void at::native::(anonymous namespace)::vectorized_layer_norm_kernel<c10::BFloat16, float, "
    "false>(int, float, c10::BFloat16 const*, c10::BFloat16 const*, c10::BFloat16 const*, float*, "
    "float*, c10::BFloat16*)";

TEST(AtenKernels, ClassifiesByFamilyArityAndType) {
  AtenKernel k = classify_aten_kernel(kAddBf16);
  EXPECT_EQ(k.family, AtenFamily::kVectorizedElementwise);
  EXPECT_EQ(k.tensors, 3);
  EXPECT_EQ(k.element_bytes, 2);
  k = classify_aten_kernel(kCast);
  EXPECT_EQ(k.tensors * k.element_bytes, 2 + 4);
  k = classify_aten_kernel(kStridedMul);
  EXPECT_EQ(k.family, AtenFamily::kStridedElementwise);
  EXPECT_EQ(k.tensors, 3);
  EXPECT_EQ(k.element_bytes, 4);
  k = classify_aten_kernel(kLayerNorm);
  EXPECT_EQ(k.family, AtenFamily::kLayerNormForward);
  EXPECT_EQ(k.element_bytes, 2);
  EXPECT_EQ(classify_aten_kernel("void at::native::cat_kernel<1>(...)").family, AtenFamily::kNone);
  EXPECT_EQ(classify_aten_kernel("my_kernel(int)").family, AtenFamily::kNone);
}

TEST(AtenKernels, BytesFollowTheSizeArgumentAndTheGridMustAgree) {
  const AtenKernel add = classify_aten_kernel(kAddBf16);
  const uint64_t n = uint64_t{1} << 25;
  LaunchGeometry g;
  g.gx = static_cast<uint32_t>(n / 1024);  // 128 threads x 8 elements per block
  g.bx = 128;
  EXPECT_DOUBLE_EQ(*aten_kernel_bytes(add, g, &n, 1), static_cast<double>(n) * 3 * 2);
  // An N the grid cannot cover (or a grid far too large for it) is not this launch's size.
  const uint64_t wrong = n * 64;
  EXPECT_FALSE(aten_kernel_bytes(add, g, &wrong, 1).has_value());
  const uint64_t tiny = 100;
  EXPECT_FALSE(aten_kernel_bytes(add, g, &tiny, 1).has_value());
  EXPECT_FALSE(aten_kernel_bytes(add, g, &n, 0).has_value());

  const AtenKernel ln = classify_aten_kernel(kLayerNorm);
  LaunchGeometry rows;
  rows.gx = 8192;
  const uint64_t cols = 4096;
  EXPECT_DOUBLE_EQ(*aten_kernel_bytes(ln, rows, &cols, 1),
                   8192.0 * 4096 * 2 * 2 + 2 * 4096 * 2 + 2 * 8192 * 4);
}

TEST(AtenKernels, MultiTensorApplyIsSizedByItsChunks) {
  const AtenKernel adam = classify_aten_kernel(
      "void at::native::(anonymous namespace)::multi_tensor_apply_kernel<at::native::(anonymous "
      "namespace)::FusedOptimizerTensorListMetadata<4>, at::native::(anonymous "
      "namespace)::FusedAdamMathFunctor<float, 4, (at::native::ADAM_MODE)1, false>, double, "
      "double, double, double, double, bool, double*, float const*, float const*>(...)");
  EXPECT_EQ(adam.family, AtenFamily::kMultiTensorApply);
  EXPECT_EQ(adam.tensors * adam.element_bytes, 28);  // read p, g, m, v; write p, m, v
  EXPECT_FALSE(adam.needs_sizes);
  LaunchGeometry g;
  g.gx = 256;
  EXPECT_DOUBLE_EQ(*aten_kernel_bytes(adam, g, nullptr, 0), 256.0 * 65536 * 28);
  const AtenKernel copy = classify_aten_kernel(
      "void at::native::(anonymous namespace)::multi_tensor_apply_kernel<at::native::(anonymous "
      "namespace)::TensorListMetadata<2>, at::native::(anonymous "
      "namespace)::CopyFunctor<c10::BFloat16, float, 2, 1, 1>, ...>(...)");
  EXPECT_EQ(copy.tensors * copy.element_bytes, 2 * 2);
}

TEST(AtenKernels, Fsdp2CopyInAndCopyOutFromTheirByteArguments) {
  const AtenKernel cat = classify_aten_kernel(
      "void at::native::detail::chunk_cat_cuda_kernel<float, c10::BFloat16>(c10::BFloat16**, "
      "float*, long*, long*, long*, long*, long*, long*, long, long, long)");
  EXPECT_EQ(cat.family, AtenFamily::kChunkCat);
  LaunchGeometry g;
  g.gx = 1000;
  g.gz = 1;
  const uint64_t cat_args[2] = {1 << 30, 2};  // slice_size bytes (fp32 out), fp32/bf16 ratio
  EXPECT_DOUBLE_EQ(*aten_kernel_bytes(cat, g, cat_args, 2), 1.5 * (1 << 30));
  EXPECT_FALSE(aten_kernel_bytes(cat, g, cat_args, 1).has_value());
  const AtenKernel split = classify_aten_kernel(
      "void at::native::detail::split_with_sizes_copy_out_contiguous_no_cast_kernel(char**, "
      "char**, long*, long*, long*, long, long)");
  EXPECT_EQ(split.family, AtenFamily::kSplitCopy);
  const uint64_t split_args[2] = {1 << 20, 16};  // src_stride bytes, num_chunks
  EXPECT_DOUBLE_EQ(*aten_kernel_bytes(split, g, split_args, 2), 2.0 * (1 << 20) * 16);
  EXPECT_NE(client::arg_spec_for_name("_ZN2at6native6detail21chunk_cat_cuda_"
                                      "kernelIfN3c108BFloat16EEEvPPT0_PT_PlSA_SA_SA_SA_SA_lll"),
            nullptr);
  EXPECT_EQ(client::arg_spec_for_name(
                "_ZN5torch11distributed4fsdp50_GLOBAL__N__e4017c48_11_ChunkCat_cu_d32bfcb6_"
                "3949921chunk_cat_cuda_kernelIccEEvPPT0_PT_PlS9_S9_S9_S9_S9_lll")
                ->fields[1]
                .param,
            10);
  EXPECT_EQ(client::arg_spec_for_name("_ZN2at6native6detail51split_with_sizes_copy_out_"
                                      "contiguous_no_cast_kernelEPPcS3_PlS4_S4_ll")
                ->fields[0]
                .param,
            5);
}

TEST(AtenKernels, SoftmaxPassesPerVariant) {
  // Log-softmax over a 128,256-entry fp32 vocabulary (cross-entropy), 4096 rows: the global-
  // memory forward reads each row three times and writes it once; the backward reads gO twice
  // and the output once and writes gI.
  const AtenKernel fwd = classify_aten_kernel(
      "void at::native::(anonymous namespace)::cunn_SoftMaxForward<4, float, float, float, "
      "at::native::(anonymous namespace)::LogSoftMaxForwardEpilogue>(float*, float const*, int)");
  EXPECT_EQ(fwd.family, AtenFamily::kSoftmax);
  LaunchGeometry rows;
  rows.gx = 4096;
  const uint64_t vocab = 128256;
  EXPECT_DOUBLE_EQ(*aten_kernel_bytes(fwd, rows, &vocab, 1), 4096.0 * vocab * (3 * 4 + 4));
  const AtenKernel bwd = classify_aten_kernel(
      "void at::native::(anonymous namespace)::cunn_SoftMaxBackward<4, float, float, float, "
      "at::native::(anonymous namespace)::LogSoftMaxBackwardEpilogue>(float*, float const*, float "
      "const*, long)");
  EXPECT_DOUBLE_EQ(*aten_kernel_bytes(bwd, rows, &vocab, 1), 4096.0 * vocab * (3 * 4 + 4));
  // Rows kept on chip: one read (bf16) and one write (bf16).
  const AtenKernel reg = classify_aten_kernel(
      "void at::native::(anonymous namespace)::cunn_SoftMaxForwardReg<c10::BFloat16, float, "
      "c10::BFloat16, at::native::(anonymous namespace)::SoftMaxForwardEpilogue, long, "
      "9>(c10::BFloat16*, c10::BFloat16 const*, long)");
  EXPECT_DOUBLE_EQ(*aten_kernel_bytes(reg, rows, &vocab, 1), 4096.0 * vocab * (2 + 2));
  const GpuSpec h100 = *find_gpu("H100-SXM-80GB");
  const double bytes = 4096.0 * vocab * 16;
  EXPECT_EQ(aten_kernel_ns(h100, fwd, bytes),
            2000 + static_cast<Time>(std::ceil(bytes / (0.6 * 3.35e12) * 1e9)));
  // The client reads `classes` as the last parameter: int for the global-memory forward, long
  // for the others.
  const client::ArgSpec* f = client::arg_spec_for_name(
      "_ZN2at6native12_GLOBAL__N_119cunn_SoftMaxForwardILi4EfffNS1_25LogSoftMaxForwardEpilogueEEEv"
      "PT2_PKT0_i");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->fields[0].param, 2);
  EXPECT_EQ(f->fields[0].bytes, 4);
}

TEST(AtenKernels, TimeIsOverheadPlusBytesAtTheFamilysEfficiency) {
  const GpuSpec h100 = *find_gpu("H100-SXM-80GB");
  const double bytes = 201326592;  // 32 Mi bf16 elements x 3 tensors
  EXPECT_EQ(aten_kernel_ns(h100, classify_aten_kernel(kAddBf16), bytes),
            2000 + static_cast<Time>(std::ceil(bytes / (0.9 * 3.35e12) * 1e9)));
  EXPECT_EQ(aten_kernel_ns(h100, classify_aten_kernel(kStridedMul), bytes),
            2000 + static_cast<Time>(std::ceil(bytes / (0.6 * 3.35e12) * 1e9)));
  EXPECT_EQ(aten_kernel_ns(h100, classify_aten_kernel(kLayerNorm), bytes),
            2000 + static_cast<Time>(std::ceil(bytes / (0.8 * 3.35e12) * 1e9)));
}

TEST(KernelArgs, ChosenFromTheMangledNameAndReadFromTheArgsArray) {
  using client::arg_spec_for_name;
  const client::ArgSpec* s = arg_spec_for_name(
      "_ZN2at6native29vectorized_elementwise_kernelILi8ENS0_15CUDAFunctor_addIN3c108BFloat16EEESt5"
      "arrayIPcLm3EELb0EEEviT0_T1_");
  ASSERT_NE(s, nullptr);
  EXPECT_NE(arg_spec_for_name("_ZN2at6native53_GLOBAL__N__4da244e1_20_layer_norm_kernel_cu_"
                              "9c5ada8a28vectorized_layer_norm_kernelIN3c108BFloat16EfLb0EEEviT0_"
                              "PKT_S8_S8_PS5_S9_PS6_"),
            nullptr);
  EXPECT_EQ(arg_spec_for_name("_Z10my_kernelPfi"), nullptr);
  EXPECT_EQ(arg_spec_for_name(nullptr), nullptr);
  int n = 12345;
  float f = 1.f;
  void* args[] = {&n, &f};
  uint64_t out[4] = {};
  ASSERT_EQ(client::read_launch_args(*s, args, out), 1);
  EXPECT_EQ(out[0], 12345u);
  n = -1;
  client::read_launch_args(*s, args, out);
  EXPECT_EQ(out[0], 0u);
  EXPECT_EQ(client::read_launch_args(*s, nullptr, out), 0);
}

}  // namespace
}  // namespace seer::sim

namespace seer::sim {
namespace {

// A spec fits a kernel's parameter layout (from its image) only where it reads real parameters:
// the elementwise count N must be a 4-byte int, a by-value struct must hold the fields read, and
// an unknown layout is taken on trust.
TEST(KernelArgs, SpecsAreCheckedAgainstTheParameterLayout) {
  using client::ParamInfo;
  const client::ArgSpec* elementwise = client::arg_spec_for_name(
      "_ZN2at6native29vectorized_elementwise_kernelILi8ENS0_15CUDAFunctor_addIN3c108BFloat16EEESt5"
      "arrayIPcLm3EELb0EEEviT0_T1_");
  ASSERT_NE(elementwise, nullptr);
  EXPECT_TRUE(client::arg_spec_fits(*elementwise, {}));
  EXPECT_TRUE(client::arg_spec_fits(*elementwise, {{0, 4}, {4, 1}, {8, 24}}));
  EXPECT_FALSE(client::arg_spec_fits(*elementwise, {{0, 8}, {8, 1}, {16, 24}}));  // a long N

  const client::ArgSpec* flash = client::arg_spec_for_name(
      "_ZN13pytorch_flash16flash_fwd_kernelI23Flash_fwd_kernel_traitsILi128ELi128ELi64ELi4ELb0ELb0"
      "EN7cutlass10bfloat16_tE19Flash_kernel_traitsILi128ELi128ELi64ELi4ES3_EELb0ELb1ELb0ELb0ELb1E"
      "Lb1ELb0ELb0EEEvNS_16Flash_fwd_paramsE");
  ASSERT_NE(flash, nullptr);
  EXPECT_TRUE(client::arg_spec_fits(*flash, {{0, 472}}));
  EXPECT_FALSE(client::arg_spec_fits(*flash, {{0, 160}}));  // seqlen_k at 184 lies past it

  const client::ArgSpec* reduce = client::arg_spec_for_name(
      "_ZN2at6native13reduce_kernelILi512ELi1ENS0_8ReduceOpIbNS0_14func_wrapper_tImZNS0_15xor_sum_"
      "functorIbvEclERNS_14TensorIteratorEEUlbbE_EEjmLi4ELi4EEEEEvT1_");
  ASSERT_NE(reduce, nullptr);
  EXPECT_TRUE(client::arg_spec_fits(*reduce, {{0, 584}}));
  EXPECT_FALSE(client::arg_spec_fits(*reduce, {{0, 96}}));  // shorter than the config search

  const client::ArgSpec* softmax = client::arg_spec_for_name(
      "_ZN12_GLOBAL__N_120softmax_warp_forwardIN3c108BFloat16ES2_fLi10ELb0ELb0EEEvPT0_PKT_"
      "iiiPKbib");
  ASSERT_NE(softmax, nullptr);
  const std::vector<ParamInfo> full = {{0, 8}, {8, 8}, {16, 4}, {20, 4}, {24, 4}};
  EXPECT_TRUE(client::arg_spec_fits(*softmax, full));
  EXPECT_FALSE(client::arg_spec_fits(*softmax, {{0, 8}, {8, 8}, {16, 4}}));  // no element_count
}

}  // namespace
}  // namespace seer::sim
