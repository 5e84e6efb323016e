#include "seer/simcore/aten_kernels.h"

#include <cstdlib>
#include <vector>

#include "aten_names.h"

namespace seer::sim {
namespace {

using aten_names::first_element_bytes;
using aten_names::kMaxThreadsPerBlock;
using aten_names::split_args;
using aten_names::template_args;
using aten_names::template_int;

// std::array<char*, Kul>: the tensors an element touches.
int array_arity(const std::string& args) {
  const size_t at = args.find("std::array<char*, ");
  if (at == std::string::npos) return 0;
  return std::atoi(args.c_str() + at + 18);
}

int functor_arity(const std::string& args) {
  if (const int k = array_arity(args); k > 0) return k;
  if (args.find("FillFunctor") != std::string::npos) return 1;
  if (args.find("BinaryFunctor") != std::string::npos) return 3;
  return 2;
}

int element_bytes_or_4(const std::string& args) {
  const int bytes = first_element_bytes(args);
  return bytes > 0 ? bytes : 4;
}

// Softmax over rows (gridDim.x) of `classes` elements (framework-kernels.md §2.4, SoftMax.cu):
//   cunn_SoftMaxForward<ILP, T, Acc, Out, Epi>       3 passes over the row in global memory:
//                                                   3 x sizeof(T) read + sizeof(Out) written
//   cunn_SoftMaxForward{Smem,Reg}<...>               the row is kept on chip: one read, one write
//   cunn_SoftMaxBackward<ILP, T, Acc, Out, Epi>      2 passes: gO twice and out once read
//                                                   (sizeof(Out)), gI written (sizeof(T))
//   cunn_SoftMaxBackwardSmem<...>                    gO and out read once, gI written
AtenKernel classify_softmax(const std::string& name) {
  AtenKernel k;
  const std::vector<std::string> a = split_args(template_args(name));
  const bool reg = name.find("cunn_SoftMaxForwardReg<") != std::string::npos;
  // Reg has no ILP: <T, Acc, Out, ...>; the others <ILP, T, Acc, Out, ...>.
  const size_t t = reg ? 0 : 1;
  if (a.size() < t + 3) return k;
  const double in = first_element_bytes(a[t]), out = first_element_bytes(a[t + 2]);
  if (in == 0 || out == 0) return k;
  if (name.find("cunn_SoftMaxBackwardSmem<") != std::string::npos) {
    k.bytes_per_element = 2 * out + in;
  } else if (name.find("cunn_SoftMaxBackward<") != std::string::npos) {
    k.bytes_per_element = 3 * out + in;
  } else if (reg || name.find("cunn_SoftMaxForwardSmem<") != std::string::npos) {
    k.bytes_per_element = in + out;
  } else if (name.find("cunn_SoftMaxForward<") != std::string::npos) {
    k.bytes_per_element = 3 * in + out;
  } else {
    return k;
  }
  k.family = AtenFamily::kSoftmax;
  k.element_bytes = static_cast<int>(in);
  return k;
}

// softmax_warp_{forward,backward}<input_t, output_t, acc_t, log2_elements, ...> (PersistentSoftmax
// .cuh): a warp holds a row of at most 2^log2_elements in registers. Forward reads the input and
// writes the output; backward reads grad and output (input_t) and writes gradInput (output_t).
AtenKernel classify_softmax_warp(const std::string& name) {
  AtenKernel k;
  const std::vector<std::string> a = split_args(template_args(name));
  if (a.size() < 4) return k;
  const int in = first_element_bytes(a[0]), out = first_element_bytes(a[1]);
  const long log2 = template_int(a[3]);
  if (in == 0 || out == 0 || log2 < 0 || log2 > 12) return k;
  const bool backward = name.find("softmax_warp_backward<") != std::string::npos;
  k.family = AtenFamily::kSoftmaxWarp;
  k.element_bytes = in;
  k.bytes_per_element = backward ? 2.0 * in + out : in + out;
  k.tile = 1 << log2;
  return k;
}

// reduce_kernel<nt, vec, ReduceOp<scalar_t, ops_t, index_t, out_scalar_t, vt0, input_vec>>.
AtenKernel classify_reduce(const std::string& name) {
  AtenKernel k;
  const std::vector<std::string> a = split_args(template_args(name));
  if (a.size() < 3) return k;
  const std::string op = "ReduceOp<";
  const size_t at = a[2].find(op);
  if (at == std::string::npos) return k;
  const std::string inner = a[2].substr(at + op.size(), a[2].rfind('>') - at - op.size());
  const std::vector<std::string> r = split_args(inner);
  if (r.size() < 4) return k;
  k.family = AtenFamily::kReduce;
  k.element_bytes = element_bytes_or_4(r[0]);
  k.out_element_bytes = element_bytes_or_4(r[3]);
  return k;
}

// multi_tensor_apply_kernel<[FusedOptimizer]TensorListMetadata<depth>, Functor<T, ...>, ...>:
// every element of each of the `depth` lists is read; all but the gradient are written back by
// the fused optimizers (Adam: p, g, m, v read, p, m, v written), the last list by foreach ops.
AtenKernel classify_multi_tensor_apply(const std::string& name) {
  AtenKernel k;
  const std::string args = template_args(name);
  const size_t meta = args.find("TensorListMetadata<");
  if (meta == std::string::npos) return k;
  const int depth = std::atoi(args.c_str() + meta + 19);
  if (depth < 1 || depth > 8) return k;
  const size_t functor = args.find(", ", meta);
  k.element_bytes = functor == std::string::npos ? 4 : element_bytes_or_4(args.substr(functor));
  const bool fused_optimizer = args.find("FusedOptimizerTensorListMetadata<") != std::string::npos;
  k.tensors = fused_optimizer ? 2 * depth - 1 : depth;
  k.family = AtenFamily::kMultiTensorApply;
  k.needs_sizes = false;
  return k;
}

// index_elementwise_kernel<nt, vt, f>(long N, f): elementwise geometry (nt threads, vt elements
// each per block). Each element is read and written once; gathers and scatters
// (gpu_index_kernel) also read one int64 offset per element.
AtenKernel classify_index_elementwise(const std::string& name) {
  AtenKernel k;
  const std::vector<std::string> a = split_args(template_args(name));
  if (a.size() < 3) return k;
  const long nt = template_int(a[0]), vt = template_int(a[1]);
  if (nt <= 0 || vt <= 0 || nt > kMaxThreadsPerBlock || vt > kMaxThreadsPerBlock) return k;
  int bytes = aten_names::opaque_type_bytes(a[2]);
  if (bytes == 0) bytes = element_bytes_or_4(a[2]);
  k.family = AtenFamily::kIndexElementwise;
  k.element_bytes = bytes;
  k.tile = static_cast<int>(nt * vt);
  k.bytes_per_element = 2.0 * bytes + (a[2].find("index_kernel") != std::string::npos ? 8 : 0);
  return k;
}

// distribution_elementwise_grid_stride_kernel<accscalar_t, unroll, dist, transform>(long numel,
// ...): writes numel values of the output type (named in the transform, e.g.
// normal_and_transform<c10::BFloat16, float, ...>).
AtenKernel classify_random(const std::string& name) {
  AtenKernel k;
  const std::vector<std::string> a = split_args(template_args(name));
  if (a.size() < 3) return k;
  k.family = AtenFamily::kRandom;
  k.element_bytes = element_bytes_or_4(a[2]);
  return k;
}

// CatArrayBatchedCopy[_contig|_alignedK_contig|_vectorized]<OpaqueType<bytes>, unsigned, dims,
// batch, stride[, alignment[, elements per vector]]>(out, inputs, TensorSizeStride<unsigned, 4>
// os, int dim, unsigned dimStride): the output's sizes are os.tensorSize[0..dims), the innermost
// one counted in vectors by the _vectorized variant.
AtenKernel classify_cat(const std::string& name) {
  AtenKernel k;
  const std::vector<std::string> a = split_args(template_args(name));
  if (a.size() < 5) return k;
  const int bytes = aten_names::opaque_type_bytes(a[0]);
  const long dims = template_int(a[2]);
  if (bytes <= 0 || bytes > 16 || dims < 1 || dims > 4) return k;
  const bool vectorized = name.find("CatArrayBatchedCopy_vectorized<") != std::string::npos;
  const long per_vector = vectorized && a.size() >= 7 ? template_int(a[6]) : 1;
  if (per_vector < 1 || per_vector > 16) return k;
  k.family = AtenFamily::kCat;
  k.element_bytes = bytes;
  k.dims = static_cast<int>(dims);
  k.tile = static_cast<int>(per_vector);
  k.contiguous = name.find("CatArrayBatchedCopy_") != std::string::npos;
  return k;
}

AtenKernel classify_elementwise(const std::string& name, AtenFamily f) {
  AtenKernel k;
  const std::string args = template_args(name);
  k.element_bytes = element_bytes_or_4(args);
  k.tensors = f == AtenFamily::kLayerNormForward ? 2 : functor_arity(args);
  // A dtype conversion reads one type and writes the other.
  const std::string cast = "converting_copy_kernel_cuda<";
  if (const size_t at = args.find(cast); at != std::string::npos) {
    const size_t comma = args.find(", ", at);
    const int a = first_element_bytes(args.substr(at + cast.size(), comma - at - cast.size()));
    const int b = comma == std::string::npos ? 0 : first_element_bytes(args.substr(comma + 2));
    if (a > 0 && b > 0) {
      k.tensors = 1;
      k.element_bytes = a + b;
    }
  }
  k.family = f;
  return k;
}

// Families sized by one data type, the first template argument's.
AtenKernel typed(const std::string& name, AtenFamily f) {
  AtenKernel k;
  k.family = f;
  k.element_bytes = element_bytes_or_4(template_args(name));
  return k;
}

}  // namespace

AtenKernel classify_aten_kernel(const std::string& name) {
  const auto is = [&](const char* head) { return name.find(head) != std::string::npos; };
  if (is("at::native::vectorized_elementwise_kernel<")) {
    return classify_elementwise(name, AtenFamily::kVectorizedElementwise);
  }
  if (is("at::native::unrolled_elementwise_kernel<")) {
    return classify_elementwise(name, AtenFamily::kUnrolledElementwise);
  }
  if (is("at::native::elementwise_kernel<")) {
    return classify_elementwise(name, AtenFamily::kStridedElementwise);
  }
  if (is("vectorized_layer_norm_kernel<")) {
    return classify_elementwise(name, AtenFamily::kLayerNormForward);
  }
  if (is("chunk_cat_cuda_kernel<")) return classify_elementwise(name, AtenFamily::kChunkCat);
  if (is("split_with_sizes_copy_out_contiguous_no_cast_kernel(")) {
    return classify_elementwise(name, AtenFamily::kSplitCopy);
  }
  if (is("multi_tensor_apply_kernel<")) return classify_multi_tensor_apply(name);
  if (is("cunn_SoftMax")) return classify_softmax(name);
  if (is("softmax_warp_forward<") || is("softmax_warp_backward<")) {
    return classify_softmax_warp(name);
  }
  if (is("at::native::reduce_kernel<")) return classify_reduce(name);
  if (is("layer_norm_grad_input_kernel")) {
    return typed(name, AtenFamily::kLayerNormBackwardInput);
  }
  if (is("GammaBetaBackwardCUDAKernelTemplate<")) {
    return typed(name, AtenFamily::kLayerNormBackwardGamma);
  }
  if (is("at::native::vectorized_gather_kernel<")) {
    AtenKernel k;
    k.family = AtenFamily::kGather;
    return k;
  }
  if (is("embedding_backward_feature_kernel<")) {
    return typed(name, AtenFamily::kEmbeddingBackward);
  }
  if (is("at::native::index_elementwise_kernel<")) return classify_index_elementwise(name);
  if (is("CatArrayBatchedCopy")) return classify_cat(name);
  if (is("distribution_elementwise_grid_stride_kernel<")) return classify_random(name);
  if (is("nll_loss_forward_reduce_cuda_kernel_2d<") ||
      is("nll_loss_backward_reduce_cuda_kernel_2d<")) {
    return typed(name, AtenFamily::kNllLoss);
  }
  if (const AtenKernel k = classify_sort_kernel(name); k.family != AtenFamily::kNone) return k;
  return classify_attention_kernel(name);
}

const char* aten_family_name(AtenFamily f) {
  switch (f) {
    case AtenFamily::kVectorizedElementwise:
      return "vectorized elementwise";
    case AtenFamily::kUnrolledElementwise:
      return "unrolled elementwise";
    case AtenFamily::kStridedElementwise:
      return "strided elementwise";
    case AtenFamily::kLayerNormForward:
      return "layer/RMS norm forward";
    case AtenFamily::kMultiTensorApply:
      return "multi-tensor apply";
    case AtenFamily::kChunkCat:
      return "FSDP2 chunk cat";
    case AtenFamily::kSplitCopy:
      return "FSDP2 split copy";
    case AtenFamily::kSoftmax:
      return "softmax";
    case AtenFamily::kSoftmaxWarp:
      return "softmax (warp per row)";
    case AtenFamily::kReduce:
      return "reductions";
    case AtenFamily::kLayerNormBackwardInput:
      return "layer/RMS norm backward (input)";
    case AtenFamily::kLayerNormBackwardGamma:
      return "layer/RMS norm backward (weights)";
    case AtenFamily::kGather:
      return "gather / embedding forward";
    case AtenFamily::kEmbeddingBackward:
      return "embedding backward";
    case AtenFamily::kIndexElementwise:
      return "indexing";
    case AtenFamily::kCat:
      return "cat";
    case AtenFamily::kRandom:
      return "random numbers";
    case AtenFamily::kNllLoss:
      return "NLL loss";
    case AtenFamily::kFlashForward:
      return "flash attention forward";
    case AtenFamily::kFlashBackward:
      return "flash attention backward";
    case AtenFamily::kFlashBackwardPrep:
      return "flash attention backward (dO.O)";
    case AtenFamily::kFlashBackwardConvert:
      return "flash attention backward (dQ convert)";
    case AtenFamily::kMemEffForward:
      return "memory-efficient attention forward";
    case AtenFamily::kMemEffBackward:
      return "memory-efficient attention backward";
    case AtenFamily::kLayerNormTwoPass:
      return "layer/RMS norm forward (two-pass)";
    case AtenFamily::kRadixSort:
      return "radix sort (cub)";
    case AtenFamily::kCubScan:
      return "scan / unique (cub)";
    case AtenFamily::kCubSmall:
      return "cub helpers";
    case AtenFamily::kEmbeddingSegments:
      return "embedding backward (sorted segments)";
    case AtenFamily::kEmbeddingHelper:
      return "embedding backward (segment helpers)";
    case AtenFamily::kIndexingBackward:
      return "indexing backward";
    case AtenFamily::kNone:
      break;
  }
  return "other kernels";
}

}  // namespace seer::sim
