#include "kernel_args.h"

#include <cxxabi.h>

#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <iterator>
#include <string>

namespace seer::client {
namespace {

// PyTorch's TensorIterator kernels take the element count N as parameter 0 (int32); so does the
// vectorized layer/RMS norm forward (N: the normalized size; the rows are the grid).
// Itanium-mangled names carry the identifier with its length.
constexpr const char* kIntNFirst[] = {
    "29vectorized_elementwise_kernel",
    "27unrolled_elementwise_kernel",
    "18elementwise_kernel",
    "28vectorized_layer_norm_kernel",
};

constexpr ArgSpec spec(std::initializer_list<ArgField> fields) {
  ArgSpec s;
  for (const ArgField& f : fields) s.fields[s.n++] = f;
  return s;
}

constexpr ArgSpec kFirstInt = spec({{0, 0, 4}});
constexpr ArgSpec kFirstLong = spec({{0, 0, 8}});
// FSDP2's reduce-scatter copy-in: chunk_cat_cuda_kernel(src**, dst*, 6 x long*, long slice_size,
// long chunk_size, long dst_to_src_ratio): slice_size (param 8) and the ratio (param 10).
constexpr ArgSpec kChunkCat = spec({{8, 0, 8}, {10, 0, 8}});
// FSDP2's all-gather copy-out: split_with_sizes_copy_out_contiguous_no_cast_kernel(dst**, src**,
// 3 x long*, long src_stride, long num_chunks): params 5 and 6.
constexpr ArgSpec kSplitCopy = spec({{5, 0, 8}, {6, 0, 8}});
// Softmax: `classes`, the last parameter (forward: param 2, int or long; backward: param 3, long).
constexpr ArgSpec kForwardInt = spec({{2, 0, 4}});
constexpr ArgSpec kForwardLong = spec({{2, 0, 8}});
constexpr ArgSpec kBackwardLong = spec({{3, 0, 8}});

// softmax_warp_forward(dst, src, int batch, int stride, int element_count, ...) and
// softmax_warp_backward(gI, grad, out, int batch, int stride, int element_count, ...).
constexpr ArgSpec kSoftmaxWarpForward = spec({{2, 0, 4}, {3, 0, 4}, {4, 0, 4}});
constexpr ArgSpec kSoftmaxWarpBackward = spec({{3, 0, 4}, {4, 0, 4}, {5, 0, 4}});
// layer_norm_grad_input_kernel[_vectorized](dY, X, mean, rstd, gamma, dX, int N).
constexpr ArgSpec kSeventhInt = spec({{6, 0, 4}});
constexpr ArgSpec kSeventhLong = spec({{6, 0, 8}});
// GammaBetaBackwardCUDAKernelTemplate(long M, long N, ...).
constexpr ArgSpec kTwoLongs = spec({{0, 0, 8}, {1, 0, 8}});
// vectorized_gather_kernel(out, in, idx, int num_ind, long slice_size, ...) and
// embedding_backward_feature_kernel(indices, grad, grad_weight, int n, long stride, ...).
constexpr ArgSpec kIntThenLong = spec({{3, 0, 4}, {4, 0, 8}});
// Flash_fwd_params / Flash_bwd_params by value: h@96, b@176, seqlen_q@180, seqlen_k@184.
constexpr ArgSpec kFlashParams = spec({{0, 96, 4}, {0, 176, 4}, {0, 180, 4}, {0, 184, 4}});
// Memory-efficient attention Params by value: head_dim, num_queries, num_keys, custom_mask_type
// (PyTorch's mem_eff_attention/kernel_forward.h and kernel_backward.h).
constexpr ArgSpec kMemEffForward = spec({{0, 96, 4}, {0, 104, 4}, {0, 108, 4}, {0, 116, 1}});
constexpr ArgSpec kMemEffBackward = spec({{0, 144, 4}, {0, 152, 4}, {0, 156, 4}, {0, 168, 1}});
// CatArrayBatchedCopy*(out, inputs, TensorSizeStride<unsigned, 4> os, ...): os.tensorSize[0..4).
constexpr ArgSpec kCatSizes = spec({{2, 0, 4}, {2, 4, 4}, {2, 8, 4}, {2, 12, 4}});
// The two-pass layer norm: RowwiseMomentsCUDAKernel(long M, long N, ...) and
// LayerNormForwardCUDAKernel(long M, long N, ...): N (param 1).
constexpr ArgSpec kSecondLong = spec({{1, 0, 8}});
// Embedding backward's sort path (EmbeddingBackwardKernel.cu): compute_grad_weight[_atomic_
// accumulate](orig_indices, grad, count, long numel, long stride, ...),
// compute_grad_weight_bags(indices, grad, offset2bag, count, long numel, long stride, ...) and
// sum_and_scatter(input, grad_weight, long stride, ...).
constexpr ArgSpec kLongs3And4 = spec({{3, 0, 8}, {4, 0, 8}});
constexpr ArgSpec kLongs4And5 = spec({{4, 0, 8}, {5, 0, 8}});
constexpr ArgSpec kThirdLong = spec({{2, 0, 8}});
// indexing_backward_kernel*(sorted_indices, indices, grad_output, grad_weight, long numel,
// long stride, long stride_before, long outer_dim, bool accumulate).
constexpr ArgSpec kIndexingBackward = spec({{4, 0, 8}, {5, 0, 8}, {7, 0, 8}, {8, 0, 1}});
// cub's radix sort (num_items): DeviceRadixSortOnesweepKernel(8 pointers, int num_items, ...),
// DeviceRadixSortHistogramKernel(bins, keys, OffsetT num_items, ...),
// DeviceRadixSortUpsweepKernel(keys, spine, OffsetT num_items, ...),
// DeviceRadixSortDownsweepKernel(4 pointers, spine, OffsetT num_items, ...) and
// DeviceRadixSortSingleTileKernel(4 pointers, OffsetT num_items, ...), OffsetT = unsigned long
// long in PyTorch 2.15.
constexpr ArgSpec kNinthInt = spec({{8, 0, 4}});
constexpr ArgSpec kFifthLong = spec({{4, 0, 8}});
constexpr ArgSpec kSixthLong = spec({{5, 0, 8}});
// DeviceScanKernel(in, out, tile_state, int start_tile, op, init, OffsetT num_items) and
// DeviceUniqueByKeySweepKernel(4 iterators, num_selected, tile_state, op, OffsetT num_items, ...):
// OffsetT is unsigned int or an 8-byte type, depending on the instantiation (params 6 and 7:
// kSeventhInt, kSeventhLong and these).
constexpr ArgSpec kEighthInt32 = spec({{7, 0, 4}});
constexpr ArgSpec kEighthInt64 = spec({{7, 0, 8}});
// reduce_kernel's ReduceConfig is searched for in the first bytes of its by-value ReduceOp.
constexpr int kReduceConfigLastOffset = 64;
constexpr uint32_t kReduceConfigScanBytes = kReduceConfigLastOffset + 14 * sizeof(int32_t);

constexpr ArgSpec reduce_config_spec() {
  ArgSpec s;
  s.reduce_config = true;
  return s;
}
constexpr ArgSpec kReduceConfig = reduce_config_spec();

// cunn_SoftMax{Forward,ForwardSmem,ForwardReg}(out, in, classes) and
// cunn_SoftMaxBackward[Smem](gI, out, gO, classes): classes is the last parameter, int or long
// depending on the variant.
const ArgSpec* softmax_spec(const char* mangled) {
  const bool backward = std::strstr(mangled, "cunn_SoftMaxBackward") != nullptr;
  int status = 0;
  char* d = abi::__cxa_demangle(mangled, nullptr, nullptr, &status);
  if (!d) return nullptr;
  const std::string name(d);
  std::free(d);
  const size_t close = name.rfind(')');
  const size_t comma = name.rfind(", ", close);
  if (close == std::string::npos || comma == std::string::npos) return nullptr;
  const std::string last = name.substr(comma + 2, close - comma - 2);
  if (backward) return last == "long" ? &kBackwardLong : nullptr;
  if (last == "long") return &kForwardLong;
  return last == "int" ? &kForwardInt : nullptr;
}

// The type of parameter `ordinal` of a demangled name ("" when it has fewer).
std::string param_type(const std::string& name, size_t ordinal) {
  const size_t close = name.rfind(')');
  if (close == std::string::npos) return {};
  int depth = 0;
  size_t open = std::string::npos;
  for (size_t i = close; i-- > 0;) {
    if (name[i] == ')' || name[i] == '>') ++depth;
    if (name[i] == '<') --depth;
    if (name[i] == '(' && depth-- == 0) {
      open = i;
      break;
    }
  }
  if (open == std::string::npos) return {};
  size_t start = open + 1, index = 0;
  depth = 0;
  for (size_t i = start; i <= close; ++i) {
    const char c = name[i];
    if (c == '(' || c == '<') ++depth;
    if ((c == ')' || c == '>') && i != close) --depth;
    if ((c == ',' && depth == 0) || i == close) {
      if (index++ == ordinal) {
        std::string t = name.substr(start, i - start);
        while (!t.empty() && t.front() == ' ') t.erase(t.begin());
        return t;
      }
      start = i + 1;
    }
  }
  return {};
}

// A cub scan's or unique-by-key's num_items: 4 or 8 bytes, from its parameter list.
const ArgSpec* cub_count_spec(const char* mangled, size_t ordinal, const ArgSpec* four,
                              const ArgSpec* eight) {
  int status = 0;
  char* d = abi::__cxa_demangle(mangled, nullptr, nullptr, &status);
  if (!d) return nullptr;
  const std::string type = param_type(d, ordinal);
  std::free(d);
  if (type == "unsigned int" || type == "int") return four;
  if (type == "unsigned long" || type == "unsigned long long" || type == "long") return eight;
  return nullptr;
}

struct NamedSpec {
  const char* pattern;  // the identifier with its Itanium length prefix
  const ArgSpec* spec;
};

// ATen kernels (at::native) whose models read arguments, besides the int-N-first ones.
constexpr NamedSpec kAtenSpecs[] = {
    {"13reduce_kernel", &kReduceConfig},
    {"39layer_norm_grad_input_kernel_vectorized", &kSeventhInt},
    {"28layer_norm_grad_input_kernel", &kSeventhInt},
    {"35GammaBetaBackwardCUDAKernelTemplate", &kTwoLongs},
    {"24vectorized_gather_kernel", &kIntThenLong},
    {"33embedding_backward_feature_kernel", &kIntThenLong},
    {"24index_elementwise_kernel", &kFirstLong},
    {"43distribution_elementwise_grid_stride_kernel", &kFirstLong},
    {"38nll_loss_forward_reduce_cuda_kernel_2d", &kSeventhLong},
    {"39nll_loss_backward_reduce_cuda_kernel_2d", &kSeventhInt},
    {"24RowwiseMomentsCUDAKernel", &kSecondLong},
    {"26LayerNormForwardCUDAKernel", &kSecondLong},
    {"19compute_grad_weight", &kLongs3And4},
    {"37compute_grad_weight_atomic_accumulate", &kLongs3And4},
    {"24compute_grad_weight_bags", &kLongs4And5},
    {"15sum_and_scatter", &kThirdLong},
};

// cub's radix sort kernels in PyTorch's copy of cub (namespace at_cuda_detail::cub).
constexpr NamedSpec kRadixSortSpecs[] = {
    {"29DeviceRadixSortOnesweepKernel", &kNinthInt},
    {"30DeviceRadixSortHistogramKernel", &kThirdLong},
    {"28DeviceRadixSortUpsweepKernel", &kThirdLong},
    {"30DeviceRadixSortDownsweepKernel", &kSixthLong},
    {"31DeviceRadixSortSingleTileKernel", &kFifthLong},
};

// index_put_ with accumulate and advanced-indexing backward (Indexing.cu, anonymous namespace).
constexpr NamedSpec kIndexingBackwardSpecs[] = {
    {"24indexing_backward_kernel", &kIndexingBackward},
    {"33indexing_backward_kernel_stride_1", &kIndexingBackward},
    {"37indexing_backward_kernel_small_stride", &kIndexingBackward},
};

constexpr NamedSpec kFlashSpecs[] = {
    {"16flash_fwd_kernel", &kFlashParams},
    {"44flash_bwd_dq_dk_dv_loop_seqk_parallel_kernel", &kFlashParams},
    {"25flash_bwd_dot_do_o_kernel", &kFlashParams},
    {"27flash_bwd_convert_dq_kernel", &kFlashParams},
};

const ArgSpec* find_spec(const char* mangled, const NamedSpec* specs, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    if (std::strstr(mangled, specs[i].pattern)) return specs[i].spec;
  }
  return nullptr;
}

// Outside at::native: in-tree attention and the anonymous-namespace softmax of SoftMax.cu.
const ArgSpec* other_spec(const char* mangled) {
  if (std::strncmp(mangled, "_ZN13pytorch_flash", 18) == 0) {
    return find_spec(mangled, kFlashSpecs, std::size(kFlashSpecs));
  }
  if (std::strstr(mangled, "fmha_cutlassF_")) return &kMemEffForward;
  if (std::strstr(mangled, "fmha_cutlassB_")) return &kMemEffBackward;
  if (std::strstr(mangled, "20softmax_warp_forward")) return &kSoftmaxWarpForward;
  if (std::strstr(mangled, "21softmax_warp_backward")) return &kSoftmaxWarpBackward;
  if (std::strncmp(mangled, "_ZN14at_cuda_detail3cub", 23) == 0) {
    if (std::strstr(mangled, "16DeviceScanKernel")) {
      return cub_count_spec(mangled, 6, &kSeventhInt, &kSeventhLong);
    }
    if (std::strstr(mangled, "28DeviceUniqueByKeySweepKernel")) {
      return cub_count_spec(mangled, 7, &kEighthInt32, &kEighthInt64);
    }
    return find_spec(mangled, kRadixSortSpecs, std::size(kRadixSortSpecs));
  }
  if (std::strstr(mangled, "indexing_backward_kernel")) {
    return find_spec(mangled, kIndexingBackwardSpecs, std::size(kIndexingBackwardSpecs));
  }
  return nullptr;
}

// ReduceConfig's ints: element_size_bytes, num_inputs, num_outputs, step_input, step_output,
// ctas_per_output, input_mult[3], output_mult[2], block_width, block_height, num_threads, ...
// (Reduce.cuh). It follows ReduceOp's ops and ident, whose sizes depend on the reduction.
int read_reduce_config(void** args, uint64_t* out) {
  const auto* p = static_cast<const unsigned char*>(args[0]);
  if (!p) return 0;
  for (int offset = 0; offset <= kReduceConfigLastOffset; offset += 4) {
    int32_t c[14];
    std::memcpy(c, p + offset, sizeof c);
    const bool element_size = c[0] == 1 || c[0] == 2 || c[0] == 4 || c[0] == 8 || c[0] == 16;
    const bool block = c[11] >= 1 && c[11] <= 1024 && c[12] >= 1 && c[12] <= 1024 &&
                       c[13] == c[11] * c[12] && c[13] <= 1024;
    if (element_size && block && c[1] > 0 && c[2] > 0 && c[5] >= 1 && c[5] <= 65535) {
      out[0] = static_cast<uint64_t>(c[1]);
      out[1] = static_cast<uint64_t>(c[2]);
      out[2] = static_cast<uint64_t>(c[5]);
      out[3] = (static_cast<uint64_t>(c[11]) << 16) | static_cast<uint64_t>(c[12]);
      return 4;
    }
  }
  return 0;
}

}  // namespace

