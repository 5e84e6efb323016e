#include "seer/simcore/aten_kernels.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <vector>

namespace seer::sim {
namespace {

bool word_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// The template arguments of the kernel: from the first '<' to the '>' that precedes the
// parameter list.
std::string template_args(const std::string& name) {
  const size_t open = name.find('<');
  const size_t close = name.rfind(">(");
  if (open == std::string::npos || close == std::string::npos || close <= open) return {};
  return name.substr(open + 1, close - open - 1);
}

// Size of the first data type named in `args` (0 when none).
int first_element_bytes(const std::string& args) {
  static const std::pair<const char*, int> kTypes[] = {{"c10::BFloat16", 2},
                                                       {"c10::Half", 2},
                                                       {"c10::Float8_e4m3fn", 1},
                                                       {"c10::Float8_e5m2", 1},
                                                       {"c10::complex<double>", 16},
                                                       {"c10::complex<float>", 8},
                                                       {"double", 8},
                                                       {"float", 4},
                                                       {"long", 8},
                                                       {"int", 4},
                                                       {"short", 2},
                                                       {"bool", 1},
                                                       {"unsigned char", 1},
                                                       {"signed char", 1}};
  size_t best = std::string::npos;
  int bytes = 0;
  for (const auto& [type, size] : kTypes) {
    const std::string t = type;
    for (size_t at = args.find(t); at != std::string::npos; at = args.find(t, at + 1)) {
      const bool starts = at == 0 || !word_char(args[at - 1]) || t.rfind("c10::", 0) == 0;
      const size_t end = at + t.size();
      const bool ends = end >= args.size() || !word_char(args[end]);
      if (starts && ends) {
        if (at < best) {
          best = at;
          bytes = size;
        }
        break;
      }
    }
  }
  return bytes;
}

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

// The top-level template arguments of `args`, split at commas outside nested brackets.
std::vector<std::string> split_args(const std::string& args) {
  std::vector<std::string> out;
  int depth = 0;
  size_t start = 0;
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i] == '<' || args[i] == '(') ++depth;
    if (args[i] == '>' || args[i] == ')') --depth;
    if (args[i] == ',' && depth == 0) {
      out.push_back(args.substr(start, i - start));
      start = i + 2;
    }
  }
  out.push_back(args.substr(start));
  return out;
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
  k.element_bytes = functor == std::string::npos ? 0 : first_element_bytes(args.substr(functor));
  if (k.element_bytes == 0) k.element_bytes = 4;
  const bool fused_optimizer = args.find("FusedOptimizerTensorListMetadata<") != std::string::npos;
  k.tensors = fused_optimizer ? 2 * depth - 1 : depth;
  k.family = AtenFamily::kMultiTensorApply;
  k.needs_sizes = false;
  return k;
}

}  // namespace

AtenKernel classify_aten_kernel(const std::string& name) {
  AtenKernel k;
  const auto is = [&](const char* head) { return name.find(head) != std::string::npos; };
  AtenFamily f = AtenFamily::kNone;
  if (is("at::native::vectorized_elementwise_kernel<")) {
    f = AtenFamily::kVectorizedElementwise;
  } else if (is("at::native::unrolled_elementwise_kernel<")) {
    f = AtenFamily::kUnrolledElementwise;
  } else if (is("at::native::elementwise_kernel<")) {
    f = AtenFamily::kStridedElementwise;
  } else if (is("vectorized_layer_norm_kernel<")) {
    f = AtenFamily::kLayerNormForward;
  } else if (is("multi_tensor_apply_kernel<")) {
    return classify_multi_tensor_apply(name);
  } else if (is("cunn_SoftMax")) {
    return classify_softmax(name);
  } else if (is("chunk_cat_cuda_kernel<")) {
    f = AtenFamily::kChunkCat;
  } else if (is("split_with_sizes_copy_out_contiguous_no_cast_kernel(")) {
    f = AtenFamily::kSplitCopy;
  }
  if (f == AtenFamily::kNone) return k;
  const std::string args = template_args(name);
  k.element_bytes = first_element_bytes(args);
  if (k.element_bytes == 0) k.element_bytes = 4;
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

std::optional<double> aten_kernel_bytes(const AtenKernel& k, const LaunchGeometry& g,
                                        const uint64_t* sizes, int nsizes) {
  if (k.family == AtenFamily::kMultiTensorApply) {
    return static_cast<double>(g.blocks()) * kMultiTensorChunkElements * k.tensors *
           k.element_bytes;
  }
  if (k.family == AtenFamily::kNone || nsizes < 1 || sizes[0] == 0) return std::nullopt;
  const double n = static_cast<double>(sizes[0]);
  const double blocks = static_cast<double>(g.gx);
  switch (k.family) {
    case AtenFamily::kVectorizedElementwise:
    case AtenFamily::kUnrolledElementwise:
    case AtenFamily::kStridedElementwise: {
      // 128 threads x 4..16 elements per block (CUDALoops.cuh): N must fit the grid.
      if (n > blocks * 128 * 16 || n <= (blocks - 1) * 128) return std::nullopt;
      return n * k.tensors * k.element_bytes;
    }
    case AtenFamily::kLayerNormForward: {
      // N = the normalized size (param 0), M = rows = gridDim.x: read X, write Y, read gamma and
      // beta once, write mean and rstd (fp32).
      if (n > (1 << 24)) return std::nullopt;
      return blocks * n * 2 * k.element_bytes + 2 * n * k.element_bytes + 2 * blocks * 4;
    }
    case AtenFamily::kChunkCat: {
      // slice_size bytes of output per leading-dimension slice (gridDim.z), read at
      // 1/dst_to_src_ratio of that (bf16 gradients into an fp32 buffer: half).
      if (nsizes < 2) return std::nullopt;
      const double out = n * static_cast<double>(g.gz);
      return out + out / static_cast<double>(std::max<uint64_t>(1, sizes[1]));
    }
    case AtenFamily::kSplitCopy:
      // src_stride bytes per chunk, num_chunks chunks: read and written once.
      if (nsizes < 2) return std::nullopt;
      return 2 * n * static_cast<double>(sizes[1]);
    case AtenFamily::kSoftmax:
      if (n > (uint64_t{1} << 32)) return std::nullopt;
      return blocks * n * k.bytes_per_element;
    case AtenFamily::kMultiTensorApply:
    case AtenFamily::kNone:
      break;
  }
  return std::nullopt;
}

Time aten_kernel_ns(const GpuSpec& gpu, const AtenKernel& k, double bytes) {
  double efficiency = kContiguousElementwiseEfficiency;
  if (k.family == AtenFamily::kStridedElementwise) efficiency = kStridedElementwiseEfficiency;
  if (k.family == AtenFamily::kLayerNormForward) efficiency = kNormEfficiency;
  if (k.family == AtenFamily::kSoftmax) efficiency = kSoftmaxEfficiency;
  const double bw = gpu.hbm_bytes_per_s * efficiency;
  const double ns = bytes > 0 && bw > 0 ? bytes / bw * 1e9 : 0.0;
  return kAtenKernelOverheadNs + static_cast<Time>(std::ceil(ns));
}

}  // namespace seer::sim
