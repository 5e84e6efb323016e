#include "kernel_args.h"

#include <cxxabi.h>

#include <cstdlib>
#include <cstring>
#include <initializer_list>
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

}  // namespace

const ArgSpec* arg_spec_for_name(const char* mangled) {
  if (!mangled) return nullptr;
  const bool aten = std::strncmp(mangled, "_ZN2at6native", 13) == 0;
  const bool fsdp = std::strncmp(mangled, "_ZN5torch11distributed4fsdp", 27) == 0;
  if (!aten && !fsdp) return nullptr;
  if (std::strstr(mangled, "21chunk_cat_cuda_kernel")) return &kChunkCat;
  if (aten && std::strstr(mangled, "cunn_SoftMax")) return softmax_spec(mangled);
  if (std::strstr(mangled, "51split_with_sizes_copy_out_contiguous_no_cast_kernel")) {
    return &kSplitCopy;
  }
  for (const char* pattern : kIntNFirst) {
    if (aten && std::strstr(mangled, pattern)) return &kFirstInt;
  }
  return nullptr;
}

int read_launch_args(const ArgSpec& spec, void** args, uint64_t* out) {
  if (!args) return 0;
  for (int i = 0; i < spec.n; ++i) {
    const ArgField& f = spec.fields[i];
    const auto* p = static_cast<const unsigned char*>(args[f.param]);
    if (!p) return 0;
    int64_t v = 0;
    if (f.bytes == 8) {
      std::memcpy(&v, p + f.offset, 8);
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