const ArgSpec* arg_spec_for_name(const char* mangled) {
  if (!mangled) return nullptr;
  const bool aten = std::strncmp(mangled, "_ZN2at6native", 13) == 0;
  const bool fsdp = std::strncmp(mangled, "_ZN5torch11distributed4fsdp", 27) == 0;
  if (!aten && !fsdp) return std::strncmp(mangled, "_Z", 2) == 0 ? other_spec(mangled) : nullptr;
  if (aten) {
    if (const ArgSpec* s = find_spec(mangled, kAtenSpecs, std::size(kAtenSpecs))) return s;
  }
  if (std::strstr(mangled, "21chunk_cat_cuda_kernel")) return &kChunkCat;
  if (aten && std::strstr(mangled, "cunn_SoftMax")) return softmax_spec(mangled);
  if (aten && std::strstr(mangled, "CatArrayBatchedCopy")) return &kCatSizes;
  if (std::strstr(mangled, "51split_with_sizes_copy_out_contiguous_no_cast_kernel")) {
    return &kSplitCopy;
  }
  for (const char* pattern : kIntNFirst) {
    if (aten && std::strstr(mangled, pattern)) return &kFirstInt;
  }
  return nullptr;
}

bool arg_spec_fits(const ArgSpec& spec, const std::vector<ParamInfo>& params) {
  if (params.empty()) return true;
  if (spec.reduce_config) return params[0].size >= kReduceConfigScanBytes;
  for (int i = 0; i < spec.n; ++i) {
    const ArgField& f = spec.fields[i];
    if (f.param >= params.size()) return false;
    const uint32_t size = params[f.param].size;
    const bool scalar = f.offset == 0 && size <= 8;
    if (scalar ? size != f.bytes : uint32_t{f.offset} + f.bytes > size) return false;
  }
  return true;
}

int read_launch_args(const ArgSpec& spec, void** args, uint64_t* out) {
  if (!args) return 0;
  if (spec.reduce_config) return read_reduce_config(args, out);
  for (int i = 0; i < spec.n; ++i) {
    const ArgField& f = spec.fields[i];
    const auto* p = static_cast<const unsigned char*>(args[f.param]);
    if (!p) return 0;
    int64_t v = 0;
    if (f.bytes == 8) {
      std::memcpy(&v, p + f.offset, 8);
    } else if (f.bytes == 1) {
      v = p[f.offset];
    } else {
      int32_t v32 = 0;
      std::memcpy(&v32, p + f.offset, 4);
      v = v32;
    }
    out[i] = v > 0 ? static_cast<uint64_t>(v) : 0;
  }
  return spec.n;
}

}  // namespace seer::client
